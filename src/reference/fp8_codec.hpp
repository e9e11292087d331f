// Bit-exact host codecs for the formats fp8kit reads and writes.
//
// FP8 follows the OCP 8-bit floating point specification (v1.0):
//   e4m3: bias 7, no infinities, NaN = S.1111.111, max finite 448
//   e5m2: bias 15, IEEE-like, inf = S.11111.00, NaN = S.11111.{01,10,11},
//         max finite 57344
// Encoding rounds to nearest, ties to even. On overflow a saturating encode
// gives the largest finite value of the sign; a non-saturating one gives NaN
// (e4m3, which has no infinity) or infinity (e5m2). NaN encodes to NaN, ±0 to ±0.
#pragma once

#include <cstdint>

#include "core/dtype.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit::ref {

double decode_e4m3(uint8_t bits);
double decode_e5m2(uint8_t bits);
uint8_t encode_e4m3(double x, bool saturate);
uint8_t encode_e5m2(double x, bool saturate);

double decode_fp8(fp8kit_dtype type, uint8_t bits);
uint8_t encode_fp8(fp8kit_dtype type, double x, bool saturate);

constexpr double kE4m3Max = fp8kit::kE4m3Max;
constexpr double kE5m2Max = fp8kit::kE5m2Max;

// 16-bit formats (round to nearest even, overflow to infinity).
float decode_bf16(uint16_t bits);
float decode_f16(uint16_t bits);
uint16_t encode_bf16(float x);
uint16_t encode_f16(float x);

// Element of a D or bias buffer of dtype bf16, f16 or f32, as a double.
double load_element(fp8kit_dtype type, const void* base, int64_t index);
void store_element(fp8kit_dtype type, void* base, int64_t index, double value);
using fp8kit::dtype_bytes;  // core/dtype.hpp

}  // namespace fp8kit::ref
