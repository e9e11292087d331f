// fp8kit_bench: fp8kit against cuBLASLt on the LLM GEMM suite.
//
// For each shape of bench/shapes.json and each scale mode, both libraries run
// on the same random FP8 inputs in this process; each output is sample-checked
// against a float64 host reference before it is timed. docs/bench.md says how
// to run and read it. This file parses and maps failures to exit codes.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "bench.hpp"
#include "common.hpp"
#include "options.hpp"

int main(int argc, char** argv) {
  using namespace fp8bench;
  Options opt;
  CLI::App app{"fp8kit_bench: fp8kit against cuBLASLt on the LLM GEMM suite (docs/bench.md)"};
  add_options(app, &opt);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  try {
    return run_bench(configure(opt));
  } catch (const BadArgs& e) {
    std::fprintf(stderr, "fp8kit_bench: %s\n", e.what());
    return kExitBadInput;
  } catch (const CudaFailure& e) {
    std::fprintf(stderr, "fp8kit_bench: %s\n", e.what());
    return kExitCuda;
  }
}

