// fp8kit lint against the world: for each corpus of manifest.tsv present
// under $FP8KIT_CORPUS_DIR (default /work/corpus), rerun the linter on it and
// score its errors against the sites of the manifest, each judged by reading
// it and given a consequence class: what the neighbouring GPU of today gets
// (breaks: refused, traps, an empty or compiled-out body, no image;
// deliberate: breaks, and the code says so is meant; config: another
// configuration; none: not a hazard). The manifest holds repository, commit,
// path, line, rule, verdict and class, never the code.
//
// Reported, by set and in all: the error findings by class; precision of
// errors for "breaks" (errors judged breaks / errors) and for "an exact check
// that matters" (breaks, deliberate or config / errors); recall of "breaks"
// (breaks sites reported as errors / breaks sites); and how each class was
// graded. Exit 0 pass, 1 fail (an error finding nobody judged, a file the
// linter could not read, or a breaks precision or recall under its floor), 77
// no corpus present (CTest: skipped).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "audit/lint.hpp"

namespace {

namespace fs = std::filesystem;
using fp8kit::audit::Severity;

constexpr int kSkipped = 77;
// Floors this test holds for errors that break the neighbouring GPU (docs/lint.md gives the figures).
constexpr double kMinPrecision = 0.9;
constexpr double kMinRecall = 0.9;
constexpr int kColumns = 11;  // corpus repo commit set path line rule severity verdict class why

const char* const kClasses[] = {"breaks", "deliberate", "config", "none"};
constexpr int kClassCount = 4;

struct Row {
  std::string corpus, repo, commit, set, path, rule, severity, verdict, cls, why;
  int line = 0;
};

using Key = std::tuple<std::string, int, std::string>;  // path, line, rule

int class_index(const std::string& c) {
  for (int i = 0; i < kClassCount; ++i)
    if (c == kClasses[i]) return i;
  return -1;
}

std::vector<Row> read_manifest(const std::string& path) {
  std::vector<Row> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    if (f.size() < kColumns) continue;
    rows.push_back({f[0], f[1], f[2], f[3], f[4], f[6], f[7], f[8], f[9], f[10], std::atoi(f[5].c_str())});
  }
  return rows;
}

struct Score {
  std::array<int, kClassCount> errors{};  // error findings by the class of their site
  int unjudged = 0;                       // error findings at no site of the manifest
  int unread = 0;                         // files the linter could not read
  int breaks_sites = 0, breaks_found = 0;
  // How each class was graded: error, warning, note, not reported.
  std::array<std::array<int, 4>, kClassCount> graded{};

  int error_total() const {
    int n = unjudged;
    for (int e : errors) n += e;
    return n;
  }
  double precision_breaks() const { return error_total() ? double(errors[0]) / error_total() : 1.0; }
  double precision_matters() const {
    return error_total() ? double(errors[0] + errors[1] + errors[2]) / error_total() : 1.0;
  }
  double recall_breaks() const { return breaks_sites ? double(breaks_found) / breaks_sites : 1.0; }
  void add(const Score& o) {
    for (int i = 0; i < kClassCount; ++i) {
      errors[i] += o.errors[i];
      for (int g = 0; g < 4; ++g) graded[i][g] += o.graded[i][g];
    }
    unjudged += o.unjudged;
    unread += o.unread;
    breaks_sites += o.breaks_sites;
    breaks_found += o.breaks_found;
  }
};

std::string read_commit(const fs::path& dir) {
  std::ifstream in(dir / ".fp8kit-corpus-commit");
  std::string c;
  in >> c;
  return c;
}

