// fp8kit lint: architecture checks written as equalities in sources.
// Text: `file:line:col: severity: rule: message`, the text, the rewrite and
// the reason of the severity; --json gives the same fields (docs/lint.md).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "audit/lint.hpp"
#include "cli.hpp"

namespace fp8kit::cli {
namespace {

struct LintArgs {
  std::vector<std::string> paths;
  bool json = false;
  bool strict = false;
  bool include_tests = false;
};

struct Tally {
  std::size_t by[3] = {0, 0, 0};  // by Severity
  bool counted = false;           // a finding that makes the exit 1
};

Tally tally(const audit::LintReport& r, bool strict) {
  Tally t;
  for (const auto& f : r.findings) {
    ++t.by[static_cast<int>(f.severity)];
    t.counted |= audit::counts_as_finding(f.severity, strict);
  }
  return t;
}

void print_json(const audit::LintReport& r, const Tally& t, int code) {
  nlohmann::ordered_json j;
  j["tool"] = "fp8kit lint";
  j["files"] = r.files;
  j["skipped"] = r.skipped;
  j["counts"] = {{"error", t.by[2]}, {"warning", t.by[1]}, {"note", t.by[0]}};
  j["findings"] = nlohmann::ordered_json::array();
  for (const auto& f : r.findings)
    j["findings"].push_back({{"file", f.file},
                             {"line", f.line},
                             {"column", f.column},
                             {"severity", audit::severity_name(f.severity)},
                             {"rule", f.rule},
                             {"consequence", audit::consequence_name(f.consequence)},
                             {"text", f.text},
                             {"message", f.message},
                             {"rewrite", f.rewrite},
                             {"reason", f.reason}});
  j["errors"] = nlohmann::ordered_json::array();
  for (const auto& e : r.errors) j["errors"].push_back({{"path", e.path}, {"message", e.message}});
  j["exit_code"] = code;
  std::printf("%s\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
}

void print_text(const audit::LintReport& r, const Tally& t) {
  for (const auto& f : r.findings) {
    std::printf("%s:%d:%d: %s: %s: %s\n", f.file.c_str(), f.line, f.column, audit::severity_name(f.severity),
                f.rule.c_str(), f.message.c_str());
    std::printf("    %s\n", f.text.c_str());
    if (!f.rewrite.empty()) std::printf("    rewrite: %s\n", f.rewrite.c_str());
    if (!f.reason.empty()) std::printf("    why %s: %s\n", audit::severity_name(f.severity), f.reason.c_str());
  }
  std::printf("%zu error%s, %zu warning%s, %zu note%s in %zu file%s", t.by[2], t.by[2] == 1 ? "" : "s", t.by[1],
              t.by[1] == 1 ? "" : "s", t.by[0], t.by[0] == 1 ? "" : "s", r.files, r.files == 1 ? "" : "s");
  if (r.skipped) std::printf(" (%zu tests/examples/benchmarks set aside: --include-tests reads them)", r.skipped);
  std::printf("\n");
}

int run_lint(const LintArgs& a) {
  audit::LintOptions o;
  o.include_tests = a.include_tests;
  const audit::LintReport r = audit::lint_paths(a.paths, o);
  for (const auto& e : r.errors) std::fprintf(stderr, "fp8kit lint: %s: %s\n", e.path.c_str(), e.message.c_str());
  const Tally t = tally(r, a.strict);
  const int code = !r.errors.empty() ? kExitBadInput : t.counted ? kExitFindings : kExitOk;
  if (a.json)
    print_json(r, t, code);
  else
    print_text(r, t);
  return code;
}

}  // namespace

void register_lint(CLI::App& app, Action& action) {
  auto args = std::make_shared<LintArgs>();
  auto* sub = app.add_subcommand("lint", "Flag architecture checks written as equalities in sources");
  sub->add_option("paths", args->paths, "files or directories (.cu .cuh .h .hpp .cpp .cc .py, CMake)")->required();
  sub->add_flag("--json", args->json, "machine-readable findings (docs/lint.md gives the schema)");
  sub->add_flag("--strict", args->strict, "warnings count as findings too (exit 1)");
  sub->add_flag("--include-tests", args->include_tests,
                "also read tests/, examples/, benchmarks/ and test_*.py (set aside by default)");
  sub->callback([args, &action] { action = [args] { return run_lint(*args); }; });
}

}  // namespace fp8kit::cli
