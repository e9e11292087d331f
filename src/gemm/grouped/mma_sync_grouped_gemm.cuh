// The portable grouped FP8 GEMM: the dense mma.sync tile (gemm_tile in
// gemm/mma_sync_fp8_gemm.cuh) over (expert, M tile, N tile) triples that the
// kernel finds on the device, so no group size ever reaches the host.
//
// Grid: 1-D, grouped_m_slots(g) M slots x ceil(N / 128) N tiles, rasterised
// like the dense kernel (kGroupM slots sweep N together). Slot -> expert:
//   masked      slot = e * ceil(max_m / BM) + local tile; the CTA exits when
//               local * BM >= count_e (clamped to [0, max_m]).
//   contiguous  the experts' tiles laid end to end: expert e owns slots
//               [S_e, S_e + ceil(rows_e / BM)), S_e = sum_{j<e} ceil(rows_j / BM).
//               Each CTA scans the E offsets (block-wide max scan for the
//               clamped ends, sum scan for S_e, 256 experts per pass) in the
//               pipeline's shared memory before its main loop reuses it; a
//               slot past the last tile exits. sum_e ceil(rows_e / BM) <=
//               ceil(T / BM) + E, so the grid always covers every tile.
// Clamping (fp8kit.h): end_e = min(T, max(0, offs[0..e])), start_e = end_{e-1}.
#pragma once

#include <cub/block/block_scan.cuh>
#include <cuda/functional>

#include <climits>

#include "core/dtype.hpp"
#include "gemm/grouped/grouped_params.hpp"
#include "gemm/mma_sync_fp8_gemm.cuh"

namespace fp8kit::mma_sync {

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

// One CTA's share of a grouped problem: its expert, the expert's first row
// (contiguous: a row of the whole A; masked: 0), row count and M tile.
struct ExpertTile {
  int expert;
  int start;
  int rows;
  int tile;
};

// Contiguous layout: the expert whose tiles contain `slot`; false if none.
// Uses `smem` as scratch; ends with a barrier, so the caller may reuse it.
// T: the tile's kThreads, kBlockM, kSmemBytes; G: a grouped problem's
// experts, rows and groups (the FP8 and NVFP4 kernels share this).
template <class T = Tile, class G = GroupedParams>
__device__ __forceinline__ bool find_contiguous(const G& g, int slot, uint8_t* smem, ExpertTile* out) {
  using Scan = cub::BlockScan<int, T::kThreads>;
  auto& temp = *reinterpret_cast<typename Scan::TempStorage*>(smem);
  int* found = reinterpret_cast<int*>(smem + sizeof(typename Scan::TempStorage));
  static_assert(sizeof(typename Scan::TempStorage) + 4 * sizeof(int) <= T::kSmemBytes, "scan scratch fits");
  if (threadIdx.x == 0) found[0] = -1;  // ordered before any other write by the scan's barriers
  int end_carry = 0;   // clamped end of the previous pass's last expert (>= 0)
  int tile_carry = 0;  // tiles of the experts of earlier passes
  for (int base = 0; base < g.experts; base += T::kThreads) {
    const int e = base + static_cast<int>(threadIdx.x);
    const int off = e < g.experts ? g.groups[e] : INT_MIN;
    int prev, pass_max;
    Scan(temp).ExclusiveScan(off, prev, end_carry, cuda::maximum<int>{}, pass_max);
    const int start = min(g.rows, prev);
    const int end = min(g.rows, max(prev, off));
    const int tiles = e < g.experts ? (end - start + T::kBlockM - 1) / T::kBlockM : 0;
    __syncthreads();  // temp is reused by the second scan
    int first, pass_tiles;
    Scan(temp).ExclusiveSum(tiles, first, pass_tiles);
    first += tile_carry;
    if (slot >= first && slot < first + tiles) {
      found[0] = e;
      found[1] = start;
      found[2] = end - start;
      found[3] = slot - first;
    }
    end_carry = max(end_carry, pass_max);
    tile_carry += pass_tiles;
    __syncthreads();  // found visible; temp free for the next pass
    if (found[0] >= 0 || tile_carry > slot) break;
  }
  *out = ExpertTile{found[0], found[1], found[2], found[3]};
  __syncthreads();  // everyone has read `found` before the main loop reuses smem
  return out->expert >= 0;
}

// Masked layout: slot -> (expert, local tile); false past the expert's count.
template <class T = Tile, class G = GroupedParams>
__device__ __forceinline__ bool find_masked(const G& g, int slot, ExpertTile* out) {
  const int per_expert = (g.rows + T::kBlockM - 1) / T::kBlockM;
  const int e = slot / per_expert;
  const int tile = slot % per_expert;
  const int rows = min(g.rows, max(0, g.groups[e]));
  *out = ExpertTile{e, 0, rows, tile};
  return tile * T::kBlockM < rows;
}

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
  const bool mine = g.layout == FP8KIT_GROUPED_MASKED ? find_masked(g, slot, &t) : find_contiguous(g, slot, smem, &t);
  if (!mine) return;  // uniform over the CTA
  GemmParams p;
  const int a_block_ld = expert_problem(g, t, &p);
  gemm_tile<Mma, TA, TB, kBlockScale>(p, t.tile * T::kBlockM, tile_n * T::kBlockN, a_block_ld, smem);
#endif
}

}  // namespace fp8kit::mma_sync
