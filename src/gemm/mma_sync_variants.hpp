// The kernel variants every portable mma.sync family instantiates, dense and
// grouped: the 8 combinations of (A dtype, B dtype, block scales), index =
// variant_index(a, b, block). Both directions (index -> template parameters,
// problem -> index) are here, and variants_round_trip checks that they agree;
// so do the kernel names the tables carry.
#pragma once

#include <string>

#include "fp8kit/fp8kit.h"

namespace fp8kit::mma_sync {

constexpr fp8kit_dtype kVariantTypes[2] = {FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E5M2};
constexpr int kVariants = 8;
constexpr int type_slot(fp8kit_dtype t) { return t == FP8KIT_DTYPE_E5M2 ? 1 : 0; }
constexpr int variant_index(fp8kit_dtype a, fp8kit_dtype b, bool block) {
  return (type_slot(a) * 2 + type_slot(b)) * 2 + (block ? 1 : 0);
}
constexpr fp8kit_dtype variant_a(int i) { return kVariantTypes[i / 4]; }
constexpr fp8kit_dtype variant_b(int i) { return kVariantTypes[(i / 2) % 2]; }
constexpr bool variant_block(int i) { return i % 2 == 1; }
constexpr bool variants_round_trip() {
  for (int i = 0; i < kVariants; ++i)
    if (variant_index(variant_a(i), variant_b(i), variant_block(i)) != i) return false;
  return true;
}
static_assert(variants_round_trip(), "variant_index and variant_a/b/block must be inverses");

// "sm89_fp8_gemm<128x64x64s4,e4m3,e5m2,block>": `prefix`, the tile's name
// (none for the grouped kernels, which have one tile), the operand types and
// ",block" for the block-scale variants.
inline std::string variant_name(const char* prefix, const char* tile, int v) {
  const auto type = [](fp8kit_dtype t) { return t == FP8KIT_DTYPE_E5M2 ? "e5m2" : "e4m3"; };
  return std::string(prefix) + "<" + (tile ? std::string(tile) + "," : "") + type(variant_a(v)) + "," +
         type(variant_b(v)) + (variant_block(v) ? ",block" : "") + ">";
}

}  // namespace fp8kit::mma_sync
