// Float64 host reference of fp8kit_gemm, from the exact FP8 values.
//
// The naive loop beside the kernels (llm.c style): it reads host copies of
// the same buffers the GPU call takes (same layouts, same descriptor) and
// computes each output element as
//   D[m,n] = sum over 128-deep K blocks kb of sa(m,kb) * sb(n,kb) * sum_k A[m,k] B[n,k]
//            + bias[n]
// in double, where sa/sb are the scales of the descriptor's modes (block
// scales vary with kb, the others do not).
#pragma once

#include <cstdint>
#include <vector>

#include "fp8kit/fp8kit.h"

namespace fp8kit::ref {

// Host-side views of the operands, same layout as on the device.
struct HostGemm {
  int64_t m = 0, n = 0, k = 0;
  const uint8_t* a = nullptr; int64_t lda = 0; fp8kit_dtype a_type = FP8KIT_DTYPE_E4M3;
  const uint8_t* b = nullptr; int64_t ldb = 0; fp8kit_dtype b_type = FP8KIT_DTYPE_E4M3;
  fp8kit_scale_mode a_scale_mode = FP8KIT_SCALE_NONE; const float* a_scale = nullptr;
  fp8kit_scale_mode b_scale_mode = FP8KIT_SCALE_NONE; const float* b_scale = nullptr;
  const void* bias = nullptr; fp8kit_dtype bias_type = FP8KIT_DTYPE_F32;
};

// One output element in double (before rounding to D's dtype).
double reference_element(const HostGemm& g, int64_t m, int64_t n);

// The same element's "magnitude": sum over k of |scaled A[m,k] B[n,k]| plus
// |bias[n]|. The f32-accumulation error bound scales with it.
double reference_magnitude(const HostGemm& g, int64_t m, int64_t n);

// The whole D [m, n] in double, row-major, ld = n.
std::vector<double> reference_gemm(const HostGemm& g);

// Number of scales each mode needs (for allocation and validation).
int64_t a_scale_count(fp8kit_scale_mode mode, int64_t m, int64_t k);
int64_t b_scale_count(fp8kit_scale_mode mode, int64_t n, int64_t k);

}  // namespace fp8kit::ref
