// One fp8kit_gemm call from descriptor to launch. fp8kit_gemm_workspace_size
// and fp8kit_gemm_select stop after prepare_gemm; fp8kit_gemm launches.
#pragma once

#include <cuda_runtime_api.h>

#include "fp8kit/fp8kit.h"
#include "gemm/dispatch.hpp"

namespace fp8kit {

// Everything decided before a launch: the validated problem, the options in
// force, the device and the chosen path.
struct PreparedGemm {
  GemmParams params;
  fp8kit_gemm_options options;
  const DeviceInfo* device = nullptr;
  const GemmPath* path = nullptr;
};

// Validation, options, device, device pointers, path: no launch.
fp8kit_status prepare_gemm(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, PreparedGemm* out);

fp8kit_status run_gemm(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, cudaStream_t stream);

}  // namespace fp8kit
