#include "reference/fp8_codec.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace fp8kit::ref {
namespace {

// A small binary float format: 1 sign bit, ebits exponent, mbits mantissa.
struct Format {
  int ebits;
  int mbits;
  int bias;
  bool ieee_specials;  // top exponent reserved for inf/NaN (e5m2, f16)
  double max_finite;
  uint32_t nan_bits;   // canonical positive NaN
  uint32_t inf_bits;   // positive infinity (ieee_specials only)
};

constexpr Format kE4m3{4, 3, 7, false, kE4m3Max, 0x7f, 0};
constexpr Format kE5m2{5, 2, 15, true, kE5m2Max, 0x7f, 0x7c};
constexpr Format kF16{5, 10, 15, true, 65504.0, 0x7e00, 0x7c00};

double decode(const Format& f, uint32_t bits) {
  const uint32_t sign = (bits >> (f.ebits + f.mbits)) & 1u;
  const uint32_t exp = (bits >> f.mbits) & ((1u << f.ebits) - 1);
  const uint32_t man = bits & ((1u << f.mbits) - 1);
  const uint32_t exp_max = (1u << f.ebits) - 1;
  double v;
  if (f.ieee_specials && exp == exp_max) {
    v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (!f.ieee_specials && exp == exp_max && man == (1u << f.mbits) - 1) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(man), 1 - f.bias - f.mbits);
  } else {
    v = std::ldexp(static_cast<double>(man | (1u << f.mbits)), static_cast<int>(exp) - f.bias - f.mbits);
  }
  return sign ? -v : v;
}

// Round half to even, on a value already scaled so that the quantum is 1.
double round_half_even(double q) {
  const double fl = std::floor(q);
  const double diff = q - fl;
  if (diff > 0.5) return fl + 1;
  if (diff < 0.5) return fl;
  return std::fmod(fl, 2.0) == 0.0 ? fl : fl + 1;
}

uint32_t encode(const Format& f, double x, bool saturate) {
  const uint32_t sign_bit = 1u << (f.ebits + f.mbits);
  if (std::isnan(x)) return f.nan_bits;
  const uint32_t sign = std::signbit(x) ? sign_bit : 0u;
  const double a = std::fabs(x);
  if (a == 0.0) return sign;
  const auto overflow = [&]() -> uint32_t {
    if (saturate) return sign | encode(f, f.max_finite, false);
    return sign | (f.ieee_specials ? f.inf_bits : f.nan_bits);
  };
  if (std::isinf(a)) return overflow();
  const int min_normal_exp = 1 - f.bias;
  int e;
  std::frexp(a, &e);  // a = frac * 2^e, frac in [0.5, 1)
  e -= 1;             // a = 1.x * 2^e
  const int quantum_exp = (e < min_normal_exp ? min_normal_exp : e) - f.mbits;
  const double r = std::ldexp(round_half_even(std::ldexp(a, -quantum_exp)), quantum_exp);
  if (r > f.max_finite) return overflow();
  if (r == 0.0) return sign;
  int re;
  std::frexp(r, &re);
  re -= 1;
  if (re < min_normal_exp) {
    const auto man = static_cast<uint32_t>(std::ldexp(r, f.bias - 1 + f.mbits));
    return sign | man;
  }
  const auto man = static_cast<uint32_t>(std::ldexp(r, f.mbits - re)) & ((1u << f.mbits) - 1);
  return sign | (static_cast<uint32_t>(re + f.bias) << f.mbits) | man;
}

}  // namespace

double decode_e4m3(uint8_t bits) { return decode(kE4m3, bits); }
double decode_e5m2(uint8_t bits) { return decode(kE5m2, bits); }
uint8_t encode_e4m3(double x, bool saturate) { return static_cast<uint8_t>(encode(kE4m3, x, saturate)); }
uint8_t encode_e5m2(double x, bool saturate) { return static_cast<uint8_t>(encode(kE5m2, x, saturate)); }

double decode_fp8(fp8kit_dtype type, uint8_t bits) {
  // The reference decodes billions of bytes in a test run: table lookups.
  struct Tables {
    double e4m3[256], e5m2[256];
    Tables() {
      for (int b = 0; b < 256; ++b) {
        e4m3[b] = decode(kE4m3, static_cast<uint32_t>(b));
        e5m2[b] = decode(kE5m2, static_cast<uint32_t>(b));
      }
    }
  };
  static const Tables t;
  return type == FP8KIT_DTYPE_E5M2 ? t.e5m2[bits] : t.e4m3[bits];
}
uint8_t encode_fp8(fp8kit_dtype type, double x, bool saturate) {
  return type == FP8KIT_DTYPE_E5M2 ? encode_e5m2(x, saturate) : encode_e4m3(x, saturate);
}

float decode_bf16(uint16_t bits) {
  const uint32_t word = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}

float decode_f16(uint16_t bits) { return static_cast<float>(decode(kF16, bits)); }

uint16_t encode_bf16(float x) {
  uint32_t word;
  std::memcpy(&word, &x, sizeof word);
  if (std::isnan(x)) return static_cast<uint16_t>((word >> 16) | 0x40);  // keep it quiet NaN
  const uint32_t lsb = (word >> 16) & 1u;
  word += 0x7fffu + lsb;  // round to nearest even on the dropped 16 bits
  return static_cast<uint16_t>(word >> 16);
}

uint16_t encode_f16(float x) { return static_cast<uint16_t>(encode(kF16, x, false)); }

double load_element(fp8kit_dtype type, const void* base, int64_t index) {
  switch (type) {
    case FP8KIT_DTYPE_BF16: return decode_bf16(static_cast<const uint16_t*>(base)[index]);
    case FP8KIT_DTYPE_F16: return decode_f16(static_cast<const uint16_t*>(base)[index]);
    case FP8KIT_DTYPE_F32: return static_cast<const float*>(base)[index];
    case FP8KIT_DTYPE_E4M3:
    case FP8KIT_DTYPE_E5M2: return decode_fp8(type, static_cast<const uint8_t*>(base)[index]);
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

void store_element(fp8kit_dtype type, void* base, int64_t index, double value) {
  switch (type) {
    case FP8KIT_DTYPE_BF16: static_cast<uint16_t*>(base)[index] = encode_bf16(static_cast<float>(value)); break;
    case FP8KIT_DTYPE_F16: static_cast<uint16_t*>(base)[index] = encode_f16(static_cast<float>(value)); break;
    case FP8KIT_DTYPE_F32: static_cast<float*>(base)[index] = static_cast<float>(value); break;
    case FP8KIT_DTYPE_E4M3:
    case FP8KIT_DTYPE_E5M2: static_cast<uint8_t*>(base)[index] = encode_fp8(type, value, true); break;
    default: break;
  }
}

}  // namespace fp8kit::ref
