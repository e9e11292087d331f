// Host plan of the native Hopper path: tile configuration, split-K and
// rasterisation from M, N, K and the SM count, with a simple model (no
// per-shape table). The constants were fitted to H200 sweeps (docs/perf.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/math.hpp"
#include "gemm/gemm_params.hpp"
#include "gemm/sm90/tile_config.hpp"

namespace fp8kit::sm90 {

// At or below this M the problem is a weight stream (decode): swap A and B so
// that N fills the 128-row tile side and the few tokens sit in wgmma N = 64.
constexpr int kSwapMaxM = 64;
// Decode split-K: as many splits as fill one wave of SMs, while each split
// keeps at least one pipeline's worth of K blocks (the swapped tile's 8
// stages), and only for streams of at least kMinDecodeSplitStream K blocks.
// Measured without the memset (v12, docs/perf.md): going from 1 to 2-4
// splits still costs ~2 us, which K <= 4096 (32 K blocks) does not win back
// (1x4096x4096 in a graph: 9.4 us unsplit, 11.2 with 4 splits of 8), while
// the long streams gain (1x4096x7168: 19.1 -> 14.2 us at 4 splits of 14;
// 1x2112x7168: 16.3 -> 13.1 at 7 of 8). Beyond one wave splits lost up to
// 2x in the v10 sweep.
constexpr int kMinSplitKBlocksSmall = 8;
constexpr int kMinDecodeSplitStream = 48;
// Normal tiles: split-K only while each split covers this many K blocks.
constexpr int kMinSplitKBlocksLarge = 8;
// Tiles along X per rasterisation group: a wave of ~132 tiles then covers
// about group_x x (132 / group_x) tiles of the output.
constexpr int kGroupX = 16;
constexpr int64_t kWorkspaceAlign = 256;
// Split-K arrival counters sit at the head of the workspace, one region of
// fixed size for every plan: a workspace lent with the zeroed promise
// (fp8kit_gemm_options.workspace_zeroed) then keeps every plan's counters
// at zero, while the partials after them may hold anything. Plans with more
// tiles do not split.
constexpr int kMaxSplitTiles = 1024;
constexpr size_t kCounterBytes = size_t{kMaxSplitTiles} * kConsumers * sizeof(unsigned);
static_assert(kCounterBytes % kWorkspaceAlign == 0, "partials start aligned");
static_assert(kSwapMaxM <= TileConfig<Tile::k128x64Swap>::kBlockN, "a swapped tile has one tile along Y");
// Makespan model of the normal tiles, in times of one 128 x 128 K block:
// waves x (K blocks per unit x block cost + tile overhead). The 256 x 128 K
// block costs 2.0-2.2 of the 128 x 128 one (its single accumulator waits
// for each sub-tile's wgmma; the 128 x 128 tile double-buffers), and a tile
// costs about 4 K blocks beyond its K loop (epilogue, pipeline fill).
constexpr double k128x128BlockCost = 1.0;
constexpr double k128x128TileOverhead = 4.0;
constexpr double k256x128BlockCost = 2.2;
constexpr double k256x128TileOverhead = 6.0;
// Block-scale tiles keep one accumulator at 128 x 128 too, so the 256 x 128
// tile costs less beside it: compared by waves only, at this cost.
constexpr double k256x128WaveCostBlockScales = 1.8;

struct Plan {
  Tile tile;
  bool swap;
  bool split_k;           // the tile can split K (not the ping-pong tiles)
  int block_m, block_n;
  int tiles_x, tiles_y, group_x;
  int k_blocks, splits, kb_per_split, num_units, grid;
  int partial_regs;       // accumulator registers per thread a split-K partial keeps
  size_t counter_bytes;   // split-K arrival counters (kCounterBytes; 0 without split-K), at offset 0
  size_t partial_bytes;   // split-K partial tiles (0 without split-K), after the counters
  size_t workspace_bytes() const { return partial_bytes + counter_bytes; }
};

template <Tile T>
constexpr Plan shape_of() {
  Plan pl{};
  pl.tile = T;
  pl.swap = TileConfig<T>::kSwap;
  pl.split_k = TileConfig<T>::kSplitK;
  pl.block_m = TileConfig<T>::kBlockM;
  pl.block_n = TileConfig<T>::kBlockN;
  return pl;
}

// Waves of a persistent launch of `units` equal units on `sm_count` CTAs.
inline int64_t waves_of(int64_t units, int sm_count) { return ceil_div(units, sm_count); }

inline Plan shape_of(Tile t) {
  switch (t) {
    case Tile::k128x128: return shape_of<Tile::k128x128>();
    case Tile::k128x128Block: return shape_of<Tile::k128x128Block>();
    case Tile::k128x64Swap: return shape_of<Tile::k128x64Swap>();
    case Tile::k128x64SwapBlock: return shape_of<Tile::k128x64SwapBlock>();
    case Tile::k256x128: return shape_of<Tile::k256x128>();
    case Tile::k128x128PingPong: return shape_of<Tile::k128x128PingPong>();
    case Tile::k128x128PingPongBlock: return shape_of<Tile::k128x128PingPongBlock>();
    default: return shape_of<Tile::k256x128Block>();
  }
}

// The plan of tile `t` with (at most) `splits` K splits: the grid, and the
// workspace the splits need. Too little workspace: no split.
inline Plan plan_for(Tile t, int splits, int m, int n, int k, int sm_count, size_t workspace_available) {
  Plan pl = shape_of(t);
  const int rows_x = pl.swap ? n : m;
  const int rows_y = pl.swap ? m : n;
  pl.k_blocks = static_cast<int>(ceil_div(k, kBlockK));
  pl.tiles_x = static_cast<int>(ceil_div(rows_x, pl.block_m));
  pl.tiles_y = static_cast<int>(ceil_div(rows_y, pl.block_n));
  pl.group_x = std::min(pl.tiles_x, kGroupX);
  const int64_t tiles = int64_t{pl.tiles_x} * pl.tiles_y;
  if (!pl.split_k) splits = 1;
  splits = std::max(1, std::min(splits, pl.k_blocks));
  pl.kb_per_split = static_cast<int>(ceil_div(pl.k_blocks, splits));
  splits = static_cast<int>(ceil_div(pl.k_blocks, pl.kb_per_split));  // no empty split
  // Swapped tiles: the registers of the token columns inside D (fragment.cuh:
  // column 8j + 2 (lane % 4) + e at register 4j + 2h + e); the others: all.
  const int acc_regs = pl.block_n / 2;
  pl.partial_regs = pl.swap ? std::min(acc_regs, 4 * static_cast<int>(ceil_div(rows_y, 8))) : acc_regs;
  if (splits > 1 && tiles > kMaxSplitTiles) splits = 1;
  if (splits > 1) {
    const int sub_tiles = pl.block_m / kWgmmaM;
    const size_t partial = static_cast<size_t>(tiles) * splits * sub_tiles * pl.partial_regs * kWarpgroupThreads *
                           sizeof(float);
    pl.counter_bytes = kCounterBytes;
    pl.partial_bytes = static_cast<size_t>(round_up(static_cast<int64_t>(partial), kWorkspaceAlign));
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

// Decode split count: as many splits as fill one wave, each keeping
// kMinSplitKBlocksSmall K blocks; none for short streams, nor once the tiles
// fill the SMs (a full grid already streams near the roof: v10 sweep,
// 1x57344x8192, 448 tiles, 0.82 of it unsplit).
inline int decode_splits(const Plan& one, int sm_count) {
  const int64_t tiles = int64_t{one.tiles_x} * one.tiles_y;
  if (tiles >= sm_count || one.k_blocks < kMinDecodeSplitStream) return 1;
  return std::max(1, std::min(static_cast<int>(sm_count / tiles), one.k_blocks / kMinSplitKBlocksSmall));
}

// `workspace_available`: bytes the caller passed; SIZE_MAX asks for the best plan.
//
// Decode (M <= 64) takes the swapped tile, split along K to fill one wave
// (decode_splits). Otherwise the 128 x 128 or the 256 x 128 tile, whichever
// the makespan model above says is shorter; split-K only when the 128 x 128
// tiles fill at most half the SMs.
// Splits are costly here: a split writes and reads back an f32 partial tile,
// 4x the bytes of its bf16 output (measured in docs/perf.md).
inline Plan cooperative_plan(int m, int n, int k, bool block_scales, int sm_count, size_t workspace_available) {
  const bool swap = m <= kSwapMaxM;
  const int k_blocks = static_cast<int>(ceil_div(k, kBlockK));
  if (swap) {
    const Tile t = block_scales ? Tile::k128x64SwapBlock : Tile::k128x64Swap;
    return plan_for(t, decode_splits(plan_for(t, 1, m, n, k, sm_count, 0), sm_count), m, n, k, sm_count,
                    workspace_available);
  }
  const Tile large = block_scales ? Tile::k128x128Block : Tile::k128x128;
  const Tile wide = block_scales ? Tile::k256x128Block : Tile::k256x128;
  const Plan l1 = plan_for(large, 1, m, n, k, sm_count, 0);
  const Plan w1 = plan_for(wide, 1, m, n, k, sm_count, 0);
  const int64_t large_tiles = int64_t{l1.tiles_x} * l1.tiles_y;
  const int64_t wide_tiles = int64_t{w1.tiles_x} * w1.tiles_y;
  if (large_tiles >= sm_count) {
    const double large_waves = static_cast<double>(waves_of(large_tiles, sm_count));
    const double wide_waves = static_cast<double>(waves_of(wide_tiles, sm_count));
    const bool wide_wins =
        block_scales ? wide_waves * k256x128WaveCostBlockScales < large_waves
                     : wide_waves * (k_blocks * k256x128BlockCost + k256x128TileOverhead) <
                           large_waves * (k_blocks * k128x128BlockCost + k128x128TileOverhead);
    return wide_wins ? w1 : l1;
  }
  const int splits =
      std::max(1, std::min(static_cast<int>(sm_count / large_tiles), k_blocks / kMinSplitKBlocksLarge));
  return plan_for(large, splits, m, n, k, sm_count, workspace_available);
}

// ---- Schedule: cooperative or ping-pong (issue 11) -----------------------------
// kAuto: the plan's rule; the others force one (FP8KIT_SM90_SCHEDULE in
// path.cu, a development override for benchmarks and forced tests).
enum class Schedule { kAuto, kCooperative, kPingPong };

// Whether the ping-pong tile (pingpong.cuh) beats the cooperative plan
// `coop`. Not yet: measured in docs/perf.md (v13-pingpong).
inline bool pingpong_wins(const Plan& coop, int sm_count) {
  static_cast<void>(coop);
  static_cast<void>(sm_count);
  return false;
}

// The cooperative plan, or its ping-pong twin (never split, never swapped)
// where the schedule asks for it or the rule above picks it.
inline Plan make_plan(int m, int n, int k, bool block_scales, int sm_count, size_t workspace_available,
                      Schedule schedule = Schedule::kAuto) {
  const Plan coop = cooperative_plan(m, n, k, block_scales, sm_count, workspace_available);
  if (coop.swap || schedule == Schedule::kCooperative) return coop;
  if (schedule == Schedule::kAuto && !pingpong_wins(coop, sm_count)) return coop;
  const Tile t = block_scales ? Tile::k128x128PingPongBlock : Tile::k128x128PingPong;
  return plan_for(t, 1, m, n, k, sm_count, workspace_available);
}

}  // namespace fp8kit::sm90