// Scores one corpus; prints its unjudged and missed sites.
Score score_corpus(const fs::path& dir, const std::vector<Row>& rows) {
  Score s;
  std::map<Key, const Row*> judged;
  for (const Row& r : rows)
    if (r.path != "-") judged[{r.path, r.line, r.rule}] = &r;
  const auto report = fp8kit::audit::lint_paths({dir.string()});
  for (const auto& e : report.errors) {  // a file the linter could not read is a failure, not a silence
    std::printf("  not linted: %s: %s\n", e.path.c_str(), e.message.c_str());
    ++s.unread;
  }
  std::map<Key, Severity> found;  // the worst grade at each site
  const std::string prefix = dir.string() + "/";
  for (const auto& f : report.findings) {
    const Key k{f.file.substr(prefix.size()), f.line, f.rule};
    const auto it = found.find(k);
    if (it == found.end() || f.severity > it->second) found[k] = f.severity;
  }
  for (const auto& [k, sev] : found) {
    if (sev != Severity::Error) continue;
    const auto it = judged.find(k);
    const int c = it == judged.end() ? -1 : class_index(it->second->cls);
    if (c < 0) {
      std::printf("  unjudged: %s:%d %s (read the site, add it to the manifest)\n", std::get<0>(k).c_str(),
                  std::get<1>(k), std::get<2>(k).c_str());
      ++s.unjudged;
    } else {
      ++s.errors[c];
    }
  }
  for (const auto& [k, r] : judged) {
    const int c = class_index(r->cls);
    if (c < 0) continue;
    const auto it = found.find(k);
    const int g = it == found.end() ? 3 : it->second == Severity::Error ? 0 : it->second == Severity::Warning ? 1 : 2;
    ++s.graded[c][g];
    if (c != 0) continue;
    ++s.breaks_sites;
    if (g == 0) {
      ++s.breaks_found;
    } else {
      std::printf("  missed: %s:%d %s (%s)\n", std::get<0>(k).c_str(), std::get<1>(k), std::get<2>(k).c_str(),
                  r->why.c_str());
    }
  }
  return s;
}

void print_score(const char* what, const Score& s) {
  std::printf("%s: %d errors (breaks %d, deliberate %d, config %d, none %d, unjudged %d): precision %.2f for breaks, "
              "%.2f for an exact check that matters; breaks recall %.2f (%d of %d)\n",
              what, s.error_total(), s.errors[0], s.errors[1], s.errors[2], s.errors[3], s.unjudged,
              s.precision_breaks(), s.precision_matters(), s.recall_breaks(), s.breaks_found, s.breaks_sites);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MANIFEST.tsv\n", argv[0]);
    return 2;
  }
  const char* env = std::getenv("FP8KIT_CORPUS_DIR");
  const fs::path root = env && *env ? env : "/work/corpus";
  std::map<std::string, std::vector<Row>> by_corpus;
  for (const Row& r : read_manifest(argv[1])) by_corpus[r.corpus].push_back(r);
  std::map<std::string, Score> by_set;
  int present = 0;
  for (const auto& [name, rows] : by_corpus) {
    const fs::path dir = root / name;
    if (!fs::is_directory(dir)) {
      std::printf("%s: absent under %s, skipped\n", name.c_str(), root.string().c_str());
      continue;
    }
    const std::string commit = read_commit(dir);
    if (!commit.empty() && commit != rows.front().commit) {
      std::printf("%s: at %s, the manifest judged %s: skipped\n", name.c_str(), commit.c_str(),
                  rows.front().commit.c_str());
      continue;
    }
    ++present;
    const Score s = score_corpus(dir, rows);
    print_score((name + " (" + rows.front().repo + ", " + rows.front().set + ")").c_str(), s);
    by_set[rows.front().set].add(s);
  }
  if (present == 0) {
    std::printf("no corpus of the manifest under %s (set FP8KIT_CORPUS_DIR): skipped\n", root.string().c_str());
    return kSkipped;
  }
  Score all;
  for (const auto& [set, s] : by_set) {
    print_score((set + " corpora").c_str(), s);
    all.add(s);
  }
  print_score("all", all);
  std::printf("graded by class (error / warning / note / not reported):\n");
  for (int c = 0; c < kClassCount; ++c)
    std::printf("  %-10s %d / %d / %d / %d\n", kClasses[c], all.graded[c][0], all.graded[c][1], all.graded[c][2],
                all.graded[c][3]);
  std::printf("floors: breaks precision %.2f, breaks recall %.2f\n", kMinPrecision, kMinRecall);
  const bool ok = all.unjudged == 0 && all.unread == 0 && all.precision_breaks() >= kMinPrecision &&
                  all.recall_breaks() >= kMinRecall;
  return ok ? 0 : 1;
}
