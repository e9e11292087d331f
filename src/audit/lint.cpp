// fp8kit lint, the driver: which files are read, the rules of each source
// kind, and what needs every file at once (guard templates followed to their
// uses, CMake advice that depends on the guards that remain).
#include "audit/lint.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit {

namespace fs = std::filesystem;

LintFinding& lint::Sink::add(std::size_t at, const char* rule, const Verdict& v) {
  LintFinding f;
  f.file = file;
  std::tie(f.line, f.column) = lines.at(at);
  f.rule = rule;
  f.severity = v.severity;
  f.consequence = v.consequence;
  f.reason = v.reason;
  out.push_back(std::move(f));
  return out.back();
}

namespace {

using namespace lint;

constexpr std::uintmax_t kMaxFileBytes = 16u << 20;  // larger files are generated data

struct FileLint {
  std::vector<LintFinding> findings;
  std::vector<GuardTemplate> guards;
  std::string code;     // blanked, for the uses of other files' guards
  ArchDefines defines;  // its names for arch-macro values
  ArchExprs exprs;      // its #defines that test an arch macro
  std::vector<std::string> sources;  // CMake: the sources it names
};

std::string read_text(std::istream& in) {
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return read_text(in);
}

// Code generators (jit/, *gen/, generate_*.py) enumerate the targets
// they build; their capability tests pick a kernel's target, not a GPU.
bool is_generator(const std::string& file) {
  const fs::path p(file);
  for (const auto& part : p.parent_path()) {
    const std::string d = lower(part.string());
    const bool gen_suffix = d.size() > 3 && d.compare(d.size() - 3, 3, "gen") == 0;  // codegen, cppgen, autogen
    if (d == "jit" || gen_suffix || d == "generator" || d == "generators") return true;
  }
  const std::string stem = lower(p.stem().string());
  return stem.rfind("generate", 0) == 0 || stem.find("generator") != std::string::npos ||
         stem.find("codegen") != std::string::npos;
}

void grade_generator(std::vector<LintFinding>& findings) {
  for (LintFinding& f : findings)
    if ((f.rule == "capability-equality" || f.rule == "capability-membership") && f.severity != Severity::Note) {
      f.severity = Severity::Note;
      f.consequence = Consequence::NotAGpu;
      f.reason = "in a code generator: the test picks a generated kernel's target, not the GPU";
    }
}

FileLint lint_one(std::string_view text, SourceKind kind, const std::string& file) {
  FileLint r;
  const Lines lines(text);
  Sink s{file, lines, r.findings};
  switch (kind) {
    case SourceKind::Cpp: {
      r.code = blank_cpp(text, true);
      r.defines = arch_defines(r.code);
      r.exprs = arch_exprs(r.code);
      {
        const std::string kept = blank_cpp(text, false);
        const Preprocessor pp(kept, r.defines, r.exprs);
        const CppFile f{r.code, kept, text, pp};
        rule_macro_equality(f, s);
        rule_macro_equality(f, s, &r.defines);
        rule_feature_macros(f, s);
        rule_guard_else(f, s);
      }
      rule_host_equality(r.code, text, false, s);
      r.guards = guard_templates(r.code, r.findings, file, lines);
      rule_guard_uses(r.code, r.guards, s);
      break;
    }
    case SourceKind::Python: {
      const std::string code = keep_capability_strings(blank_python(text), text);
      rule_host_equality(code, text, true, s);
      rule_python_membership(code, text, s);
      rule_python_tables(code, text, s);
      break;
    }
    case SourceKind::CMake: {
      const std::string code = blank_cmake(text);
      rule_cmake_lists(code, s);
      r.sources = cmake_sources(code);
      break;
    }
    case SourceKind::Unknown:
      break;
  }
  if (is_generator(file)) grade_generator(r.findings);
  return r;
}

void sort_findings(std::vector<LintFinding>& v) {
  std::sort(v.begin(), v.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::tie(a.file, a.line, a.column, a.rule) < std::tie(b.file, b.line, b.column, b.rule);
  });
}

