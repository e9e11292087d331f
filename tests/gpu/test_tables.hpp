// The tables the GPU test files iterate: scale-mode pairs (A's, B's) with
// their names in test labels, FP8 input pairings and output types.
#pragma once

#include <utility>

#include "fp8kit/fp8kit.h"

namespace fp8kit::test {

struct Modes {
  fp8kit_scale_mode a, b;
  const char* name;
};
inline constexpr Modes kModes[] = {
    {FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE, "none"},     {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, "tensor"},
    {FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL, "tokchan"},    {FP8KIT_SCALE_ROW, FP8KIT_SCALE_TENSOR, "tokten"},
    {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_COL, "tenchan"}, {FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK, "block"},
};
inline constexpr std::pair<fp8kit_dtype, fp8kit_dtype> kPairs[] = {{FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E4M3},
                                                                   {FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E5M2},
                                                                   {FP8KIT_DTYPE_E5M2, FP8KIT_DTYPE_E4M3},
                                                                   {FP8KIT_DTYPE_E5M2, FP8KIT_DTYPE_E5M2}};
inline constexpr fp8kit_dtype kOuts[] = {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16, FP8KIT_DTYPE_F32};

}  // namespace fp8kit::test
