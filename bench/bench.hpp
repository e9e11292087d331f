// fp8kit_bench's run: fp8kit against cuBLASLt over the configured suite.
#pragma once

#include "options.hpp"

namespace fp8bench {

// Prints the table and the summary, writes the JSON file if asked; returns the
// exit code (kExitFindings when a sampled check failed). Throws CudaFailure.
int run_bench(const Config& config);

}  // namespace fp8bench
