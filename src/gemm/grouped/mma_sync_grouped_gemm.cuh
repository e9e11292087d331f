// The portable grouped FP8 GEMM: the dense mma.sync tile (gemm_tile in
// gemm/mma_sync_fp8_gemm.cuh) over (expert, M tile, N tile) triples that the
// kernel finds on the device (gemm/grouped/expert_tiles.cuh), so no group
// size ever reaches the host.
//
// Grid: 1-D, grouped_m_slots(g) M slots x ceil(N / 128) N tiles, rasterised
// like the dense kernel (kGroupM slots sweep N together).
#pragma once

#include "core/dtype.hpp"
#include "gemm/grouped/expert_tiles.cuh"
#include "gemm/grouped/grouped_params.hpp"
#include "gemm/mma_sync_fp8_gemm.cuh"

namespace fp8kit::mma_sync {

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

using grouped::ExpertTile;

// Expert t.expert's problem as gemm_tile sees it: base pointers moved to its
// first row, row limit its row count. Returns the stride between A's K blocks
// of block scales (contiguous: T, masked: max_m).
__device__ __forceinline__ int expert_problem(const GroupedParams& g, const ExpertTile& t, GemmParams* p) {
  const GemmParams& d = g.dense;
  const bool masked = g.layout == FP8KIT_GROUPED_MASKED;
  const int64_t e = t.expert;
  // Rows of A / D and of A's per-row scales: contiguous counts from the top of
  // A, masked from the top of expert e's slab.
  const int64_t row0 = masked ? e * g.rows : t.start;
  *p = d;
  p->m = t.rows;
  p->a = d.a + row0 * d.lda;
  p->b = d.b + e * g.b_expert_stride;
  p->d = static_cast<uint8_t*>(d.d) + row0 * d.ldd * dtype_bytes(d.d_type);
  switch (d.a_scale_mode) {
    case FP8KIT_SCALE_TENSOR: p->a_scale = d.a_scale + e; break;
    case FP8KIT_SCALE_ROW: p->a_scale = d.a_scale + row0; break;
    case FP8KIT_SCALE_BLOCK: p->a_scale = d.a_scale + (masked ? e * g.rows * d.k_blocks : t.start); break;
    default: break;
  }
  switch (d.b_scale_mode) {
    case FP8KIT_SCALE_TENSOR: p->b_scale = d.b_scale + e; break;
    case FP8KIT_SCALE_COL: p->b_scale = d.b_scale + e * d.n; break;
    case FP8KIT_SCALE_BLOCK: p->b_scale = d.b_scale + e * ceil_div(d.n, kScaleBlock) * d.k_blocks; break;
    default: break;
  }
  if (d.bias) p->bias = static_cast<const uint8_t*>(d.bias) + e * d.n * dtype_bytes(d.bias_type);
  return g.rows;
}

#endif  // FP8KIT_ARCH_IN(any)

template <template <fp8kit_dtype, fp8kit_dtype> class Mma, fp8kit_dtype TA, fp8kit_dtype TB, bool kBlockScale>
__global__ void __launch_bounds__(Tile::kThreads, 1) fp8_grouped_gemm_kernel(const GroupedParams g) {
#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
  extern __shared__ __align__(128) uint8_t smem[];
  using T = Tile;
  const int slots = static_cast<int>(grouped_m_slots(g, T::kBlockM));
  const int tiles_n = (g.dense.n + T::kBlockN - 1) / T::kBlockN;
  const int pid = blockIdx.x;
  const int per_group = T::kGroupM * tiles_n;
  const int first_slot = (pid / per_group) * T::kGroupM;
  const int group_rows = min(slots - first_slot, T::kGroupM);
  const int slot = first_slot + (pid % per_group) % group_rows;
  const int tile_n = (pid % per_group) / group_rows;

  ExpertTile t;
  const bool mine = grouped::find_expert_tile<T>(g, slot, smem, &t);
  if (!mine) return;  // uniform over the CTA
  GemmParams p;
  const int a_block_ld = expert_problem(g, t, &p);
  gemm_tile<Mma, TA, TB, kBlockScale>(p, t.tile * T::kBlockM, tile_n * T::kBlockN, a_block_ld, smem);
#endif
}

}  // namespace fp8kit::mma_sync
