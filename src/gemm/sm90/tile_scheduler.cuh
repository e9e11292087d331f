// Persistent tile scheduler of the native Hopper FP8 GEMM: CTA b runs work
// units b, b + grid, b + 2 grid, ...; a unit is one tile's K range (a split),
// or in grouped tiles one (expert, tile) pair whose whole K range it runs.
// Also the pipeline position (stage, phase) every role walks in the same order.
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include <climits>

#include <cub/block/block_scan.cuh>
#include <cuda/functional>
#include <cuda/ptx>

#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/ptx.cuh"
#include "gemm/sm90/shared_storage.hpp"
#include "gemm/sm90/tile_config.hpp"

namespace fp8kit::sm90 {

// One work unit, with the bases the mainloop, scales and epilogue read it by
// (dense tiles: the tile's coordinates; grouped: also its expert's).
struct Unit {
  int tile;              // linear tile index (before the split)
  int tx, ty;            // tile coordinates along X (kernel rows) and Y (kernel columns); grouped: in the expert
  int kb_begin, kb_end;  // K blocks of this split
  int x0, y0;            // first kernel row / column of the tile: rows of the X / Y tensor maps
  int x_end, y_end;      // kernel rows / columns of the unit's problem end here (past them: no scale, no store)
  int expert;            // grouped: the unit's expert (its TENSOR scales, block-scale slabs); dense: 0
  int n_base;            // kernel row of the B side where the expert's N starts (e * N; dense: 0)
  bool pad = false;      // 2-CTA clusters: a repeat of the peer's tile past the edge (loads, computes, stores nothing)
};

// Tile index `tile` of a (tiles_x, tiles_y) grid -> its coordinates: groups of
// group_x tiles along X (X fastest inside a group), so that the units running
// at the same time share few X and Y panels and keep them in L2.
struct TileXY {
  int tx, ty;
};
__device__ __forceinline__ TileXY raster(int tile, int tiles_x, int tiles_y, int group_x) {
  const int per_group = group_x * tiles_y;
  const int group = tile / per_group;
  const int first_x = group * group_x;
  const int gx = min(tiles_x - first_x, group_x);
  const int local = tile - group * per_group;
  return {first_x + local % gx, local / gx};
}

// A dense unit's bases from its tile coordinates: the tile's first kernel
// row and column, the problem's ends, no expert.
template <class T>
__device__ __forceinline__ Unit with_dense_bases(const KernelArgs& p, Unit w) {
  w.x0 = w.tx * T::kBlockM;
  w.y0 = w.ty * T::kBlockN;
  w.x_end = p.rows_x;
  w.y_end = p.rows_y;
  w.expert = 0;
  w.n_base = 0;
  return w;
}

// Dense work unit u -> tile and K range (tiles in raster order; a tile's
// splits are adjacent units).
template <class T>
__device__ __forceinline__ Unit dense_unit(const KernelArgs& p, int u) {
  Unit w;
  w.tile = u / p.splits;
  const int split = u - w.tile * p.splits;
  const TileXY t = raster(w.tile, p.tiles_x, p.tiles_y, p.group_x);
  w.tx = t.tx;
  w.ty = t.ty;
  w.kb_begin = split * p.kb_per_split;
  w.kb_end = min(p.k_blocks, w.kb_begin + p.kb_per_split);
  return with_dense_bases<T>(p, w);
}

// 2-CTA clusters (kernel_args.hpp, ClusterArgs): pair unit q of the cluster
// -> this CTA's tile. Pairs are rastered like tiles over the grid of pairs
// (tiles along the paired side halved, rounded up; half the group); the CTA
// of cluster rank r takes the pair's tile 2 i + r along that side, or where
// that is past the edge, repeats tile 2 i as a pad unit. No split-K.
template <class T>
__device__ __forceinline__ Unit pair_unit(const KernelArgs& p, int q, int rank) {
  const bool along_y = p.cluster.share_x;
  const int pairs_x = along_y ? p.tiles_x : (p.tiles_x + 1) / 2;
  const int pairs_y = along_y ? (p.tiles_y + 1) / 2 : p.tiles_y;
  const TileXY t = raster(q, pairs_x, pairs_y, along_y ? p.group_x : max(1, p.group_x / 2));
  const int paired = 2 * (along_y ? t.ty : t.tx) + rank;
  const int edge = along_y ? p.tiles_y : p.tiles_x;
  Unit w;
  w.pad = paired >= edge;
  const int own = w.pad ? paired - rank : paired;
  w.tx = along_y ? t.tx : own;
  w.ty = along_y ? own : t.ty;
  w.tile = w.ty * p.tiles_x + w.tx;
  w.kb_begin = 0;
  w.kb_end = p.k_blocks;
  return with_dense_bases<T>(p, w);
}

// ---- Grouped tiles: (expert, tile) units from the device group array ---------
// Expert e has ceil(rows_e / A-side tile rows) x b_tiles units, laid end to
// end over the experts (empty experts have none); no split-K. The CTA builds
// the table of the experts' unit ends and row ends once (below), then maps a
// unit by binary search over it. rows_e is clamped as fp8kit.h says:
//   contiguous  end_e = min(T, max(end_{e-1}, offs[e])), end_{-1} = 0, start_e = end_{e-1}
//   masked      start_e = e * max_m, end_e = start_e + min(max_m, max(0, counts[e]))

template <class T>
constexpr int a_tile_rows() {  // rows of A (tokens) one tile covers
  return T::kSwap ? T::kBlockN : T::kBlockM;
}

// Every thread of the CTA, before the roles split: each thread takes
// kItems consecutive experts; a block-wide max scan clamps the contiguous
// ends, a sum scan counts the units. The scans' scratch is the first X
// stage, which no TMA writes before the barrier that ends this.
template <class T>
__device__ __forceinline__ void build_group_table(const KernelArgs& p, SharedStorage<T>& smem) {
  if constexpr (T::kGrouped) {
    constexpr int kItems = (kMaxGroupedExperts + kThreads - 1) / kThreads;
    constexpr int kRows = a_tile_rows<T>();
    using Scan = cub::BlockScan<int, kThreads>;
    static_assert(sizeof(typename Scan::TempStorage) <= sizeof(smem.x[0]), "the scan's scratch fits one X stage");
    auto& temp = *reinterpret_cast<typename Scan::TempStorage*>(smem.x[0]);
    const GroupedArgs& g = p.grouped;
    const int e0 = static_cast<int>(threadIdx.x) * kItems;
    int v[kItems], begin[kItems], end[kItems], units[kItems];
    ptx::griddep_wait();  // the group array may come from the kernel before
#pragma unroll
    for (int i = 0; i < kItems; ++i) v[i] = e0 + i < g.experts ? __ldg(g.groups + e0 + i) : INT_MIN;
    if (g.masked) {
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        begin[i] = (e0 + i) * g.rows;
        end[i] = begin[i] + min(g.rows, max(0, v[i]));
      }
    } else {
      int prev[kItems];  // max(0, offs[0 .. e-1])
      Scan(temp).ExclusiveScan(v, prev, 0, cuda::maximum<int>{});
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        begin[i] = min(g.rows, prev[i]);
        end[i] = min(g.rows, max(prev[i], v[i]));
      }
      __syncthreads();  // temp is reused by the second scan
    }
#pragma unroll
    for (int i = 0; i < kItems; ++i)
      units[i] = e0 + i < g.experts ? (end[i] - begin[i] + kRows - 1) / kRows * g.b_tiles : 0;
    Scan(temp).InclusiveSum(units, units);
#pragma unroll
    for (int i = 0; i < kItems; ++i)
      if (e0 + i < g.experts) {
        smem.unit_end[e0 + i] = units[i];
        smem.row_end[e0 + i] = end[i];
      }
    // The scratch's generic writes before the TMA's async-proxy writes there.
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  }
}

