// fp8kit command-line tool: each command registers itself on the CLI11 app
// (parsing), does its work through the library (no printing there), and hands
// a result to its reporter (text or --json). Layout after lz4's programs/.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace fp8kit::cli {

// Exit codes, the same for every command.
enum ExitCode : int {
  kExitOk = 0,        // clean: nothing found, every check passed
  kExitFindings = 1,  // the command ran and found a problem (a trap stub, a wrong result, ...)
  kExitBadInput = 2,  // usage error or unreadable input, with the reason on stderr
  kExitCuda = 3,      // the GPU or CUDA failed
  kExitUnsupported = 4,  // this GPU cannot run what was asked (the message says why)
};

// A parsed command's work; set by the command's parse callback.
using Action = std::function<int()>;

void register_info(CLI::App& app, Action& action);
void register_gemm(CLI::App& app, Action& action);
void register_doctor(CLI::App& app, Action& action);
void register_audit(CLI::App& app, Action& action);
void register_lint(CLI::App& app, Action& action);

}  // namespace fp8kit::cli
