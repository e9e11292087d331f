// The NVFP4 GEMM's CTA tile (main loop and epilogue) and its two kernels,
// dense and grouped, which run a CTA tile or a decode tile
// (nvfp4_decode.cuh) by the tile's kind. The layouts, fragments and policies are in
// nvfp4_gemm.cuh; the grouped expert mapping is every grouped kernel's
// (gemm/grouped/expert_tiles.cuh, nvfp4_expert.cuh).
//
// Pipeline: kStages stages of cp.async for the A and B tiles. The scale words
// go through registers: each thread loads at most one row's word of stage
// kt + kStages - 1 with plain loads while stage kt computes and stores it to
// shared memory at the next iteration, before the barrier that makes it
// visible, so no warp waits on a scale load.
#pragma once

#include <type_traits>

#include "gemm/grouped/expert_tiles.cuh"
#include "gemm/nvfp4/nvfp4_decode.cuh"
#include "gemm/nvfp4/nvfp4_expert.cuh"
#include "gemm/nvfp4/nvfp4_gemm.cuh"

namespace fp8kit::nvfp4 {

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

// One CTA tile at (m0, n0) of problem p. smem: Config::kSmemBytes, 128-byte
// aligned.
template <class Policy, TileId kTile, bool kA16>
__device__ __forceinline__ void gemm_tile(const Nvfp4Params& p, int m0, int n0, uint8_t* smem) {
  using C = Config<kTile, kA16>;
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int warp_m0 = (warp / C::kWarpsN) * C::kWarpM;
  const int warp_n0 = (warp % C::kWarpsN) * C::kWarpN;
  const uint32_t smem_base = smem_addr(smem);
  // K % 32 == 0: a last half stage is zero-filled, its scales zero.
  const int stages_k = (p.k + TileShape::kStageK - 1) / TileShape::kStageK;
  const int64_t a_bytes = kA16 ? static_cast<int64_t>(p.k) * 2 : p.k / 2;
  const int64_t a_ld_bytes = kA16 ? p.lda * 2 : p.lda;

  auto a_tile = [&](int s) { return smem_base + s * C::kStageBytes; };
  auto b_tile = [&](int s) { return a_tile(s) + C::kATile; };
  auto a_scales = [&](int s) { return b_tile(s) + C::kBTile; };
  auto b_scales = [&](int s) { return a_scales(s) + C::kAScales; };

  // This thread's scale row: B's rows first, then (NVFP4 A) A's.
  const bool b_scale_row = tid < C::kBlockN;
  const bool a_scale_row = !kA16 && tid >= C::kBlockN && tid < C::kBlockN + C::kBlockM;
  auto load_scales = [&](int kt) -> uint32_t {
    if (b_scale_row) return load_scale_word(p.b_scale, p.b_scale_layout, n0 + tid, p.n, kt, p.k_blocks);
    if (a_scale_row) {
      const int r = tid - C::kBlockN;
      return m0 + r < p.m ? load_scale_word(p.a_scale, p.a_scale_layout, p.a_scale_row0 + m0 + r, INT_MAX, kt,
                                            p.k_blocks)
                          : 0u;
    }
    return 0u;
  };
  auto store_scales = [&](int s, uint32_t w) {
    if (b_scale_row) asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(b_scales(s) + 4 * tid), "r"(w));
    if (a_scale_row) asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(a_scales(s) + 4 * (tid - C::kBlockN)), "r"(w));
  };
  auto load_stage = [&](int s, int kt) {
    copy_tile<C::kBlockM, C::kAChunks, C::kThreads, kA16>(a_tile(s), p.a, a_ld_bytes, m0, p.m, kt, a_bytes, tid);
    copy_tile<C::kBlockN, C::kPackedChunks, C::kThreads, false>(b_tile(s), p.b, p.ldb, n0, p.n, kt, p.k / 2, tid);
  };

  float acc[C::kTilesM][C::kTilesN][4];
#pragma unroll
  for (int i = 0; i < C::kTilesM; ++i)
#pragma unroll
    for (int j = 0; j < C::kTilesN; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

#pragma unroll
  for (int s = 0; s < C::kStages - 1; ++s) {
    if (s < stages_k) {
      load_stage(s, s);
      store_scales(s, load_scales(s));
    }
    copy_commit();
  }

  const int g = lane >> 2;
  uint32_t pending = 0;  // scale word of stage kt + kStages - 2, loaded last iteration
  for (int kt = 0; kt < stages_k; ++kt) {
    copy_wait<C::kStages - 2>();
    if (kt > 0 && kt + C::kStages - 2 < stages_k) store_scales((kt + C::kStages - 2) % C::kStages, pending);
    __syncthreads();  // stage kt visible; stage (kt - 1) % kStages free for reuse
    {
      const int next = kt + C::kStages - 1;
      if (next < stages_k) {
        load_stage(next % C::kStages, next);
        pending = load_scales(next);
      }
      copy_commit();
    }
    const int s = kt % C::kStages;
    StageFragments<C::kTilesM, C::kTilesN> fr;
#pragma unroll
    for (int j = 0; j < C::kTilesN; j += 2) {
      // Matrices: (n-tile j, chunk 0), (j, chunk 1), (j + 1, chunk 0), (j + 1, chunk 1).
      const int row = warp_n0 + (j + (lane >> 4)) * 8 + (lane & 7);
      uint32_t r[4];
      ldmatrix_x4(r, b_tile(s) + packed_offset(row, (lane >> 3) & 1));
      fr.b[j][0] = r[0];
      fr.b[j][1] = r[1];
      fr.b[j + 1][0] = r[2];
      fr.b[j + 1][1] = r[3];
    }
#pragma unroll
    for (int j = 0; j < C::kTilesN; ++j)
      asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(fr.b_scale[j]) : "r"(b_scales(s) + 4 * (warp_n0 + j * 8 + g)));
    if constexpr (!kA16) {
#pragma unroll
      for (int i = 0; i < C::kTilesM; ++i) {
        // Matrices: rows 0-7 chunk 0, rows 8-15 chunk 0, rows 0-7 chunk 1, rows 8-15 chunk 1.
        ldmatrix_x4(fr.a[i], a_tile(s) + packed_offset(warp_m0 + i * 16 + (lane & 15), lane >> 4));
#pragma unroll
        for (int h = 0; h < 2; ++h)
          asm volatile("ld.shared.u32 %0, [%1];\n"
                       : "=r"(fr.a_scale[i][h])
                       : "r"(a_scales(s) + 4 * (warp_m0 + i * 16 + g + 8 * h)));
      }
    }
    Policy::template stage<C::kTilesM, C::kTilesN, kA16>(acc, fr, a_tile(s), warp_m0);
  }
  copy_wait<0>();

  // ---- Epilogue: alpha, bias, conversion, predicated pair stores ----------
  const float alpha = p.alpha ? *p.alpha : 1.f;
  const int t = lane & 3;
