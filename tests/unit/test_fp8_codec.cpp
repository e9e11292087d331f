// Bit-exact FP8 / 16-bit codecs against the OCP FP8 spec's defining values.
#include <gtest/gtest.h>

#include <cmath>

#include "reference/fp8_codec.hpp"

using namespace fp8kit::ref;

namespace {
bool is_e4m3_nan(int b) { return (b & 0x7f) == 0x7f; }
bool is_e5m2_special(int b) { return (b & 0x7c) == 0x7c; }
}  // namespace

TEST(Fp8Codec, E4m3RoundTripsEveryFiniteByte) {
  for (int b = 0; b < 256; ++b) {
    const double v = decode_e4m3(static_cast<uint8_t>(b));
    if (is_e4m3_nan(b)) {
      EXPECT_TRUE(std::isnan(v)) << b;
      continue;
    }
    EXPECT_EQ(encode_e4m3(v, false), b) << "byte " << b << " value " << v;
    EXPECT_EQ(encode_e4m3(v, true), b) << "byte " << b;
  }
}

TEST(Fp8Codec, E5m2RoundTripsEveryNonNanByte) {
  for (int b = 0; b < 256; ++b) {
    const double v = decode_e5m2(static_cast<uint8_t>(b));
    if (is_e5m2_special(b) && (b & 3)) {
      EXPECT_TRUE(std::isnan(v)) << b;
      continue;
    }
    if (is_e5m2_special(b)) {
      EXPECT_TRUE(std::isinf(v)) << b;
      EXPECT_EQ(encode_e5m2(v, false), b);
      continue;
    }
    EXPECT_EQ(encode_e5m2(v, false), b) << "byte " << b << " value " << v;
  }
}

TEST(Fp8Codec, DefiningValues) {
  EXPECT_EQ(decode_e4m3(0x7e), 448.0);  // max normal S.1111.110
  EXPECT_EQ(decode_e4m3(0x08), std::ldexp(1.0, -6));  // min normal
  EXPECT_EQ(decode_e4m3(0x01), std::ldexp(1.0, -9));  // min subnormal
  EXPECT_EQ(decode_e5m2(0x7b), 57344.0);
  EXPECT_EQ(decode_e5m2(0x04), std::ldexp(1.0, -14));
  EXPECT_EQ(decode_e5m2(0x01), std::ldexp(1.0, -16));
  EXPECT_TRUE(std::signbit(decode_e4m3(0x80)));
  EXPECT_EQ(decode_e4m3(0x80), 0.0);
}

TEST(Fp8Codec, RoundsToNearestEven) {
  EXPECT_EQ(encode_e4m3(1.0625, false), encode_e4m3(1.0, false));    // tie -> even mantissa 000
  EXPECT_EQ(encode_e4m3(1.1875, false), encode_e4m3(1.25, false));   // tie -> even mantissa 010
  EXPECT_EQ(encode_e4m3(1.07, false), encode_e4m3(1.125, false));
  EXPECT_EQ(encode_e4m3(std::ldexp(1.0, -10), false), 0x00);        // half the min subnormal: tie -> 0
  EXPECT_EQ(encode_e4m3(std::ldexp(3.0, -10), false), 0x02);        // 1.5 quanta: tie -> 2
  EXPECT_EQ(encode_e4m3(-std::ldexp(1.0, -11), false), 0x80);       // underflow keeps the sign
  EXPECT_EQ(encode_e5m2(1.125, false), encode_e5m2(1.0, false));
  EXPECT_EQ(encode_e5m2(1.375, false), encode_e5m2(1.5, false));
}

TEST(Fp8Codec, OverflowSaturatesOrGivesNanInf) {
  EXPECT_EQ(encode_e4m3(464.0, false), 0x7e);  // midpoint 448|480 ties to even: 448
  EXPECT_EQ(encode_e4m3(465.0, false), 0x7f);  // beyond: NaN (e4m3 has no inf)
  EXPECT_EQ(encode_e4m3(465.0, true), 0x7e);
  EXPECT_EQ(encode_e4m3(-1e9, true), 0xfe);
  EXPECT_EQ(encode_e4m3(INFINITY, false), 0x7f);
  EXPECT_EQ(encode_e4m3(-INFINITY, true), 0xfe);
  EXPECT_EQ(encode_e5m2(61440.0, false), 0x7c);  // midpoint 57344|65536 ties to even: inf
  EXPECT_EQ(encode_e5m2(60000.0, false), 0x7b);
  EXPECT_EQ(encode_e5m2(1e6, true), 0x7b);
  EXPECT_EQ(encode_e5m2(-1e6, false), 0xfc);
  EXPECT_TRUE(std::isnan(decode_e4m3(encode_e4m3(NAN, true))));
  EXPECT_TRUE(std::isnan(decode_e5m2(encode_e5m2(NAN, true))));
}

TEST(Fp8Codec, SixteenBitFormats) {
  EXPECT_EQ(encode_bf16(1.0f), 0x3f80);
  EXPECT_EQ(decode_bf16(0xc040), -3.0f);
  EXPECT_EQ(encode_bf16(1.00390625f), 0x3f80);  // tie to even
  EXPECT_EQ(encode_bf16(1.01171875f), 0x3f82);  // tie to even (up)
  EXPECT_EQ(encode_f16(1.0f), 0x3c00);
  EXPECT_EQ(encode_f16(65504.0f), 0x7bff);
  EXPECT_EQ(encode_f16(65520.0f), 0x7c00);  // rounds to inf
  EXPECT_EQ(decode_f16(0x0001), std::ldexp(1.0f, -24));
  for (int b = 0; b < 0x7c00; b += 7) EXPECT_EQ(encode_f16(decode_f16(static_cast<uint16_t>(b))), b);
}
