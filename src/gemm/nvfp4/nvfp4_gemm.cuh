// The NVFP4 GEMM: one CTA tile template, three tensor-core policies.
//
//   HmmaF16   E2M1 x E4M3 decoded to f16 in registers, HMMA m16n8k16 (two
//             m16n8k8 on SM75): W4A4 (A decoded too) and W4A16 with f16 A
//   HmmaBf16  the same decode to bf16, bf16 HMMA (SM80+): W4A16 with bf16 A
//   OmmaSf    (nvfp4_omma.cuh) the SM12x block-scaled FP4 mma.sync m16n8k64,
//             SASS OMMA.SF: W4A4, the scales applied by the tensor core
// The decode is exact: an E2M1 value times an E4M3 scale has at most 6
// significant bits and lies in [2^-10, 2688], inside f16's and bf16's normal
// ranges, so every product the HMMA forms is an exact f32.
//
// Shared memory, per stage (nvfp4_plan.hpp: 64 K elements):
//   packed rows (B; A when NVFP4): 32 bytes = two 16-byte chunks, chunk c of
//     row r stored at chunk c ^ ((r / 4) % 2): the 8 rows of an ldmatrix phase
//     hit 8 distinct 16-byte bank groups.
//   16-bit A rows: 128 bytes = 8 chunks, chunk c at c ^ (4 (r % 2)): the 8
//     lanes of an LDS.128 phase (rows g, g+1; lanes t read chunk 4kk + t)
//     hit distinct bank groups.
//   scales: one 32-bit word per row, byte b = block 4 kt + b (zero past K).
// Fragments: ldmatrix m8n8 on packed rows gives lane (g = lane / 4,
// t = lane % 4) bytes 4t..4t+3 of row g of a chunk: E2M1 elements 8t..8t+7
// of that K group of 32, exactly the m16n8k64 E2M1 fragment (a0 / a1 rows g /
// g+8 of chunk 0, a2 / a3 of chunk 1; b0, b1 chunk 0, 1). The HMMA policies
// decode those 8 elements to four 16-bit pairs and feed them as k slots
// {2t, 2t+1} and {2t+8, 2t+9} of two m16n8k16 steps, A (decoded, or read as
// 16 bytes at element 8t of its row) and B alike: one permutation of K on
// both operands, so the dot product is unchanged.
// Rows past M or N and chunks past K are zero-filled (cp.async src-size 0),
// their scales zero, so edge tiles need no masking in the MMA loop.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "arch/config.hpp"
#include "core/nvfp4_layout.hpp"
#include "gemm/mma_sync_fp8_gemm.cuh"
#include "gemm/nvfp4/nvfp4_params.hpp"
#include "gemm/nvfp4/nvfp4_plan.hpp"

