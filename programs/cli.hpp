// fp8kit command-line tool: each command registers itself on the CLI11 app
// (parsing), does its work through the library (no printing there), and hands
// a result to its reporter (text or --json). Layout after lz4's programs/.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "tools/exit_codes.hpp"

namespace CLI {
class App;
}

namespace fp8kit::cli {

// Exit codes, the same for every command (tools/exit_codes.hpp).
using tools::kExitBadInput;
using tools::kExitCuda;
using tools::kExitFindings;
using tools::kExitOk;
using tools::kExitUnsupported;

// A parsed command's work; set by the command's parse callback.
using Action = std::function<int()>;

void register_info(CLI::App& app, Action& action);
void register_gemm(CLI::App& app, Action& action);
void register_doctor(CLI::App& app, Action& action);
void register_audit(CLI::App& app, Action& action);
void register_lint(CLI::App& app, Action& action);
void register_explain(CLI::App& app, Action& action);
void register_run(CLI::App& app, Action& action);

// fp8kit explain on one dump, reported on `out`; returns the exit code
// (0 no fault, 1 a fault explained, 2 unreadable dump). Used by fp8kit run.
int explain_core(const std::string& core, const std::vector<std::string>& binaries, bool json, std::FILE* out);

}  // namespace fp8kit::cli
