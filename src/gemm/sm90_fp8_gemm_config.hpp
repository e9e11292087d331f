// Host heuristics of the native Hopper path: tile configuration, split-K and
// rasterisation from M, N, K and the SM count, with a simple model (no
// per-shape table).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemm/gemm_params.hpp"
#include "gemm/sm90_fp8_gemm_traits.hpp"

namespace fp8kit::sm90 {

// At or below this M the problem is a weight stream (decode): swap A and B so
// that N fills the 128-row tile side and the few tokens sit in wgmma N = 64.
constexpr int kSwapMaxM = 64;
// Split-K only while each split still covers this many 128-deep K blocks.
// A split costs a partial tile written, an arrival and the last split's
// reads (a chain of L2 round trips), plus the counters' memset: in decode it
// pays only for long weight streams. Fitted to the H200 sweep of
// docs/perf.md (v10: 28 decode shapes x every split count): with 24 the
// rule's choices are within 1% of the best (geomean, tensor and block
// scales); with 2 (v9) they were 7% / 3.5% slower than the best.
constexpr int kMinSplitKBlocksSmall = 24;
constexpr int kMinSplitKBlocksLarge = 8;
// Tiles along X per rasterisation group: a wave of ~132 tiles then covers
// about group_x x (132 / group_x) tiles of the output.
constexpr int kGroupX = 16;
constexpr size_t kWorkspaceAlign = 256;
// Makespan model of the normal tiles, in times of one 128 x 128 K block:
// waves x (K blocks per unit x kBlockCost + kTileOverhead). Fitted to the
// H200 sweep of docs/perf.md (v8: 12 shapes x both tiles): the 256 x 128 K
// block costs 2.0-2.2 of the 128 x 128 one (its single accumulator waits
// for each sub-tile's wgmma; the 128 x 128 tile double-buffers), and a tile
// costs about 4 K blocks beyond its K loop (epilogue, pipeline fill).
constexpr double kLargeBlockCost = 1.0;
constexpr double kLargeTileOverhead = 4.0;
constexpr double kWideBlockCost = 2.2;
constexpr double kWideTileOverhead = 6.0;
// Block-scale tiles keep one accumulator at 128 x 128 too, so the wide tile
// costs less beside it: v8's rule, waves only, at 1.8 (block geomean 0.916
// of cuBLASLt on the H200, against 0.831 under the model above).
constexpr double kWideBlockCostBlockScales = 1.8;

struct Plan {
  Tile tile;
  bool swap;
  int block_m, block_n;
  int tiles_x, tiles_y, group_x;
  int k_blocks, splits, kb_per_split, num_units, grid;
  size_t partial_bytes;   // split-K partial tiles (0 without split-K)
  size_t counter_bytes;   // split-K arrival counters
  size_t workspace_bytes() const { return partial_bytes + counter_bytes; }
};

constexpr int ceil_div(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

template <Tile T>
constexpr Plan shape_of() {
  Plan pl{};
  pl.tile = T;
  pl.swap = TileTraits<T>::kSwap;
  pl.block_m = TileTraits<T>::kBlockM;
  pl.block_n = TileTraits<T>::kBlockN;
  return pl;
}

// Waves of a persistent launch of `units` equal units on `sm_count` CTAs.
inline int64_t waves_of(int64_t units, int sm_count) { return (units + sm_count - 1) / sm_count; }

inline Plan shape_of(Tile t) {
  switch (t) {
    case Tile::kLarge: return shape_of<Tile::kLarge>();
    case Tile::kLargeBlock: return shape_of<Tile::kLargeBlock>();
    case Tile::kSmall: return shape_of<Tile::kSmall>();
    case Tile::kSmallBlock: return shape_of<Tile::kSmallBlock>();
    case Tile::kWide: return shape_of<Tile::kWide>();
    default: return shape_of<Tile::kWideBlock>();
  }
}

// The plan of tile `t` with (at most) `splits` K splits: the grid, and the
// workspace the splits need. Too little workspace: no split.
inline Plan plan_for(Tile t, int splits, int m, int n, int k, int sm_count, size_t workspace_available) {
  Plan pl = shape_of(t);
  const int rows_x = pl.swap ? n : m;
  const int rows_y = pl.swap ? m : n;
  pl.k_blocks = ceil_div(k, kBlockK);
  pl.tiles_x = ceil_div(rows_x, pl.block_m);
  pl.tiles_y = ceil_div(rows_y, pl.block_n);
  pl.group_x = std::min(pl.tiles_x, kGroupX);
  const int64_t tiles = int64_t{pl.tiles_x} * pl.tiles_y;
  splits = std::max(1, std::min(splits, pl.k_blocks));
  pl.kb_per_split = ceil_div(pl.k_blocks, splits);
  splits = ceil_div(pl.k_blocks, pl.kb_per_split);  // no empty split
  if (splits > 1) {
    const size_t partial = static_cast<size_t>(tiles) * splits * pl.block_m * pl.block_n * sizeof(float);
    const size_t counters = static_cast<size_t>(tiles) * kConsumers * sizeof(unsigned);
    pl.partial_bytes = (partial + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
    pl.counter_bytes = (counters + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
    if (pl.workspace_bytes() > workspace_available) {
      splits = 1;
      pl.partial_bytes = pl.counter_bytes = 0;
    }
  }
  if (splits == 1) pl.kb_per_split = pl.k_blocks;
  pl.splits = splits;
  const int64_t units = tiles * splits;
  pl.num_units = static_cast<int>(units);
  pl.grid = static_cast<int>(std::min<int64_t>(units, sm_count));
  return pl;
}

// `workspace_available`: bytes the caller passed; SIZE_MAX asks for the best plan.
//
// Decode (M <= 64) takes the swapped tile, split along K while its tiles
// leave SMs idle. Otherwise the 128 x 128 or the 256 x 128 tile, whichever
// the makespan model above says is shorter; split-K only when the 128 x 128
// tiles fill at most half the SMs.
// NOTE: splits are costly here. A split writes and reads back an f32 partial
// tile, 4x the bytes of its bf16 output: on the H200, 512 x 4096 x 4096 took
// 16.7 / 28.2 / 46.5 us with 1 / 2 / 4 splits (v8 sweep), and v5's makespan
// model that split grids of 1-2.5 waves lost up to 3x.
inline Plan make_plan(int m, int n, int k, bool block_scales, int sm_count, size_t workspace_available) {
  const bool swap = m <= kSwapMaxM;
  const int k_blocks = ceil_div(k, kBlockK);
  if (swap) {
    const Tile t = block_scales ? Tile::kSmallBlock : Tile::kSmall;
    const Plan one = plan_for(t, 1, m, n, k, sm_count, 0);
    const int64_t tiles = int64_t{one.tiles_x} * one.tiles_y;
    // Split-K when the tiles alone leave SMs idle: as many splits as fill one
    // wave, while each split keeps enough K blocks.
    int splits = 1;
    if (tiles < sm_count)
      splits = std::max(1, std::min(static_cast<int>(sm_count / tiles), k_blocks / kMinSplitKBlocksSmall));
    return plan_for(t, splits, m, n, k, sm_count, workspace_available);
  }
  const Tile large = block_scales ? Tile::kLargeBlock : Tile::kLarge;
  const Tile wide = block_scales ? Tile::kWideBlock : Tile::kWide;
  const Plan l1 = plan_for(large, 1, m, n, k, sm_count, 0);
  const Plan w1 = plan_for(wide, 1, m, n, k, sm_count, 0);
  const int64_t large_tiles = int64_t{l1.tiles_x} * l1.tiles_y;
  const int64_t wide_tiles = int64_t{w1.tiles_x} * w1.tiles_y;
  if (large_tiles >= sm_count) {
    const double large_waves = static_cast<double>(waves_of(large_tiles, sm_count));
    const double wide_waves = static_cast<double>(waves_of(wide_tiles, sm_count));
    const bool wide_wins =
        block_scales ? wide_waves * kWideBlockCostBlockScales < large_waves
                     : wide_waves * (k_blocks * kWideBlockCost + kWideTileOverhead) <
                           large_waves * (k_blocks * kLargeBlockCost + kLargeTileOverhead);
    return wide_wins ? w1 : l1;
  }
  const int splits =
      std::max(1, std::min(static_cast<int>(sm_count / large_tiles), k_blocks / kMinSplitKBlocksLarge));
  return plan_for(large, splits, m, n, k, sm_count, workspace_available);
}

// Launches plan `pl` (from make_plan, or from plan_for in the harness's
// configuration sweeps); the caller has validated `p` and accepted the path.
cudaError_t launch_plan(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                        const Plan& pl, const char** kernel_name);

}  // namespace fp8kit::sm90
