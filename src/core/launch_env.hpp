// Per-call launch settings a kernel path receives, derived from
// fp8kit_gemm_options by the entry point.
#pragma once

#include <cstddef>

namespace fp8kit {

struct LaunchEnv {
  bool checked = false;  // synchronise around the launch to attribute faults
  bool programmatic_launch = false;  // fp8kit_gemm_options.programmatic_launch
  void* workspace = nullptr;
  size_t workspace_size = 0;
  bool workspace_zeroed = false;  // fp8kit_gemm_options.workspace_zeroed: no per-call memset
  bool fast_accumulation = false;  // fp8kit_gemm_options.accumulation == FAST: no per-K-block promotion
};

}  // namespace fp8kit
