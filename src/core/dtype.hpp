// The dtypes of fp8kit.h: which role each may play, its element size and the
// FP8 formats' largest finite values (OCP FP8 v1.0).
#pragma once

#include "fp8kit/fp8kit.h"

namespace fp8kit {

// Operands A, B and quantize's output.
constexpr bool is_fp8(int t) { return t == FP8KIT_DTYPE_E4M3 || t == FP8KIT_DTYPE_E5M2; }
// D, bias and quantize's input: the 16- and 32-bit floats.
constexpr bool is_wide(int t) { return t == FP8KIT_DTYPE_BF16 || t == FP8KIT_DTYPE_F16 || t == FP8KIT_DTYPE_F32; }

// Bytes of one element; 0 for a value that names no dtype.
constexpr int dtype_bytes(fp8kit_dtype t) {
  switch (t) {
    case FP8KIT_DTYPE_E4M3:
    case FP8KIT_DTYPE_E5M2: return 1;
    case FP8KIT_DTYPE_BF16:
    case FP8KIT_DTYPE_F16: return 2;
    case FP8KIT_DTYPE_F32: return 4;
    default: return 0;
  }
}

constexpr float kE4m3Max = 448.f;
constexpr float kE5m2Max = 57344.f;

}  // namespace fp8kit
