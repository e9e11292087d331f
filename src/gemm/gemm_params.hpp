// The validated GEMM problem as kernels receive it (by value, in the kernel
// parameter space). Everything here has passed core/api.cpp's checks.
#pragma once

#include <cstdint>

#include "fp8kit/fp8kit.h"

namespace fp8kit {

constexpr int kScaleBlock = 128;  // block-scale granularity along K (and N for B)

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Scales each mode needs (fp8kit.h gives the layouts). Callers pass checked
// modes; anything else needs none.
constexpr int64_t a_scale_count(fp8kit_scale_mode mode, int64_t m, int64_t k) {
  return mode == FP8KIT_SCALE_TENSOR ? 1
         : mode == FP8KIT_SCALE_ROW  ? m
         : mode == FP8KIT_SCALE_BLOCK ? ceil_div(k, kScaleBlock) * m
                                      : 0;
}
constexpr int64_t b_scale_count(fp8kit_scale_mode mode, int64_t n, int64_t k) {
  return mode == FP8KIT_SCALE_TENSOR ? 1
         : mode == FP8KIT_SCALE_COL  ? n
         : mode == FP8KIT_SCALE_BLOCK ? ceil_div(n, kScaleBlock) * ceil_div(k, kScaleBlock)
                                      : 0;
}

struct GemmParams {
  int m, n, k;
  int k_blocks;  // ceil(K / kScaleBlock): the block-scale grid's K extent
  const uint8_t* a;
  int64_t lda;  // bytes
  const uint8_t* b;
  int64_t ldb;  // bytes
  void* d;
  int64_t ldd;  // elements of d_type
  fp8kit_dtype a_type, b_type, d_type;
  fp8kit_scale_mode a_scale_mode, b_scale_mode;
  const float* a_scale;  // see fp8kit.h for each mode's layout
  const float* b_scale;
  const void* bias;  // nullptr: none
  fp8kit_dtype bias_type;
};

// What the host knows about the device it launches on (read once per device).
struct DeviceInfo {
  int device = 0;
  int cap = 0;  // 10 * major + minor
  int sm_count = 0;
  int smem_per_block_optin = 0;  // bytes: 101,376 on every SM12x part
  int smem_per_sm = 0;
  int l2_bytes = 0;
  char name[256] = {};
};

// Per-call launch settings derived from fp8kit_gemm_options.
struct LaunchEnv {
  bool checked = false;
  void* workspace = nullptr;
  size_t workspace_size = 0;
};

}  // namespace fp8kit