namespace fp8kit::nvfp4 {

// Compile-time constants of one tile shape and A kind (16-bit or NVFP4).
template <TileId kId, bool kA16>
struct Config {
  static constexpr TileShape kShape = tile_shape(kId);
  static constexpr int kBlockM = kShape.block_m;
  static constexpr int kBlockN = kShape.block_n;
  static constexpr int kStages = kShape.stages;
  static constexpr int kThreads = kShape.threads();
  static constexpr int kWarpsN = kShape.warps_n;
  static constexpr int kWarpM = kShape.warp_m();
  static constexpr int kWarpN = kShape.warp_n();
  static constexpr int kTilesM = kWarpM / 16;  // m16 tiles per warp
  static constexpr int kTilesN = kWarpN / 8;   // n8 tiles per warp
  static constexpr int kChunk = 16;
  static constexpr int kPackedChunks = TileShape::kPackedRowBytes / kChunk;  // 2
  static constexpr int kA16Chunks = 2 * TileShape::kStageK / kChunk;        // 8
  static constexpr int kARowBytes = kA16 ? 2 * TileShape::kStageK : TileShape::kPackedRowBytes;
  static constexpr int kAChunks = kARowBytes / kChunk;
  static constexpr int kATile = kShape.a_tile_bytes(kA16);
  static constexpr int kBTile = kShape.b_tile_bytes();
  static constexpr int kAScales = kShape.a_scale_bytes(kA16);
  static constexpr int kStageBytes = kShape.stage_bytes(kA16);
  static constexpr int kSmemBytes = kShape.smem_bytes(kA16);
  static constexpr int kGroupM = 8;  // CTA rows per rasterisation group (L2 reuse of B)
  static constexpr int kMinBlocks = kShape.min_blocks;
  static_assert(kShape.kind == TileKind::Cta, "a CTA tile");
  static_assert(kTilesN % 2 == 0, "B fragments are loaded two n8 tiles at a time");
  static_assert(kBlockN + (kA16 ? 0 : kBlockM) <= kThreads, "one scale row per thread at most");
  static_assert(kStages >= 2, "the scale prefetch stores one stage behind");
};

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

using mma_sync::copy_16;
using mma_sync::copy_commit;
using mma_sync::copy_wait;
using mma_sync::ldmatrix_x4;
using mma_sync::smem_addr;

// Byte offset of (row, chunk) in a packed (rows, 32-byte) tile.
__device__ __forceinline__ uint32_t packed_offset(int row, int chunk) {
  return static_cast<uint32_t>(row * TileShape::kPackedRowBytes + ((chunk ^ ((row >> 2) & 1)) << 4));
}
// Byte offset of (row, chunk) in a 16-bit (rows, 128-byte) tile.
__device__ __forceinline__ uint32_t a16_offset(int row, int chunk) {
  return static_cast<uint32_t>(row * 2 * TileShape::kStageK + ((chunk ^ ((row & 1) << 2)) << 4));
}

// Rows [row0, row0 + kRows) of a row-major matrix, the chunks of stage kt
// (row_bytes bytes per stage row, `limit` valid bytes per row), into a tile.
template <int kRows, int kChunks, int kThreads, bool kA16Layout>
__device__ __forceinline__ void copy_tile(uint32_t dst, const uint8_t* base, int64_t ld_bytes, int row0,
                                          int rows_valid, int kt, int64_t limit, int tid) {
  constexpr int kCopies = (kRows * kChunks + kThreads - 1) / kThreads;
  constexpr int kChunkBytes = 16;
#pragma unroll
  for (int i = 0; i < kCopies; ++i) {
    const int c = tid + i * kThreads;
    if (kRows * kChunks % kThreads != 0 && c >= kRows * kChunks) break;
    const int row = c / kChunks;
    const int chunk = c % kChunks;
    const int64_t byte = static_cast<int64_t>(kt) * kChunks * kChunkBytes + chunk * kChunkBytes;
    const bool ok = byte < limit && row0 + row < rows_valid;
    const uint8_t* src = ok ? base + static_cast<int64_t>(row0 + row) * ld_bytes + byte : base;
    copy_16(dst + (kA16Layout ? a16_offset(row, chunk) : packed_offset(row, chunk)), src, ok);
  }
}

// The 4 scale bytes of blocks 4 kt .. 4 kt + 3 of `row` (global row index of
// the scale matrix), zero for a row past `rows_valid` and blocks past K, in
// two steps for a loop that loads words well before it uses them:
// issue_scale_word starts the loads and nothing waits on them (the word, or
// its bytes for linear scales, lands as loaded), scale_word assembles the
// word. kSwizzled: the layout.
template <bool kSwizzled>
struct ScaleWordLoads {
  uint32_t part[kSwizzled ? 1 : kTileBlocks];
  int valid;  // blocks of the word inside K (0 past rows_valid)
};
template <bool kSwizzled>
__device__ __forceinline__ ScaleWordLoads<kSwizzled> issue_scale_word(const uint8_t* scales, int row, int rows_valid,
                                                                      int kt, int k_blocks) {
  ScaleWordLoads<kSwizzled> l;
  const int kb0 = kt * kTileBlocks;
  l.valid = row >= rows_valid ? 0 : k_blocks - kb0 < kTileBlocks ? k_blocks - kb0 : kTileBlocks;
  if constexpr (kSwizzled) {
    const int64_t kb4 = round_up(k_blocks, kTileBlocks);
    l.part[0] = l.valid > 0 ? __ldg(reinterpret_cast<const uint32_t*>(scales + swizzled_offset(row, kb0, kb4))) : 0u;
  } else {
    const uint8_t* p = scales + linear_offset(row, kb0, k_blocks);
#pragma unroll
    for (int b = 0; b < kTileBlocks; ++b) l.part[b] = b < l.valid ? __ldg(p + b) : 0u;
  }
  return l;
}
template <bool kSwizzled>
__device__ __forceinline__ uint32_t scale_word(const ScaleWordLoads<kSwizzled>& l) {
  constexpr uint32_t kAll = 0xffffffffu;
  if constexpr (kSwizzled)
    return l.part[0] & (l.valid >= kTileBlocks ? kAll : l.valid <= 0 ? 0u : (1u << (8 * l.valid)) - 1);
  uint32_t w = 0;
#pragma unroll
  for (int b = 0; b < kTileBlocks; ++b) w |= l.part[b] << (8 * b);
  return w;
}
__device__ __forceinline__ uint32_t load_scale_word(const uint8_t* scales, int layout, int row, int rows_valid, int kt,
                                                    int k_blocks) {
  return is_swizzled(layout) ? scale_word(issue_scale_word<true>(scales, row, rows_valid, kt, k_blocks))
                             : scale_word(issue_scale_word<false>(scales, row, rows_valid, kt, k_blocks));
}

// An E4M3 scale byte (sign ignored: the scales are unsigned) as an f32,
// exactly: its 7 bits placed as an f32's low exponent and top mantissa bits
// give the value times 2^-120, normal and subnormal alike.
__device__ __forceinline__ float e4m3_scale_to_float(uint32_t byte) {
  constexpr uint32_t kMagnitude = 0x7f;
  constexpr int kToF32 = 20;                   // 23 - 3 mantissa bits
  constexpr float kRebias = 0x1p120f;  // f32 bias 127 - e4m3 bias 7
  return __uint_as_float((byte & kMagnitude) << kToF32) * kRebias;
}

// E2M1 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6 as the bytes of 16-bit floats,
// indexed by the nibble's 3 magnitude bits (a __byte_perm table of 8 bytes).
struct E2m1F16Table {
  static constexpr uint32_t kHiA = 0x3e3c3800u, kHiB = 0x46444240u;  // f16 high bytes; low bytes are 0
};
struct E2m1Bf16Table {
  static constexpr uint32_t kHiA = 0x3f3f3f00u, kHiB = 0x40404040u;
  static constexpr uint32_t kLoA = 0xc0800000u, kLoB = 0xc0804000u;
};

// The sign bits of 4 nibbles (w's low 16 bits) moved to bit 7 of bytes 0..3.
__device__ __forceinline__ uint32_t nibble_signs(uint32_t w) {
  const uint32_t t = __byte_perm(w, 0, 0x1100);  // bytes: B0, B0, B1, B1
  return ((t << 4) & 0x00800080u) | (t & 0x80008000u);
}

// 8 E2M1 elements (w, element 0 in the low nibble) -> four 16-bit pairs:
// out[i] = (element 2i, element 2i+1), each times `scale` (exact).
template <bool kBf16>
__device__ __forceinline__ void decode_e2m1x8(uint32_t w, float scale, uint32_t (&out)[4]) {
  constexpr uint32_t kMag = 0x7777u;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const uint32_t nib = half ? w >> 16 : w;
    const uint32_t sel = nib & kMag;
    uint32_t lo, hi;
    if constexpr (kBf16) {
      const uint32_t l = __byte_perm(E2m1Bf16Table::kLoA, E2m1Bf16Table::kLoB, sel);
      const uint32_t h = __byte_perm(E2m1Bf16Table::kHiA, E2m1Bf16Table::kHiB, sel) | nibble_signs(nib);
      lo = __byte_perm(l, h, 0x5140);
      hi = __byte_perm(l, h, 0x7362);
    } else {
      const uint32_t h = __byte_perm(E2m1F16Table::kHiA, E2m1F16Table::kHiB, sel) | nibble_signs(nib);
      lo = __byte_perm(h, 0, 0x1404);
      hi = __byte_perm(h, 0, 0x3424);
    }
    if constexpr (kBf16) {
#if FP8KIT_HAS_BF16_MMA
      const __nv_bfloat162 s = __float2bfloat162_rn(scale);
      __nv_bfloat162 a = *reinterpret_cast<__nv_bfloat162*>(&lo), b = *reinterpret_cast<__nv_bfloat162*>(&hi);
      a = __hmul2(a, s);
      b = __hmul2(b, s);
      out[2 * half] = *reinterpret_cast<uint32_t*>(&a);
      out[2 * half + 1] = *reinterpret_cast<uint32_t*>(&b);
#endif
    } else {
      const __half2 s = __float2half2_rn(scale);
      __half2 a = *reinterpret_cast<__half2*>(&lo), b = *reinterpret_cast<__half2*>(&hi);
      a = __hmul2(a, s);
      b = __hmul2(b, s);
      out[2 * half] = *reinterpret_cast<uint32_t*>(&a);
      out[2 * half + 1] = *reinterpret_cast<uint32_t*>(&b);
    }
  }
}

