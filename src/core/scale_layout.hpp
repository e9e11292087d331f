// The scale layouts of fp8kit.h, as numbers: the block granularity and how
// many scales each mode reads. The entry points, the kernels, the reference
// and the bench share them.
#pragma once

#include <cstdint>

#include "core/math.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit {

constexpr int kScaleBlock = 128;  // block-scale granularity along K (and N for B)

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

}  // namespace fp8kit
