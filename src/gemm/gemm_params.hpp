// What a GEMM path receives: the validated problem as kernels take it (by
// value, in the kernel parameter space; everything here has passed
// api/validate.cpp's checks), the device (core/device.hpp) and the per-call
// launch settings (core/launch_env.hpp).
#pragma once

#include <cstdint>

#include "core/device.hpp"
#include "core/launch_env.hpp"
#include "core/math.hpp"
#include "core/scale_layout.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit {

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

}  // namespace fp8kit
