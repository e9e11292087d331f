// Which expert and M tile a CTA of a grouped launch owns, found on the device
// from the group sizes (so no group size ever reaches the host). Shared by
// every grouped kernel: the portable FP8 and NVFP4 ones and the Hopper NVFP4
// one.
//
// Slot -> expert:
//   masked      slot = e * ceil(max_m / BM) + local tile; the CTA exits when
//               local * BM >= count_e (clamped to [0, max_m]).
//   contiguous  the experts' tiles laid end to end: expert e owns slots
//               [S_e, S_e + ceil(rows_e / BM)), S_e = sum_{j<e} ceil(rows_j / BM).
//               Each CTA scans the E offsets (block-wide max scan for the
//               clamped ends, sum scan for S_e, kThreads experts per pass) in
//               shared memory before its main loop reuses it; a slot past the
//               last tile exits. sum_e ceil(rows_e / BM) <= ceil(T / BM) + E,
//               so a grid of that many slots covers every tile.
// Clamping (fp8kit.h): end_e = min(T, max(0, offs[0..e])), start_e = end_{e-1}.
#pragma once

#include <cub/block/block_scan.cuh>
#include <cuda/functional>

#include <climits>
#include <cstdint>

#include "arch/config.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit::grouped {

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
// T: the kernel's kThreads, kBlockM and kSmemBytes; G: a grouped problem's
// experts, rows and groups (GroupedParams, Nvfp4GroupedParams).
template <class T, class G>
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
template <class T, class G>
__device__ __forceinline__ bool find_masked(const G& g, int slot, ExpertTile* out) {
  const int per_expert = (g.rows + T::kBlockM - 1) / T::kBlockM;
  const int e = slot / per_expert;
  const int tile = slot % per_expert;
  const int rows = min(g.rows, max(0, g.groups[e]));
  *out = ExpertTile{e, 0, rows, tile};
  return tile * T::kBlockM < rows;
}

// Either layout's CTA share (uniform over the CTA); false: no tile.
template <class T, class G>
__device__ __forceinline__ bool find_expert_tile(const G& g, int slot, uint8_t* smem, ExpertTile* out) {
  return g.layout == FP8KIT_GROUPED_MASKED ? find_masked<T>(g, slot, out) : find_contiguous<T>(g, slot, smem, out);
}

#endif  // FP8KIT_ARCH_IN(any)

}  // namespace fp8kit::grouped