template <class T>
__device__ __forceinline__ Unit grouped_unit(const KernelArgs& p, int u, const SharedStorage<T>& smem) {
  using Cfg = T;
  const GroupedArgs& g = p.grouped;
  int lo = 0, hi = g.experts - 1;  // the first expert whose units end past u
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (smem.unit_end[mid] > u) hi = mid;
    else lo = mid + 1;
  }
  const int e = lo;
  const int first = e > 0 ? smem.unit_end[e - 1] : 0;
  const int row_begin = g.masked ? e * g.rows : (e > 0 ? smem.row_end[e - 1] : 0);
  const int row_end = smem.row_end[e];
  const int a_tiles = (row_end - row_begin + a_tile_rows<T>() - 1) / a_tile_rows<T>();
  // A tiles fastest: the units running together share the expert's B tiles.
  const int local = u - first;
  const int a_t = local % a_tiles, b_t = local / a_tiles;
  Unit w;
  w.tile = u;
  w.kb_begin = 0;
  w.kb_end = p.k_blocks;
  w.expert = e;
  w.n_base = e * g.n;
  w.tx = Cfg::kSwap ? b_t : a_t;
  w.ty = Cfg::kSwap ? a_t : b_t;
  const int a0 = row_begin + a_t * a_tile_rows<T>();
  const int b0 = w.n_base + b_t * (Cfg::kSwap ? Cfg::kBlockM : Cfg::kBlockN);
  w.x0 = Cfg::kSwap ? b0 : a0;
  w.y0 = Cfg::kSwap ? a0 : b0;
  w.x_end = Cfg::kSwap ? w.n_base + g.n : row_end;
  w.y_end = Cfg::kSwap ? row_end : w.n_base + g.n;
  return w;
}

// 2-CTA clusters (kernel_args.hpp) in this tile: 1, else 0 (a shift of the grid).
template <class T>
__device__ __forceinline__ int cluster_shift(const KernelArgs& p) {
  return T::kClusters && p.cluster.size > 1 ? 1 : 0;
}

// Work unit u of the CTA's launch, and how many there are.
template <class T>
__device__ __forceinline__ Unit unit_of(const KernelArgs& p, int u, const SharedStorage<T>& smem) {
  if constexpr (T::kGrouped) {
    return grouped_unit<T>(p, u, smem);
  } else {
    if (cluster_shift<T>(p)) return pair_unit<T>(p, u, static_cast<int>(cuda::ptx::get_sreg_cluster_ctarank()));
    return dense_unit<T>(p, u);
  }
}
template <class T>
__device__ __forceinline__ int unit_count(const KernelArgs& p, const SharedStorage<T>& smem) {
  if constexpr (T::kGrouped) return smem.unit_end[p.grouped.experts - 1];
  else return p.num_units;
}

// The CTA's units in order: for (int u = first_unit<T>(p); u < unit_count<T>(p, smem); u = next_unit<T>(p, u)).
// In 2-CTA clusters both CTAs of cluster blockIdx.x / 2 walk the same pair units.
template <class T>
__device__ __forceinline__ int first_unit(const KernelArgs& p) { return blockIdx.x >> cluster_shift<T>(p); }
template <class T>
__device__ __forceinline__ int next_unit(const KernelArgs& p, int u) { return u + (gridDim.x >> cluster_shift<T>(p)); }

// Position in the ring of kStages stages; the phase flips at each wrap.
template <int kStages>
struct PipelineState {
  int stage = 0;
  uint32_t phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1u;
    }
  }
};

}  // namespace fp8kit::sm90
