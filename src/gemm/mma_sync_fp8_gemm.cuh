// The portable FP8 GEMM: one kernel template, two tensor-core policies.
//
//   Fp8Mma  mma.sync m16n8k32 e4m3/e5m2 -> native QMMA on SM89 and SM12x,
//           lowered by ptxas to FP8->f16 conversion + HMMA on SM90/SM10x/SM11x
//   F16Mma  the same fragments converted to f16 in registers, HMMA m16n8k16
//           (two m16n8k8 on SM75): the path for SM75-SM87
// (A third, Fp8BlockScaledMma, the block-scaled form at unit scales for
// SM12x, is in sm120_fp8_mma.cuh: it needs an sm_12Xf target.)
//
// Both read the same shared-memory tiles with the same ldmatrix pattern: the
// m16n8k32 8-bit fragment gives lane (g = lane/4, t = lane%4) bytes
// k = 4t..4t+3 of its row, for A and for B alike. F16Mma feeds those bytes to
// the f16 MMA as if they were k = 2t, 2t+1 (first half) and 8+2t, 9+2t (second
// half): the same permutation of k on both operands, so the dot product is
// unchanged. FP8 products are exact in f16 x f16 -> f32, so both policies give
// f32 sums of exact products.
//
// Tiles (compile time, one of mma_sync_fp8_gemm_plan.hpp's shapes): CTA
// BLK_M x BLK_N, BLK_K bytes of K per cp.async stage, warps of 64 x 32 each
// (4 x 4 mma tiles of 16 x 8), laid out (BLK_M / 64) x (BLK_N / 32).
//   sA: (BLK_M, BLK_K) fp8 per stage, 16-byte chunks XOR-swizzled per bank line
//   sB: (BLK_N, BLK_K) fp8 per stage, same swizzle
// The host picks the shape from the device's shared memory and SM count.
//
// Scales: per-tensor / per-token / per-channel in the epilogue. Block scales
// (1x128 A, 128x128 B) in the main loop: the MMA accumulators hold one
// 128-deep K slice, then are folded into f32 master accumulators with
// sa(row, kb) * sb(n_block, kb). BLK_N divides 128: one B block per CTA.
//
// NOTES:
//  - Rows past M or N and 16-byte chunks past K are zero-filled (cp.async
//    src-size 0), so edge tiles need no masking in the MMA loop; K is a
//    multiple of 16 (validated), so a chunk is either wholly in or wholly out.
//  - The epilogue stores element pairs: ldd * sizeof(D) is a multiple of 16
//    and D is 16-byte aligned (validated), and the pair's column is even.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "arch/config.hpp"
#include "gemm/gemm_params.hpp"
#include "gemm/mma_sync_fp8_gemm_plan.hpp"

