// E2M1 to 16-bit floats by bit placement, for the decode tile's weight stream.
//
// An E2M1 nibble (s e1 e0 m) put where a 16-bit float keeps its sign, its two
// lowest exponent bits and its top mantissa bit reads as the E2M1 value times
// 2^-14 (f16: magnitude at bits 9..11) or 2^-126 (bf16: bits 6..8), E2M1's
// own subnormal (0.5) landing on the float's subnormal: exact, no table.
// Those floats times the block's scale taken as scale x 2^7 (f16) or
// scale x 2^119 (bf16) are value x scale x 2^-kPlacedExponent in both types,
// exact (at most 6 significant bits, inside [2^-17, 21]); the tile's epilogue
// multiplies 2^kPlacedExponent back per decoded operand.
//
// The float wants its sign 6 (f16) or 9 (bf16) bits above the magnitude's
// lowest bit, the nibble has it 3 above: one bit-select of q and q shifted
// left by the difference lifts every sign of a word at once (the bits in
// between are never read), then each pair of elements is one shift and one
// mask. A pair takes one nibble per 16-bit half at the same offset, so it
// holds elements (r, r + 4) of the word: the tile feeds the tokens' K in the
// same order (token_pairs_split).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "arch/config.hpp"

namespace fp8kit::nvfp4 {

constexpr int kPlacedExponent = 7;  // decoded operand = value x 2^-7

template <bool kBf16>
struct E2m1Placement {
  static constexpr int kMagnitudeBit = kBf16 ? 6 : 9;  // float bit of the nibble's bit 0
  static constexpr int kSignLift = 15 - kMagnitudeBit - 3;  // nibble sign (bit 3) to float sign (bit 15)
  // Sign and magnitude bits of both halves.
  static constexpr uint32_t kPairMask = kBf16 ? 0x81C081C0u : 0x8E008E00u;
  // Bits the bit-select keeps from q (the magnitudes it serves); the others
  // come from q << kSignLift, which puts each served sign at its place.
  // f16: nibbles 0, 2 of each half (sign lifted into the odd nibble's
  // bits); bf16: nibbles 0, 1 of each half (signs lifted past them).
  static constexpr uint32_t kServed = kBf16 ? 0x00770077u : 0x0F0F0F0Fu;
  static constexpr int kSecondWord = kBf16 ? 8 : 4;   // q >> this serves the other nibbles
  static constexpr int kSlotStride = kBf16 ? 4 : 8;   // bits between a word's two served nibbles
  // A scale's magnitude bits placed at bit kScaleBit read as scale x 2^-120
  // (bf16) or x 2^-8 (f16); times kScaleLiftHi x kScaleLiftLo it is the
  // factor that makes placed x scale = value x scale x 2^-7.
  static constexpr int kScaleBit = kBf16 ? 4 : 7;
  static constexpr float kScaleLiftHi = kBf16 ? 0x1p120f : 0x1p15f;
  static constexpr float kScaleLiftLo = kBf16 ? 0x1p119f : 1.f;
};

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

// (a & mask) | (b & ~mask) as one LOP3 (left to the compiler it splits the
// mask into two).
template <uint32_t kMask>
__device__ __forceinline__ uint32_t bit_select(uint32_t a, uint32_t b) {
  constexpr uint32_t kLut = (0xF0 & 0xAA) | (0xCC & ~0xAA & 0xFF);  // a = 0xF0, b = 0xCC, mask = 0xAA
  uint32_t d;
  asm("lop3.b32 %0, %1, %2, %3, %4;\n" : "=r"(d) : "r"(a), "r"(b), "n"(kMask), "n"(kLut));
  return d;
}

// x << kBits as its own instruction (the compiler would fold a shift after
// q >> n into a right shift and a mask: one more ALU op than IMAD.SHL).
template <int kBits>
__device__ __forceinline__ uint32_t shift_left(uint32_t x) {
  uint32_t d;
  asm("shl.b32 %0, %1, %2;\n" : "=r"(d) : "r"(x), "n"(kBits));
  return d;
}

// 8 E2M1 elements (q, element i in nibble i) placed, unscaled:
// out[r] = (element r, element r + 4).
template <bool kBf16>
__device__ __forceinline__ void place_e2m1x8(uint32_t q, uint32_t (&out)[4]) {
  using P = E2m1Placement<kBf16>;
  const uint32_t q2 = q >> P::kSecondWord;
  const uint32_t words[2] = {bit_select<P::kServed>(q, shift_left<P::kSignLift>(q)),
                             bit_select<P::kServed>(q2, shift_left<P::kSignLift>(q2))};
#pragma unroll
  for (int w = 0; w < 2; ++w)
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      // Nibble (w kSecondWord + s kSlotStride) / 4 of q, its twin 16 bits up.
      const int r = (w * P::kSecondWord + s * P::kSlotStride) / 4;
      out[r] = (words[w] << (P::kMagnitudeBit - s * P::kSlotStride)) & P::kPairMask;
    }
}

