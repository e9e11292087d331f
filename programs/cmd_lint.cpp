// fp8kit lint: architecture checks written as equalities in sources.
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
};

int run_lint(const LintArgs& a) {
  const audit::LintReport r = audit::lint_paths(a.paths);
  for (const auto& e : r.errors) std::fprintf(stderr, "fp8kit lint: %s: %s\n", e.path.c_str(), e.message.c_str());
  const int code = !r.errors.empty() ? kExitBadInput : r.findings.empty() ? kExitOk : kExitFindings;
  if (a.json) {
    nlohmann::ordered_json j;
    j["tool"] = "fp8kit lint";
    j["files"] = r.files;
    j["findings"] = nlohmann::ordered_json::array();
    for (const auto& f : r.findings)
      j["findings"].push_back({{"file", f.file},
                               {"line", f.line},
                               {"column", f.column},
                               {"rule", f.rule},
                               {"text", f.text},
                               {"message", f.message},
                               {"rewrite", f.rewrite}});
    j["errors"] = nlohmann::ordered_json::array();
    for (const auto& e : r.errors) j["errors"].push_back({{"path", e.path}, {"message", e.message}});
    j["exit_code"] = code;
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
    return code;
  }
  for (const auto& f : r.findings) {
    std::printf("%s:%d:%d: %s: %s\n", f.file.c_str(), f.line, f.column, f.rule.c_str(), f.message.c_str());
    std::printf("    %s\n", f.text.c_str());
    if (!f.rewrite.empty()) std::printf("    rewrite: %s\n", f.rewrite.c_str());
  }
  std::printf("%zu finding%s in %zu file%s\n", r.findings.size(), r.findings.size() == 1 ? "" : "s", r.files,
              r.files == 1 ? "" : "s");
  return code;
}

}  // namespace

void register_lint(CLI::App& app, Action& action) {
  auto args = std::make_shared<LintArgs>();
  auto* sub = app.add_subcommand("lint", "Flag architecture checks written as equalities in sources");
  sub->add_option("paths", args->paths, "files or directories (.cu .cuh .h .hpp .cpp .cc .py, CMake)")->required();
  sub->add_flag("--json", args->json, "machine-readable findings (docs/audit.md gives the schema)");
  sub->callback([args, &action] { action = [args] { return run_lint(*args); }; });
}

}  // namespace fp8kit::cli