namespace fp8kit::mma_sync {

// Compile-time constants of one tile shape (mma_sync_fp8_gemm_plan.hpp).
template <TileId kId>
struct TileConfig {
  static constexpr TileShape kShape = tile_shape(kId);
  static constexpr int kBlockM = kShape.block_m;
  static constexpr int kBlockN = kShape.block_n;
  static constexpr int kBlockK = kShape.block_k;  // bytes of K per stage row
  static constexpr int kStages = kShape.stages;
  static constexpr int kWarpM = TileShape::kWarpM;  // 64
  static constexpr int kWarpN = TileShape::kWarpN;  // 32
  static constexpr int kWarpsM = kBlockM / kWarpM;
  static constexpr int kWarpsN = kBlockN / kWarpN;
  static constexpr int kThreads = kShape.threads();
  static constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 32;
  static constexpr int kTilesM = kWarpM / kMmaM;  // 4 mma tiles per warp along M
  static constexpr int kTilesN = kWarpN / kMmaN;  // 4 along N
  static constexpr int kChunk = 16;               // cp.async / ldmatrix row width, bytes
  static constexpr int kChunksK = kBlockK / kChunk;
  static constexpr int kBankLine = 128;            // bytes: 32 banks x 4
  static constexpr int kRowsPerLine = kBankLine / kBlockK;
  static constexpr int kStageBytes = kShape.stage_bytes();
  static constexpr int kSmemBytes = kShape.smem_bytes();
  static constexpr int kGroupM = 8;  // CTA rows per rasterisation group (L2 reuse of B)
  static constexpr int kKStepsPerScaleBlock = kScaleBlock / kBlockK;
  static_assert(kScaleBlock % kBlockN == 0, "block scales need the CTA inside one 128-wide B block");
  static_assert(kScaleBlock % kBlockK == 0, "a K tile must not straddle scale blocks");
  static_assert(kBlockK % kMmaK == 0 && kBankLine % kBlockK == 0, "K tile: whole MMAs, rows tile a bank line");
  static_assert(kWarpsM * kWarpM == kBlockM && kWarpsN * kWarpN == kBlockN, "warps tile the CTA");
};

// The 8-warp shape under its old name: the grouped kernel's tile.
using Tile = TileConfig<TileId::K128x128x64s4>;

// Byte offset of (row, 16-byte chunk) in a (rows, kBlockK) tile. kRowsPerLine
// rows share a 128 B bank line; XOR with (row / kRowsPerLine) % kChunksK makes
// the 8 rows of one ldmatrix phase hit 8 distinct 16 B bank groups.
template <class T>
__device__ __forceinline__ uint32_t swizzle(int row, int chunk) {
  return static_cast<uint32_t>(row * T::kBlockK + ((chunk ^ ((row / T::kRowsPerLine) % T::kChunksK)) << 4));
}

// ---- Tensor-core policies --------------------------------------------------

template <fp8kit_dtype T>
struct Fp8Name;
template <>
struct Fp8Name<FP8KIT_DTYPE_E4M3> {
  static constexpr bool kE4m3 = true;
};
template <>
struct Fp8Name<FP8KIT_DTYPE_E5M2> {
  static constexpr bool kE4m3 = false;
};

// c += a (16x32, row) * b (32x8, col), FP8 inputs, f32 accumulate. Its
// translation unit is built for SM89+ only (sm89_fp8_gemm.cu refuses others).
template <fp8kit_dtype TA, fp8kit_dtype TB>
struct Fp8Mma {
  static __device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if FP8KIT_HAS_FP8_MMA
#define FP8KIT_MMA_ASM(AT, BT)                                                                          \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." AT "." BT ".f32 "                               \
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"                    \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                                        \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
    if constexpr (Fp8Name<TA>::kE4m3 && Fp8Name<TB>::kE4m3) {
      FP8KIT_MMA_ASM("e4m3", "e4m3");
    } else if constexpr (Fp8Name<TA>::kE4m3) {
      FP8KIT_MMA_ASM("e4m3", "e5m2");
    } else if constexpr (Fp8Name<TB>::kE4m3) {
      FP8KIT_MMA_ASM("e5m2", "e4m3");
    } else {
      FP8KIT_MMA_ASM("e5m2", "e5m2");
    }
#undef FP8KIT_MMA_ASM
#endif
  }
};

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global -> shared copy; zero-fills when !valid (src must still be a
// mapped address). Turing has no cp.async: the copy is synchronous there.
__device__ __forceinline__ void copy_16(uint32_t dst, const void* src, bool valid) {
#if FP8KIT_HAS_CP_ASYNC
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
#else
  uint4 v = make_uint4(0, 0, 0, 0);
  if (valid) v = *static_cast<const uint4*>(src);
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
#endif
}

__device__ __forceinline__ void copy_commit() {
#if FP8KIT_HAS_CP_ASYNC
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int kPending>
__device__ __forceinline__ void copy_wait() {
#if FP8KIT_HAS_CP_ASYNC
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// One operand's share of a stage: rows [row0, row0 + kRows) of a row-major
// (rows_valid, k) FP8 matrix, K bytes [kt * kBlockK, (kt + 1) * kBlockK),
// into a swizzled (kRows, kBlockK) tile at `dst`. Out-of-range chunks are
// zero-filled.
template <class T, int kRows>
__device__ __forceinline__ void copy_rows(uint32_t dst, const uint8_t* base, int64_t ld, int row0, int rows_valid,
                                          int kt, int k, int tid) {
  constexpr int kCopies = kRows * T::kChunksK / T::kThreads;
  static_assert(kCopies * T::kThreads == kRows * T::kChunksK, "copy work must divide evenly");
#pragma unroll
  for (int i = 0; i < kCopies; ++i) {
    const int c = tid + i * T::kThreads;
    const int row = c / T::kChunksK;
    const int chunk = c % T::kChunksK;
    const int kk = kt * T::kBlockK + chunk * T::kChunk;
    const bool ok = kk < k && row0 + row < rows_valid;
    const uint8_t* src = ok ? base + static_cast<int64_t>(row0 + row) * ld + kk : base;
    copy_16(dst + swizzle<T>(row, chunk), src, ok);
  }
}

// Four FP8 bytes (k = 4t..4t+3) -> two f16x2: lo = (k0, k1), hi = (k2, k3).
template <fp8kit_dtype T>
__device__ __forceinline__ void fp8x4_to_f16x2x2(uint32_t x, uint32_t& lo, uint32_t& hi) {
  // Each byte into the high byte of a 16-bit lane: (b0 << 8) | (b1 << 24).
  uint32_t l = __byte_perm(x, 0, 0x1404);
  uint32_t h = __byte_perm(x, 0, 0x3424);
  if constexpr (!Fp8Name<T>::kE4m3) {
    // e5m2 is the top byte of an f16: exact by construction, NaN/inf included.
    lo = l;
    hi = h;
  } else {
    // e4m3 bits S.EEEE.MMM shifted into f16 S.0EEEE.MMM0000000: the value
    // times 2^-8 (bias 7 vs 15), normal and subnormal alike; x 2^8 is exact.
    constexpr uint32_t kMagBits = 0x7f007f00u, kSignBits = 0x80008000u;
    const __half2 k256 = __float2half2_rn(256.0f);
    l = ((l & kMagBits) >> 1) | (l & kSignBits);
    h = ((h & kMagBits) >> 1) | (h & kSignBits);
    __half2 lf = __hmul2(*reinterpret_cast<__half2*>(&l), k256);
    __half2 hf = __hmul2(*reinterpret_cast<__half2*>(&h), k256);
    // e4m3 NaN is S.1111.111 (no infinities): force an f16 NaN there.
    const uint32_t nan = __vcmpeq4(x & 0x7f7f7f7fu, 0x7f7f7f7fu);
    lo = *reinterpret_cast<uint32_t*>(&lf) | (__byte_perm(nan, 0, 0x1404) & kMagBits);
    hi = *reinterpret_cast<uint32_t*>(&hf) | (__byte_perm(nan, 0, 0x3424) & kMagBits);
  }
}

__device__ __forceinline__ void hmma_16x8x16(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                             uint32_t b0, uint32_t b1) {
#if FP8KIT_HAS_CP_ASYNC  // m16n8k16 f16 arrived with Ampere, like cp.async
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0), "r"(a1), "r"(b0));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a2), "r"(a3), "r"(b1));
#endif
}

