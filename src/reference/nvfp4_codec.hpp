// Bit-exact host codecs and the float64 reference of the NVFP4 format
// (fp8kit/nvfp4.h): E2M1 values two per byte, E4M3 block scales per 16 K in
// the swizzled or linear layout, and the GEMM and quantiser semantics the
// kernels implement.
//
// E2M1: 1 sign, 2 exponent (bias 1), 1 mantissa bit; no infinity or NaN;
// magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6. Encoding rounds to nearest, ties to
// the even code, and saturates at 6 (what cvt.rn.satfinite.e2m1x2 does).
#pragma once

#include <cstdint>
#include <vector>

#include "fp8kit/fp8kit.h"

namespace fp8kit::ref {

double decode_e2m1(uint8_t nibble);
uint8_t encode_e2m1(double x);

// Element `k` of a packed row (low nibble first), and its store.
uint8_t nibble_at(const uint8_t* row, int64_t k);
void set_nibble(uint8_t* row, int64_t k, uint8_t nibble);

// The E4M3 scale byte of (row, block kb) of a [rows, k] operand's scales.
uint8_t scale_byte(const uint8_t* scales, fp8kit_nvfp4_scale_layout layout, int64_t row, int64_t kb, int64_t k);
void set_scale_byte(uint8_t* scales, fp8kit_nvfp4_scale_layout layout, int64_t row, int64_t kb, int64_t k,
                    uint8_t value);

// One operand on the host, as the GEMM reads it: NVFP4 (packed + scales) or
// a 16-bit float matrix (W4A16's A).
struct HostNvfp4Operand {
  fp8kit_dtype type = FP8KIT_DTYPE_NVFP4;
  const uint8_t* data = nullptr;
  int64_t ld = 0;  // bytes (NVFP4) or elements (bf16 / f16)
  const uint8_t* scales = nullptr;
  fp8kit_nvfp4_scale_layout layout = FP8KIT_NVFP4_SCALES_SWIZZLED;
  // Element (r, k), dequantised (exact in double).
  double at(int64_t r, int64_t k, int64_t depth) const;
};

struct HostNvfp4Gemm {
  int64_t m = 0, n = 0, k = 0;
  HostNvfp4Operand a, b;
  double alpha = 1.0;
  const void* bias = nullptr;
  fp8kit_dtype bias_type = FP8KIT_DTYPE_F32;
};

// D[m, n] in double before rounding: alpha * sum_k A B + bias.
double nvfp4_reference_element(const HostNvfp4Gemm& g, int64_t m, int64_t n);
// sum_k |alpha A B| + |bias|: the accumulation error bound scales with it.
double nvfp4_reference_magnitude(const HostNvfp4Gemm& g, int64_t m, int64_t n);

// fp8kit_nvfp4_quantize on the host, from the inputs as doubles (x [m, k]
// row-major, rms_weight [k] or empty): q [m, k/2] packed (pitch k/2) and the
// scales in `layout` (padding zero). The kernel computes in f32; this
// computes the same operations in f32 (docs/nvfp4.md, "Quantisation").
void nvfp4_quantize_reference(const std::vector<float>& x, int64_t m, int64_t k, float global_scale,
                              const std::vector<float>& rms_weight, float eps, fp8kit_nvfp4_scale_layout layout,
                              std::vector<uint8_t>* q, std::vector<uint8_t>* scales);

}  // namespace fp8kit::ref
