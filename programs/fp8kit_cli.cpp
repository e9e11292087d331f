// fp8kit: entry point. Parsing only; each command lives in its own file.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "cli.hpp"
#include "fp8kit/fp8kit.h"

int main(int argc, char** argv) {
  using namespace fp8kit::cli;
  CLI::App app{"fp8kit: FP8 GEMM for every NVIDIA GPU family, and an auditor for CUDA binaries"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::to_string(FP8KIT_VERSION_MAJOR) + "." +
                                        std::to_string(FP8KIT_VERSION_MINOR) + "." +
                                        std::to_string(FP8KIT_VERSION_PATCH));
  Action action;
  register_info(app, action);
  register_gemm(app, action);
  register_doctor(app, action);
  register_audit(app, action);
  register_lint(app, action);
  register_explain(app, action);
  register_run(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  try {
    return action ? action() : kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fp8kit: %s\n", e.what());
    return kExitBadInput;
  }
}