// Scale bytes 0 and 2 of `spread` (E4M3, sign ignored; bytes 1 and 3 not
// read) as a 16-bit pair, byte 0 low, each lifted so that a placed element
// times it is value x scale x 2^-7 (E2m1Placement). The magnitude's 7 bits
// put at the float's exponent and mantissa read as a power of two times the
// scale, E4M3's subnormals landing on the float's: exact. Then the lift: one
// multiply for f16; two for bf16, whose 2^239 no bf16 holds.
template <bool kBf16>
__device__ __forceinline__ uint32_t placed_scale_spread(uint32_t spread) {
  using P = E2m1Placement<kBf16>;
  constexpr uint32_t kMagnitudes = 0x7fu << P::kScaleBit | 0x7fu << (P::kScaleBit + 16);
  const uint32_t pair = (spread << P::kScaleBit) & kMagnitudes;
  if constexpr (kBf16) {
#if FP8KIT_HAS_BF16_MMA
    const __nv_bfloat162 v = __hmul2(__hmul2(*reinterpret_cast<const __nv_bfloat162*>(&pair),
                                             __bfloat162bfloat162(__float2bfloat16(P::kScaleLiftHi))),
                                     __bfloat162bfloat162(__float2bfloat16(P::kScaleLiftLo)));
    return *reinterpret_cast<const uint32_t*>(&v);
#else
    return 0;
#endif
  } else {
    const __half2 v = __hmul2(*reinterpret_cast<const __half2*>(&pair), __half2half2(__float2half(P::kScaleLiftHi)));
    return *reinterpret_cast<const uint32_t*>(&v);
  }
}

// Scale bytes 0 and 1 of `word` as placed_scale_spread's pair.
template <bool kBf16>
__device__ __forceinline__ uint32_t placed_scale_pair(uint32_t word) {
  constexpr uint32_t kSpread = 0x1100;  // __byte_perm: bytes 0, 0, 1, 1
  return placed_scale_spread<kBf16>(__byte_perm(word, 0, kSpread));
}

// A placed pair times the low (0) or high (1) half of a placed scale pair.
template <bool kBf16>
__device__ __forceinline__ uint32_t scale_placed(uint32_t placed, uint32_t scale_pair, int half) {
  if constexpr (kBf16) {
#if FP8KIT_HAS_BF16_MMA
    const __nv_bfloat162 s2 = *reinterpret_cast<const __nv_bfloat162*>(&scale_pair);
    const __nv_bfloat162 s = half ? __high2bfloat162(s2) : __low2bfloat162(s2);
    const __nv_bfloat162 v = __hmul2(*reinterpret_cast<const __nv_bfloat162*>(&placed), s);
    return *reinterpret_cast<const uint32_t*>(&v);
#else
    return 0;
#endif
  } else {
    const __half2 s2 = *reinterpret_cast<const __half2*>(&scale_pair);
    const __half2 s = half ? __high2half2(s2) : __low2half2(s2);
    const __half2 v = __hmul2(*reinterpret_cast<const __half2*>(&placed), s);
    return *reinterpret_cast<const uint32_t*>(&v);
  }
}

