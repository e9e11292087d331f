// fp8kit lint against the world: for each corpus of manifest.tsv present
// under $FP8KIT_CORPUS_DIR (default /work/corpus), rerun the linter on it and
// score its errors against the verdicts, read site by site, in the manifest.
// The manifest holds repository, commit, path, line, rule and verdict, never
// the code. Exit 0 pass, 1 fail (a figure under its floor, or an error finding
// nobody judged), 77 no corpus present (CTest: skipped).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "audit/lint.hpp"

namespace {

namespace fs = std::filesystem;
using fp8kit::audit::Severity;

constexpr int kSkipped = 77;
// Floors this test holds (docs/lint.md gives the figures; the goal is 0.9 for both).
constexpr double kMinPrecision = 0.85;
constexpr double kMinRecall = 0.9;

struct Row {
  std::string corpus, repo, commit, set, path, rule, verdict, why;
  int line = 0;
};

using Key = std::tuple<std::string, int, std::string>;  // path, line, rule

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
    if (f.size() < 10) continue;
    Row r{f[0], f[1], f[2], f[3], f[4], f[6], f[8], f[9], std::atoi(f[5].c_str())};
    rows.push_back(r);
  }
  return rows;
}

struct Score {
  int tp = 0, fp = 0, fn = 0;
  double precision() const { return tp + fp ? double(tp) / (tp + fp) : 1.0; }
  double recall() const { return tp + fn ? double(tp) / (tp + fn) : 1.0; }
};

std::string read_commit(const fs::path& dir) {
  std::ifstream in(dir / ".fp8kit-corpus-commit");
  std::string c;
  in >> c;
  return c;
}

// Scores one corpus; prints its unjudged and missed sites. False if one is unjudged.
bool score_corpus(const fs::path& dir, const std::vector<Row>& rows, Score& s) {
  std::map<Key, const Row*> judged;
  for (const Row& r : rows)
    if (r.verdict != "none") judged[{r.path, r.line, r.rule}] = &r;
  const auto report = fp8kit::audit::lint_paths({dir.string()});
  std::set<Key> found;
  bool all_judged = true;
  const std::string prefix = dir.string() + "/";
  for (const auto& f : report.findings) {
    if (f.severity != Severity::Error) continue;
    const Key k{f.file.substr(prefix.size()), f.line, f.rule};
    found.insert(k);
    const auto it = judged.find(k);
    if (it == judged.end()) {
      std::printf("  unjudged: %s:%d %s (read the site, add it to the manifest)\n", std::get<0>(k).c_str(), f.line,
                  f.rule.c_str());
      ++s.fp;
      all_judged = false;
    } else if (it->second->verdict == "real") {
      ++s.tp;
    } else {
      ++s.fp;
    }
  }
  for (const auto& [k, r] : judged)
    if (r->verdict == "real" && !found.count(k)) {
      std::printf("  missed: %s:%d %s (%s)\n", std::get<0>(k).c_str(), std::get<1>(k), std::get<2>(k).c_str(),
                  r->why.c_str());
      ++s.fn;
    }
  return all_judged;
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
  bool ok = true;
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
    Score s;
    ok &= score_corpus(dir, rows, s);
    std::printf("%s (%s, %s): errors %d real, %d noise, %d missed: precision %.2f recall %.2f\n", name.c_str(),
                rows.front().repo.c_str(), rows.front().set.c_str(), s.tp, s.fp, s.fn, s.precision(), s.recall());
    Score& t = by_set[rows.front().set];
    t.tp += s.tp;
    t.fp += s.fp;
    t.fn += s.fn;
  }
  if (present == 0) {
    std::printf("no corpus of the manifest under %s (set FP8KIT_CORPUS_DIR): skipped\n", root.string().c_str());
    return kSkipped;
  }
  Score all;
  for (const auto& [set, s] : by_set) {
    std::printf("%s corpora: precision %.2f recall %.2f\n", set.c_str(), s.precision(), s.recall());
    all.tp += s.tp;
    all.fp += s.fp;
    all.fn += s.fn;
  }
  std::printf("all: precision %.2f (floor %.2f) recall %.2f (floor %.2f)\n", all.precision(), kMinPrecision,
              all.recall(), kMinRecall);
  ok &= all.precision() >= kMinPrecision && all.recall() >= kMinRecall;
  return ok ? 0 : 1;
}
