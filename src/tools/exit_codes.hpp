// Process exit codes of fp8kit's programs, the fp8kit CLI and fp8kit_bench
// (README, docs/bench.md). Header-only; not part of libfp8kit.
#pragma once

namespace fp8kit::tools {

enum ExitCode : int {
  kExitOk = 0,           // clean: nothing found, every check passed
  kExitFindings = 1,     // the command ran and found a problem (a trap stub, a wrong result, ...)
  kExitBadInput = 2,     // usage error or unreadable input, with the reason on stderr
  kExitCuda = 3,         // the GPU or CUDA failed
  kExitUnsupported = 4,  // this GPU cannot run what was asked (the message says why)
};

}  // namespace fp8kit::tools