// ---- Epilogue helpers ------------------------------------------------------

__device__ __forceinline__ float load_bias(const void* bias, fp8kit_dtype type, int n) {
  switch (type) {
    case FP8KIT_DTYPE_BF16: return __bfloat162float(static_cast<const __nv_bfloat16*>(bias)[n]);
    case FP8KIT_DTYPE_F16: return __half2float(static_cast<const __half*>(bias)[n]);
    default: return static_cast<const float*>(bias)[n];
  }
}

// Stores D[row, col] (and D[row, col + 1] when `pair`).
__device__ __forceinline__ void store_out(void* d, fp8kit_dtype type, int64_t index, float v0, float v1, bool pair) {
  switch (type) {
    case FP8KIT_DTYPE_BF16: {
      auto* p = static_cast<__nv_bfloat16*>(d) + index;
      if (pair) *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(v0, v1);
      else *p = __float2bfloat16_rn(v0);
      break;
    }
    case FP8KIT_DTYPE_F16: {
      auto* p = static_cast<__half*>(d) + index;
      if (pair) *reinterpret_cast<__half2*>(p) = __floats2half2_rn(v0, v1);
      else *p = __float2half_rn(v0);
      break;
    }
    default: {
      auto* p = static_cast<float*>(d) + index;
      if (pair) *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
      else *p = v0;
    }
  }
}

#endif  // FP8KIT_ARCH_IN(any)

// The m16n8k32 step done as two f16 m16n8k16 steps (see the file comment).
template <fp8kit_dtype TA, fp8kit_dtype TB>
struct F16Mma {
  static __device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
    uint32_t a0l, a0h, a1l, a1h, a2l, a2h, a3l, a3h, b0l, b0h, b1l, b1h;
    fp8x4_to_f16x2x2<TA>(a[0], a0l, a0h);  // row g,   k 0..15
    fp8x4_to_f16x2x2<TA>(a[1], a1l, a1h);  // row g+8, k 0..15
    fp8x4_to_f16x2x2<TA>(a[2], a2l, a2h);  // row g,   k 16..31
    fp8x4_to_f16x2x2<TA>(a[3], a3l, a3h);  // row g+8, k 16..31
    fp8x4_to_f16x2x2<TB>(b[0], b0l, b0h);
    fp8x4_to_f16x2x2<TB>(b[1], b1l, b1h);
    hmma_16x8x16(c, a0l, a1l, a0h, a1h, b0l, b0h);
    hmma_16x8x16(c, a2l, a3l, a2h, a3h, b1l, b1h);
#endif
  }
};