// Byte b of a scale word as a scale.
__device__ __forceinline__ float scale_of(uint32_t word, int b) { return e4m3_scale_to_float((word >> (8 * b)) & 0xff); }

__device__ __forceinline__ void hmma_bf16_16x8x16(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                                  uint32_t b0, uint32_t b1) {
#if FP8KIT_HAS_BF16_MMA
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

// One m16n8k16 step in the policy's 16-bit type.
template <bool kBf16>
__device__ __forceinline__ void hmma_step(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                          uint32_t b0, uint32_t b1) {
  if constexpr (kBf16) hmma_bf16_16x8x16(c, a0, a1, a2, a3, b0, b1);
  else mma_sync::hmma_16x8x16(c, a0, a1, a2, a3, b0, b1);
}

#endif  // FP8KIT_ARCH_IN(any)

// What one stage of a warp's tile looks like to a policy: packed words as
// ldmatrix returned them, scale words, and the 16-bit A tile when A is not
// packed.
template <int kTilesM, int kTilesN>
struct StageFragments {
  uint32_t a[kTilesM][4];   // packed A: rows g / g+8 of chunk 0, then of chunk 1
  uint32_t a_scale[kTilesM][2];  // scale words of rows g, g + 8
  uint32_t b[kTilesN][2];   // packed B: chunk 0, chunk 1
  uint32_t b_scale[kTilesN];     // scale word of column g
};

// The HMMA policies: decode, then two m16n8k16 steps per K group of 32.
template <bool kBf16>
struct Hmma {
  static constexpr bool kBf16Operands = kBf16;
  // c[i][j] += this stage's product; a16 reads the 16-bit A tile (row r,
  // K group kk: 16 bytes at element 8t), else fr.a is decoded.
  template <int kTilesM, int kTilesN, bool kA16>
  static __device__ __forceinline__ void stage(float (&c)[kTilesM][kTilesN][4], const StageFragments<kTilesM, kTilesN>& fr,
                                               uint32_t a16_tile, int warp_m0) {
#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int kk = 0; kk < 2; ++kk) {
      const int block = 2 * kk + (t >> 1);  // the scale block of elements 8t..8t+7 of group kk
      uint32_t bf[kTilesN][4];
#pragma unroll
      for (int j = 0; j < kTilesN; ++j) decode_e2m1x8<kBf16>(fr.b[j][kk], scale_of(fr.b_scale[j], block), bf[j]);
#pragma unroll
      for (int i = 0; i < kTilesM; ++i) {
        uint32_t lo[4], hi[4];  // rows g and g + 8: elements (0,1) (2,3) (4,5) (6,7)
        if constexpr (kA16) {
          const int row = warp_m0 + i * 16 + g;
          const int chunk = 4 * kk + t;
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                       : "=r"(lo[0]), "=r"(lo[1]), "=r"(lo[2]), "=r"(lo[3])
                       : "r"(a16_tile + a16_offset(row, chunk)));
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                       : "=r"(hi[0]), "=r"(hi[1]), "=r"(hi[2]), "=r"(hi[3])
                       : "r"(a16_tile + a16_offset(row + 8, chunk)));
        } else {
          decode_e2m1x8<kBf16>(fr.a[i][2 * kk], scale_of(fr.a_scale[i][0], block), lo);
          decode_e2m1x8<kBf16>(fr.a[i][2 * kk + 1], scale_of(fr.a_scale[i][1], block), hi);
        }
#pragma unroll
        for (int j = 0; j < kTilesN; ++j) {
          hmma_step<kBf16>(c[i][j], lo[0], hi[0], lo[1], hi[1], bf[j][0], bf[j][1]);
          hmma_step<kBf16>(c[i][j], lo[2], hi[2], lo[3], hi[3], bf[j][2], bf[j][3]);
        }
      }
    }
#endif
  }
};

using HmmaF16 = Hmma<false>;
using HmmaBf16 = Hmma<true>;

}  // namespace fp8kit::nvfp4