#pragma unroll
  for (int j = 0; j < C::kTilesN; ++j) {
    const int col = n0 + warp_n0 + j * 8 + 2 * t;
    if (col >= p.n) continue;
    const bool pair = col + 1 < p.n;
    float bias0 = 0.f, bias1 = 0.f;
    if (p.bias) {
      bias0 = mma_sync::load_bias(p.bias, p.bias_type, col);
      bias1 = pair ? mma_sync::load_bias(p.bias, p.bias_type, col + 1) : 0.f;
    }
#pragma unroll
    for (int i = 0; i < C::kTilesM; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + warp_m0 + i * 16 + g + 8 * h;
        if (row >= p.m) continue;
        mma_sync::store_out(p.d, p.d_type, static_cast<int64_t>(row) * p.ldd + col,
                            acc[i][j][2 * h] * alpha + bias0, acc[i][j][2 * h + 1] * alpha + bias1, pair);
      }
    }
  }
}

#endif  // FP8KIT_ARCH_IN(any)

// A tile's compile-time constants, whichever its kind.
template <TileId kTile, bool kA16>
using TileConfig =
    std::conditional_t<tile_shape(kTile).kind == TileKind::Decode, DecodeConfig<kTile, kA16>, Config<kTile, kA16>>;

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
// The tile at (m0, n0), of its kind.
template <class Policy, TileId kTile, bool kA16>
__device__ __forceinline__ void run_tile(const Nvfp4Params& p, int m0, int n0, uint8_t* smem) {
  if constexpr (tile_shape(kTile).kind == TileKind::Decode) decode_tile<Policy, kTile, kA16>(p, m0, n0, smem);
  else gemm_tile<Policy, kTile, kA16>(p, m0, n0, smem);
}
#endif

template <TileId kTile, class Policy, bool kA16>
__global__ void __launch_bounds__(TileConfig<kTile, kA16>::kThreads, TileConfig<kTile, kA16>::kMinBlocks)
    nvfp4_gemm_kernel(const Nvfp4Params p) {
#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
  extern __shared__ __align__(128) uint8_t smem[];
  using C = TileConfig<kTile, kA16>;
  const int tiles_m = (p.m + C::kBlockM - 1) / C::kBlockM;
  const int block_n = cta_columns(C::kShape, p.decode_warps_n);
  const int tiles_n = (p.n + block_n - 1) / block_n;
  const int pid = blockIdx.x;
  const int per_group = C::kGroupM * tiles_n;
  const int first_m = (pid / per_group) * C::kGroupM;
  const int group_rows = min(tiles_m - first_m, C::kGroupM);
  const int tile_m = first_m + (pid % per_group) % group_rows;
  const int tile_n = (pid % per_group) / group_rows;
  run_tile<Policy, kTile, kA16>(p, tile_m * C::kBlockM, tile_n * block_n, smem);
#endif
}

template <TileId kTile, class Policy, bool kA16>
__global__ void __launch_bounds__(TileConfig<kTile, kA16>::kThreads, TileConfig<kTile, kA16>::kMinBlocks)
    nvfp4_grouped_gemm_kernel(const Nvfp4GroupedParams g) {
#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
  extern __shared__ __align__(128) uint8_t smem[];
  using C = TileConfig<kTile, kA16>;
  const int slots = static_cast<int>(nvfp4_grouped_m_slots(g, C::kBlockM));
  const int block_n = cta_columns(C::kShape, g.dense.decode_warps_n);
  const int tiles_n = (g.dense.n + block_n - 1) / block_n;
  const int pid = blockIdx.x;
  const int per_group = C::kGroupM * tiles_n;
  const int first_slot = (pid / per_group) * C::kGroupM;
  const int group_rows = min(slots - first_slot, C::kGroupM);
  const int slot = first_slot + (pid % per_group) % group_rows;
  const int tile_n = (pid % per_group) / group_rows;
  grouped::ExpertTile t;
  const bool mine = grouped::find_expert_tile<C>(g, slot, smem, &t);
  if (!mine) return;  // uniform over the CTA
  Nvfp4Params p;
  expert_problem(g, t, &p);
  run_tile<Policy, kTile, kA16>(p, t.tile * C::kBlockM, tile_n * block_n, smem);
#endif
}

}  // namespace fp8kit::nvfp4