// ---- The kernel ------------------------------------------------------------

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

// One CTA tile at (m0, n0) of the problem p: main loop and epilogue. p holds
// the problem's base pointers and its row / column limits (p.m, p.n). A's
// block scales of K block kb start at a_scale + kb * a_block_ld: p.m for a
// dense problem; a grouped problem passes its whole row count, since its
// experts share one scale array. smem: TileConfig<kTile>::kSmemBytes,
// 128-byte aligned.
template <template <fp8kit_dtype, fp8kit_dtype> class Mma, fp8kit_dtype TA, fp8kit_dtype TB, bool kBlockScale,
          TileId kTile = TileId::K128x128x64s4>
__device__ __forceinline__ void gemm_tile(const GemmParams& p, int m0, int n0, int a_block_ld, uint8_t* smem) {
  using T = TileConfig<kTile>;
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int warp_m0 = (warp / T::kWarpsN) * T::kWarpM;
  const int warp_n0 = (warp % T::kWarpsN) * T::kWarpN;
  const uint32_t smem_base = smem_addr(smem);

  const int k_tiles = (p.k + T::kBlockK - 1) / T::kBlockK;

  // Per stage each thread copies kBlockM * kChunksK / kThreads chunks of A
  // and kBlockN * kChunksK / kThreads of B; compile-time counts, so the copy
  // loops unroll (a bound that depends on tid does not).
  auto load_stage = [&](int stage, int kt) {
    const uint32_t sa = smem_base + stage * T::kStageBytes;
    const uint32_t sb = sa + T::kBlockM * T::kBlockK;
    copy_rows<T, T::kBlockM>(sa, p.a, p.lda, m0, p.m, kt, p.k, tid);
    copy_rows<T, T::kBlockN>(sb, p.b, p.ldb, n0, p.n, kt, p.k, tid);
  };

  float acc[T::kTilesM][T::kTilesN][4];
  float master[kBlockScale ? T::kTilesM : 1][kBlockScale ? T::kTilesN : 1][4];
#pragma unroll
  for (int i = 0; i < T::kTilesM; ++i)
#pragma unroll
    for (int j = 0; j < T::kTilesN; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;
  if constexpr (kBlockScale) {
#pragma unroll
    for (int i = 0; i < T::kTilesM; ++i)
#pragma unroll
      for (int j = 0; j < T::kTilesN; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) master[i][j][r] = 0.f;
  }

#pragma unroll
  for (int s = 0; s < T::kStages - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    copy_commit();
  }

  const int g = lane >> 2;  // mma group: row within an 8-row half
  const int t = lane & 3;   // thread in group

  for (int kt = 0; kt < k_tiles; ++kt) {
    copy_wait<T::kStages - 2>();
    __syncthreads();  // stage kt visible; stage (kt - 1) % kStages free for reuse
    {
      const int next = kt + T::kStages - 1;
      if (next < k_tiles) load_stage(next % T::kStages, next);
      copy_commit();
    }
    const uint32_t sa = smem_base + (kt % T::kStages) * T::kStageBytes;
    const uint32_t sb = sa + T::kBlockM * T::kBlockK;
#pragma unroll
    for (int ks = 0; ks < T::kBlockK / T::kMmaK; ++ks) {
      uint32_t af[T::kTilesM][4];
      uint32_t bf[T::kTilesN][2];
#pragma unroll
      for (int i = 0; i < T::kTilesM; ++i) {
        // Matrices: (rows 0-7 | 8-15) x (k bytes 0-15 | 16-31) -> a0, a1, a2, a3.
        const int row = warp_m0 + i * T::kMmaM + (lane & 15);
        const int chunk = 2 * ks + (lane >> 4);
        ldmatrix_x4(af[i], sa + swizzle<T>(row, chunk));
      }
#pragma unroll
      for (int j = 0; j < T::kTilesN; j += 2) {
        // Matrices: n rows 0-7 k 0-15, n 0-7 k 16-31, n 8-15 k 0-15, n 8-15 k 16-31
        // -> b0, b1 of n-tile j, then b0, b1 of n-tile j + 1.
        const int row = warp_n0 + j * T::kMmaN + ((lane >> 4) << 3) + (lane & 7);
        const int chunk = 2 * ks + ((lane >> 3) & 1);
        uint32_t r[4];
        ldmatrix_x4(r, sb + swizzle<T>(row, chunk));
        bf[j][0] = r[0];
        bf[j][1] = r[1];
        bf[j + 1][0] = r[2];
        bf[j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < T::kTilesM; ++i)
#pragma unroll
        for (int j = 0; j < T::kTilesN; ++j) Mma<TA, TB>::mma(acc[i][j], af[i], bf[j]);
    }

    if constexpr (kBlockScale) {
      // Fold a finished 128-deep K slice into the master accumulators.
      const bool slice_done = (kt + 1) % T::kKStepsPerScaleBlock == 0 || kt + 1 == k_tiles;
      if (slice_done) {
        const int kb = kt / T::kKStepsPerScaleBlock;
        const float sb_scale = p.b_scale[static_cast<int64_t>(n0 / kScaleBlock) * p.k_blocks + kb];
#pragma unroll
        for (int i = 0; i < T::kTilesM; ++i) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = m0 + warp_m0 + i * T::kMmaM + g + 8 * h;
            const float sa_scale = row < p.m ? p.a_scale[static_cast<int64_t>(kb) * a_block_ld + row] : 0.f;
            const float s = sa_scale * sb_scale;
#pragma unroll
            for (int j = 0; j < T::kTilesN; ++j) {
              master[i][j][2 * h] += acc[i][j][2 * h] * s;
              master[i][j][2 * h + 1] += acc[i][j][2 * h + 1] * s;
              acc[i][j][2 * h] = 0.f;
              acc[i][j][2 * h + 1] = 0.f;
            }
          }
        }
      }
    }
  }
  copy_wait<0>();

  // ---- Epilogue: scales, bias, conversion, predicated pair stores ----------
  const float a_tensor = p.a_scale_mode == FP8KIT_SCALE_TENSOR ? p.a_scale[0] : 1.f;
  const float b_tensor = p.b_scale_mode == FP8KIT_SCALE_TENSOR ? p.b_scale[0] : 1.f;
#pragma unroll
  for (int j = 0; j < T::kTilesN; ++j) {
    const int col = n0 + warp_n0 + j * T::kMmaN + 2 * t;
    if (col >= p.n) continue;
    const bool pair = col + 1 < p.n;
    float sb0 = b_tensor, sb1 = b_tensor;
    if (p.b_scale_mode == FP8KIT_SCALE_COL) {
      sb0 = p.b_scale[col];
      sb1 = pair ? p.b_scale[col + 1] : 0.f;
    }
    float bias0 = 0.f, bias1 = 0.f;
    if (p.bias) {
      bias0 = load_bias(p.bias, p.bias_type, col);
      bias1 = pair ? load_bias(p.bias, p.bias_type, col + 1) : 0.f;
    }
#pragma unroll
    for (int i = 0; i < T::kTilesM; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + warp_m0 + i * T::kMmaM + g + 8 * h;
        if (row >= p.m) continue;
        const float sa = p.a_scale_mode == FP8KIT_SCALE_ROW ? p.a_scale[row] : a_tensor;
        float v0, v1;
        if constexpr (kBlockScale) {
          v0 = master[i][j][2 * h];
          v1 = master[i][j][2 * h + 1];
        } else {
          v0 = acc[i][j][2 * h] * (sa * sb0);
          v1 = acc[i][j][2 * h + 1] * (sa * sb1);
        }
        store_out(p.d, p.d_type, static_cast<int64_t>(row) * p.ldd + col, v0 + bias0, v1 + bias1, pair);
      }
    }
  }
}