bool exact_guard(const LintFinding& f) {
  return f.severity == Severity::Error && (f.rule == "arch-macro-equality" || f.rule == "arch-feature-macro" ||
                                           f.rule == "arch-guard-else" || f.rule == "arch-guard-use");
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The source files each CMake file read names (cmake_sources).
using CMakeSources = std::map<std::string, std::vector<std::string>>;

// Whether the CMake file `cmake` names `file` among its sources.
bool names_source(const std::string& cmake, const std::vector<std::string>& sources, const std::string& file) {
  const fs::path dir = fs::path(cmake).parent_path();
  for (const std::string& t : sources) {
    const std::size_t star = t.find('*');
    if (star != std::string::npos) {  // a glob: its directory and extension
      const std::string prefix = t.substr(0, t.rfind('/', star) == std::string::npos ? 0 : t.rfind('/', star) + 1);
      const std::string base = (dir / prefix).lexically_normal().string();
      if (file.rfind(base, 0) == 0 && ends_with(file, t.substr(t.rfind('.')))) return true;
      continue;
    }
    if (file == (dir / t).lexically_normal().string() || ends_with(file, "/" + t)) return true;
  }
  return false;
}

// Whether the list of CMake file `cmake` (its text `list`) builds `file`: the
// file's own sources, and for the default architectures of a directory
// (CMAKE_CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST) those of the CMake files below.
bool list_builds(const std::string& cmake, const std::string& list, const std::string& file,
                 const CMakeSources& sources) {
  const auto own = sources.find(cmake);
  if (own != sources.end() && names_source(cmake, own->second, file)) return true;
  if (list.find("CMAKE_CUDA_ARCHITECTURES") == std::string::npos && list.find("TORCH_CUDA_ARCH_LIST") == std::string::npos)
    return false;
  const std::string dir = fs::path(cmake).parent_path().string();
  for (const auto& [other, srcs] : sources)
    if (other != cmake && fs::path(other).parent_path().string().rfind(dir, 0) == 0 && names_source(other, srcs, file))
      return true;
  return false;
}

// CMake advice once every file is read: a list that splits a family into
// per-minor cubins is an error only while an exact guard remains in a source
// it builds (the sibling's own cubin is that guard's #else), and a list of
// `a` targets is not told to add a minor then.
void settle_cmake(std::vector<LintFinding>& findings, const CMakeSources& sources) {
  std::vector<const LintFinding*> guards;
  for (const LintFinding& f : findings)
    if (exact_guard(f)) guards.push_back(&f);
  std::vector<LintFinding> kept;
  for (LintFinding& f : findings) {
    const bool split = f.rule == "cmake-arch-split";
    if (split || f.rule == "cmake-arch-list") {
      const std::string sibling = split ? f.reason : "";
      const LintFinding* guard = nullptr;
      for (const LintFinding* g : guards)
        if (list_builds(f.file, f.text, g->file, sources) &&
            (guard == nullptr || (!sibling.empty() && g->reason.find(" " + sibling + " GPU") != std::string::npos))) {
          guard = g;
          if (sibling.empty() || g->reason.find(" " + sibling + " GPU") != std::string::npos) break;
        }
      const std::string where =
          guard ? guard->file + ":" + std::to_string(guard->line) + " (" + guard->text + ")" : std::string();
      if (split) {
        if (guard == nullptr) continue;
        f.rule = "cmake-arch-list";
        f.severity = Severity::Error;
        f.consequence = guard->consequence;
        f.reason = reason_elsewhere(guard->reason,
                                    " with the " + sibling + " cubin this list builds, the other branch of the exact "
                                    "guard at " + where + " in a source the list's target builds",
                                    guard->file);
      } else if (guard != nullptr) {
        f.rewrite += "; do not add the sibling minor while the exact guard at " + where + " remains";
      }
    }
    kept.push_back(std::move(f));
  }
  findings = std::move(kept);
}

// Directories and files that are tests, examples or benchmarks.
bool is_test_dir(const std::string& name) {
  static const std::set<std::string> dirs = {"test",     "tests",     "testing",    "unittest", "unittests",
                                             "example",  "examples",  "benchmark",  "benchmarks", "bench",
                                             "benches",  "perf_test", "sample",     "samples"};
  return dirs.count(lower(name)) != 0;
}

bool is_test_file(const std::string& name) {
  const std::string n = lower(name);
  const std::size_t dot = n.rfind('.');
  const std::string stem = n.substr(0, dot);
  auto ends = [&](const std::string& s) { return stem.size() > s.size() && stem.compare(stem.size() - s.size(), s.size(), s) == 0; };
  return stem.rfind("test_", 0) == 0 || stem.rfind("bench_", 0) == 0 || ends("_test") || ends("_tests") ||
         ends("_bench") || ends("_benchmark") || stem == "conftest";
}

// The source files under `dir`, sorted; tests and the like counted in `skipped`.
std::vector<fs::path> files_under(const std::string& dir, const LintOptions& o, LintReport& report) {
  std::vector<fs::path> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) {
    report.errors.push_back({dir, ec.message()});
    return files;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      report.errors.push_back({dir, ec.message()});
      break;
    }
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if ((!name.empty() && name[0] == '.') || (!o.include_tests && is_test_dir(name))) {
        if (name[0] != '.') ++report.skipped;
        it.disable_recursion_pending();
      }
      continue;
    }
    if (!it->is_regular_file(ec) || source_kind(it->path().string()) == SourceKind::Unknown) continue;
    if (!o.include_tests && is_test_file(name)) {
      ++report.skipped;
      continue;
    }
    files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

