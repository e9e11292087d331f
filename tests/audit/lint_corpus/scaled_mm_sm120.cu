// Uses of the guard template defined in vllm_guard_template.cuh.
#include "vllm_guard_template.cuh"

struct GemmKernel {
  __device__ void operator()(float* out) { out[threadIdx.x] = 1.0f; }
};

using Sm120Gemm = enable_sm120_only<GemmKernel>;