// place_e2m1x8 times the low (block 0) or high half of a placed scale pair.
template <bool kBf16>
__device__ __forceinline__ void decode_e2m1x8_split(uint32_t q, uint32_t scale_pair, int half, uint32_t (&out)[4]) {
  place_e2m1x8<kBf16>(q, out);
#pragma unroll
  for (int r = 0; r < 4; ++r) out[r] = scale_placed<kBf16>(out[r], scale_pair, half);
}

// 8 E2M1 elements (q, element i in nibble i) placed, unscaled, by bytes:
// out[b] = (element 2b, element 2b + 1), the natural K order of a 16-bit
// MMA operand register. The even and odd nibbles are split into two words of
// bytes whose top bits are 0; one PRMT per pair takes byte b of each, the
// bytes between them 0 (the generic PRMT's sign replication of a byte whose
// top bit is 0). f16: the signs are lifted per word first (3 bits above the
// magnitude: inside the byte), then a pair is one shift and one mask; bf16
// wants the sign 9 bits up: a pair is one multiply and one mask.
template <bool kBf16>
__device__ __forceinline__ void place_e2m1_byte_pairs(uint32_t q, uint32_t (&out)[4]) {
  using P = E2m1Placement<kBf16>;
  constexpr uint32_t kLowNibbles = 0x0F0F0F0Fu;
  constexpr uint32_t kZeroByte = 0x8;  // selector nibble: replicate the top bit of the byte chosen by the low 3
  constexpr int kOddBytes = 4;         // PRMT: bytes 4-7 are the second word's
  uint32_t even = q & kLowNibbles, odd = (q >> 4) & kLowNibbles;
  if constexpr (!kBf16) {
    constexpr uint32_t kMagnitudes = 0x07070707u;
    even = bit_select<kMagnitudes>(even, shift_left<P::kSignLift>(even));
    odd = bit_select<kMagnitudes>(odd, shift_left<P::kSignLift>(odd));
  }
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const uint32_t sel = static_cast<uint32_t>(b | (kZeroByte | b) << 4 | (kOddBytes + b) << 8 |
                                               (kZeroByte | (kOddBytes + b)) << 12);
    uint32_t raw;
    asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(raw) : "r"(even), "r"(odd), "r"(sel));
    if constexpr (kBf16) {
      // Each half holds one nibble v (bits 0..3): v x (2^6 + 2^12) has the
      // magnitude at bits 6..8 and the sign at bit 15, the two products'
      // bits (6..9, 12..15) disjoint, so no carry: one multiply places both.
      constexpr uint32_t kLift = (1u << P::kMagnitudeBit) | (1u << (P::kMagnitudeBit + P::kSignLift));
      out[b] = (raw * kLift) & P::kPairMask;
    } else {
      out[b] = (raw << P::kMagnitudeBit) & P::kPairMask;
    }
  }
}

// 16-bit tokens in the same K order: raw = elements 0..7 as four pairs,
// out[r] = (element r, element r + 4).
__device__ __forceinline__ void token_pairs_split(const uint4& raw, uint32_t (&out)[4]) {
  constexpr uint32_t kLowHalves = 0x5410, kHighHalves = 0x7632;  // __byte_perm selectors
  out[0] = __byte_perm(raw.x, raw.z, kLowHalves);
  out[1] = __byte_perm(raw.x, raw.z, kHighHalves);
  out[2] = __byte_perm(raw.y, raw.w, kLowHalves);
  out[3] = __byte_perm(raw.y, raw.w, kHighHalves);
}

#endif  // FP8KIT_ARCH_IN(any)

}  // namespace fp8kit::nvfp4