SourceKind source_kind(const std::string& path) {
  const fs::path p(path);
  const std::string name = p.filename().string();
  if (name == "CMakeLists.txt") return SourceKind::CMake;
  const std::string ext = p.extension().string();
  if (ext == ".cmake") return SourceKind::CMake;
  if (ext == ".py") return SourceKind::Python;
  static const std::set<std::string> cpp = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".cxx", ".hh", ".inl"};
  return cpp.count(ext) ? SourceKind::Cpp : SourceKind::Unknown;
}

std::vector<LintFinding> lint_source(std::string_view text, SourceKind kind, const std::string& file) {
  const FileLint r = lint_one(text, kind, file);
  std::vector<LintFinding> out = r.findings;
  settle_cmake(out, {{file, r.sources}});
  sort_findings(out);
  return out;
}

LintReport lint_paths(const std::vector<std::string>& paths, const LintOptions& options) {
  LintReport report;
  std::vector<fs::path> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      report.errors.push_back({path, "no such file or directory"});
    } else if (fs::is_regular_file(st)) {
      if (source_kind(path) == SourceKind::Unknown)
        report.errors.push_back({path, "not a source kind fp8kit lint reads (.cu .cuh .h .hpp .cpp .cc .py, CMake)"});
      else
        files.push_back(path);
    } else if (fs::is_directory(st)) {
      for (auto& f : files_under(path, options, report)) files.push_back(std::move(f));
    } else {
      report.errors.push_back({path, "not a file or directory"});
    }
  }
  std::vector<FileLint> linted;
  std::vector<std::string> names;
  std::vector<GuardTemplate> guards;
  for (const fs::path& p : files) {
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec) {
      report.errors.push_back({p.string(), ec.message()});
      continue;
    }
    if (size > kMaxFileBytes) continue;
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      report.errors.push_back({p.string(), "cannot open"});
      continue;
    }
    const std::string text = read_text(in);
    ++report.files;
    FileLint r;
    try {
      r = lint_one(text, source_kind(p.string()), p.string());
    } catch (const std::exception& e) {  // std::regex may refuse a pathological line
      report.errors.push_back({p.string(), std::string("could not be linted: ") + e.what()});
      continue;
    }
    for (const auto& g : r.guards) guards.push_back(g);
    names.push_back(p.string());
    linted.push_back(std::move(r));
  }
  ArchDefines defines;  // every file's, the first definition of a name kept
  for (const FileLint& r : linted) defines.insert(r.defines.begin(), r.defines.end());
  for (std::size_t i = 0; i < linted.size(); ++i) {
    std::vector<GuardTemplate> others;  // a file's own guards were followed when it was read
    for (const auto& g : guards)
      if (g.file != names[i]) others.push_back(g);
    ArchDefines elsewhere;  // a file's own names were resolved when it was read
    if (linted[i].code.find("__CUDA_ARCH") != std::string::npos)
      for (const auto& d : defines)
        if (!linted[i].defines.count(d.first)) elsewhere.insert(d);
    if ((!others.empty() || !elsewhere.empty()) && !linted[i].code.empty()) {
      FileLint& r = linted[i];
      const Lines lines(r.code);
      Sink s{names[i], lines, r.findings};
      rule_guard_uses(r.code, others, s);
      const auto compares = elsewhere.empty() ? std::vector<MacroCompare>{} : macro_compares(r.code, &elsewhere);
      if (std::any_of(compares.begin(), compares.end(), [](const MacroCompare& c) { return !c.name.empty(); })) {
        ArchDefines all = r.defines;  // the file's own names and the others'
        all.insert(elsewhere.begin(), elsewhere.end());
        const std::string kept = blank_cpp(read_text(names[i]), false);  // read again: rare, and not kept in memory
        if (kept.size() == r.code.size()) {
          const Preprocessor pp(kept, all, r.exprs);
          rule_macro_equality(CppFile{r.code, kept, kept, pp}, s, &elsewhere);
        }
      }
    }
    for (auto& f : linted[i].findings) report.findings.push_back(std::move(f));
  }
  CMakeSources sources;
  for (std::size_t i = 0; i < linted.size(); ++i)
    if (!linted[i].sources.empty()) sources[names[i]] = std::move(linted[i].sources);
  settle_cmake(report.findings, sources);
  sort_findings(report.findings);
  return report;
}

}  // namespace fp8kit::audit