#endif  // FP8KIT_ARCH_IN(any)

template <TileId kTile, template <fp8kit_dtype, fp8kit_dtype> class Mma, fp8kit_dtype TA, fp8kit_dtype TB,
          bool kBlockScale>
__global__ void __launch_bounds__(TileConfig<kTile>::kThreads, 1) fp8_gemm_kernel(const GemmParams p) {
#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
  extern __shared__ __align__(128) uint8_t smem[];
  using T = TileConfig<kTile>;

  // Grouped rasterisation: kGroupM CTA rows sweep N together, sharing B in L2.
  const int tiles_m = (p.m + T::kBlockM - 1) / T::kBlockM;
  const int tiles_n = (p.n + T::kBlockN - 1) / T::kBlockN;
  const int pid = blockIdx.x;
  const int per_group = T::kGroupM * tiles_n;
  const int group = pid / per_group;
  const int first_m = group * T::kGroupM;
  const int group_rows = min(tiles_m - first_m, T::kGroupM);
  const int tile_m = first_m + (pid % per_group) % group_rows;
  const int tile_n = (pid % per_group) / group_rows;
  gemm_tile<Mma, TA, TB, kBlockScale, kTile>(p, tile_m * T::kBlockM, tile_n * T::kBlockN, p.m, smem);
#endif
}

}  // namespace fp8kit::mma_sync
