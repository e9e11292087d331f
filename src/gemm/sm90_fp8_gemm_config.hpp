// Host heuristics of the native Hopper path: tile configuration, split-K and
// rasterisation from M, N, K and the SM count, with a simple model (no
// per-shape table).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "gemm/sm90_fp8_gemm.cuh"

namespace fp8kit::sm90 {

// At or below this M the problem is a weight stream (decode): swap A and B so
// that N fills the 128-row tile side and the few tokens sit in wgmma N = 64.
constexpr int kSwapMaxM = 64;
// Split-K only while each split still covers this many 128-deep K blocks:
// a split's partial tile (BLK_M x BN f32) is written and read back once, which
// must stay small beside its loads (decode) or its MMA time (large tiles).
constexpr int kMinSplitKBlocksSmall = 2;
constexpr int kMinSplitKBlocksLarge = 8;
// Tiles along X per rasterisation group: a wave of ~132 tiles then covers
// about group_x x (132 / group_x) tiles, close to square in bytes for 128 x 256.
constexpr int kGroupX = 16;
constexpr size_t kWorkspaceAlign = 256;

struct Plan {
  Tile tile;
  bool swap;
  int block_n;
  int tiles_x, tiles_y, group_x;
  int k_blocks, splits, kb_per_split, num_units, grid;
  size_t partial_bytes;   // split-K partial tiles (0 without split-K)
  size_t counter_bytes;   // split-K arrival counters
  size_t workspace_bytes() const { return partial_bytes + counter_bytes; }
};

constexpr int ceil_div(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

// Makespan model of a persistent launch, in K-block times of one CTA: waves
// of units times K blocks per unit, plus a split's partial tile written and
// the last split's reduction (each partial ~2 K blocks' worth of traffic).
constexpr int kMaxSplitsLarge = 8;
constexpr double kSplitReduceFixed = 2.0;   // K blocks: writing the partial, the counter
constexpr double kSplitReducePer = 2.0;     // K blocks per partial read by the last split
constexpr double kSplitMinGain = 1.15;      // change the split only for a clear predicted gain
constexpr size_t kMaxSplitWorkspace = size_t{128} << 20;

inline double split_makespan(int64_t tiles, int k_blocks, int splits, int sm_count) {
  const int64_t waves = (tiles * splits + sm_count - 1) / sm_count;
  const double reduce = splits > 1 ? kSplitReduceFixed + kSplitReducePer * splits : 0.0;
  return static_cast<double>(waves) * ceil_div(k_blocks, splits) + reduce;
}

inline int block_n_of(Tile t) {
  switch (t) {
    case Tile::kLarge: return TileTraits<Tile::kLarge>::kBlockN;
    case Tile::kLargeBlock: return TileTraits<Tile::kLargeBlock>::kBlockN;
    case Tile::kSmall: return TileTraits<Tile::kSmall>::kBlockN;
    default: return TileTraits<Tile::kSmallBlock>::kBlockN;
  }
}

// `workspace_available`: bytes the caller passed; SIZE_MAX asks for the best plan.
inline Plan make_plan(int m, int n, int k, bool block_scales, int sm_count, size_t workspace_available) {
  Plan pl{};
  pl.swap = m <= kSwapMaxM;
  pl.tile = pl.swap ? (block_scales ? Tile::kSmallBlock : Tile::kSmall)
                    : (block_scales ? Tile::kLargeBlock : Tile::kLarge);
  pl.block_n = block_n_of(pl.tile);
  const int rows_x = pl.swap ? n : m;
  const int rows_y = pl.swap ? m : n;
  pl.tiles_x = ceil_div(rows_x, kBlockM);
  pl.tiles_y = ceil_div(rows_y, pl.block_n);
  pl.group_x = std::min(pl.tiles_x, kGroupX);
  pl.k_blocks = ceil_div(k, kBlockK);
  const int64_t tiles = int64_t{pl.tiles_x} * pl.tiles_y;

  // Split-K when the tiles alone leave SMs idle: as many splits as fill one
  // wave, while each split keeps enough K blocks.
  const int min_kb = pl.swap ? kMinSplitKBlocksSmall : kMinSplitKBlocksLarge;
  int splits = 1;
  if (tiles < sm_count) splits = std::max(1, std::min(static_cast<int>(sm_count / tiles), pl.k_blocks / min_kb));
  // Large tiles are compute-bound: a partly filled last wave costs a whole
  // one. Where another split count shortens the makespan by a clear margin
  // (stream-K's point, kept to whole splits), take it.
  if (!pl.swap) {
    const size_t tile_bytes = size_t{kBlockM} * pl.block_n * sizeof(float);
    int best = splits;
    for (int s = 1; s <= std::min(kMaxSplitsLarge, pl.k_blocks / min_kb); ++s)
      if (static_cast<size_t>(tiles) * s * tile_bytes <= kMaxSplitWorkspace &&
          split_makespan(tiles, pl.k_blocks, s, sm_count) < split_makespan(tiles, pl.k_blocks, best, sm_count))
        best = s;
    if (split_makespan(tiles, pl.k_blocks, splits, sm_count) >=
        kSplitMinGain * split_makespan(tiles, pl.k_blocks, best, sm_count))
      splits = best;
  }
  pl.kb_per_split = ceil_div(pl.k_blocks, splits);
  splits = ceil_div(pl.k_blocks, pl.kb_per_split);  // no empty split
  if (splits > 1) {
    const size_t partial = static_cast<size_t>(tiles) * splits * kBlockM * pl.block_n * sizeof(float);
    const size_t counters = static_cast<size_t>(tiles) * kConsumers * sizeof(unsigned);
    pl.partial_bytes = (partial + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
    pl.counter_bytes = (counters + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
    if (pl.workspace_bytes() > workspace_available) {  // too little workspace: don't split
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

}  // namespace fp8kit::sm90
