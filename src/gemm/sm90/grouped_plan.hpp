// Host plan of the native Hopper grouped path (grouped_path.cu): the tile
// from what the host knows (layout, E, T or max_m, N, K, the scale modes and
// accumulation), never from the device group sizes; the persistent grid; the
// sizes it refuses.
// Plain C++: the CPU tests include it.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "core/math.hpp"
#include "gemm/grouped/grouped_params.hpp"
#include "gemm/sm90/plan.hpp"
#include "gemm/sm90/tile_config.hpp"

namespace fp8kit::sm90 {

struct GroupedPlan {
  Shape shape;
  bool swap;          // X = B (weights), Y = A (tokens): the decode orientation
  int a_rows;         // rows of A (tokens) one tile covers: 128, or 64 / 16 swapped
  int b_rows;         // rows of one expert's B (N) one tile covers: 128
  int b_tiles;        // ceil(N / b_rows): the tiles of one expert along N
  int a_box_rows;     // rows of A one TMA box loads per tile: a_rows, or fewer in masked decode (below)
  int stage_tx_bytes;  // bytes TMA lands in one stage: the X and Y boxes of one K block
  int64_t max_units;  // bound on the (expert, tile) units: grouped_m_slots(a_rows) x b_tiles
  int grid;           // persistent CTAs: min(max_units, SMs)
};

// Few rows per expert (decode) take the dense path's swapped tile: N fills
// the 128-row side, the tokens sit in wgmma N = 64. The bound the host has:
// masked max_m; contiguous the mean T / E (a skewed batch still runs
// correctly, with more 64-row tiles on its large experts).
inline bool grouped_swap(const GroupedParams& g) {
  const int64_t rows_per_expert =
      g.layout == FP8KIT_GROUPED_MASKED ? g.rows : ceil_div(g.rows, std::max(1, g.experts));
  return rows_per_expert <= kSwapMaxM;
}

// Masked decode of at most 16 tokens per expert (the slab's max_m), vector
// scales: the 16-token swapped tile. Its one A tile per expert keeps each
// expert's weights streamed once; contiguous batches keep the 64-token tile
// (a skewed expert of many rows would stream its weights once per 16).
// Block scales keep the 64-token block tile.
constexpr int kDecodeMaxM = 16;
inline bool grouped_decode16(const GroupedParams& g) {
  return g.layout == FP8KIT_GROUPED_MASKED && g.rows <= kDecodeMaxM && g.dense.a_scale_mode != FP8KIT_SCALE_BLOCK;
}

// A grouped plan's shape fields, from the tile table.
constexpr GroupedPlan grouped_shape(Shape s) {
  GroupedPlan pl{};
  pl.shape = s;
  pl.swap = row(s).swap;
  pl.a_rows = pl.swap ? row(s).block_n : row(s).block_m;
  pl.b_rows = pl.swap ? row(s).block_m : row(s).block_n;
  return pl;
}

// Rows of A one box loads. A masked slab holds max_m rows and a swapped
// tile's 64 token rows start at its expert's slab (one A tile per expert),
// so rows past max_m are the next experts' tokens, which feed only output
// columns that are not stored. Masked decode (max_m 16) then streams 16 x
// 128 B of tokens per K block beside 128 x 128 B of weights instead of
// 64 x 128 B: a third less traffic into each SM. The tile rows the box
// leaves unwritten hold stale stage data; they too feed only unstored
// columns. Contiguous and unswapped tiles load whole tiles.
inline int grouped_a_box_rows(const GroupedParams& g, const GroupedPlan& pl) {
  if (!pl.swap || g.layout != FP8KIT_GROUPED_MASKED || g.rows <= 0) return pl.a_rows;
  return std::min(pl.a_rows, g.rows);
}

// FAST accumulation, normal tiles: the 128 x 256 tile (FAST only) where the
// dense makespan model (plan.hpp's FAST costs: 1.77 per K block against two
// 128 x 128 blocks' 2.0, a larger fixed cost) takes it over the host's bound
// on the units. Both tiles cover 128 tokens, so the A tiles are the same and
// the 256-wide one has half the units: it wins on large routed batches,
// while a batch of about a wave of 128 x 128 units keeps their finer grid.
// With at most one A tile per expert (mean rows or max_m <= 128) either tile
// reads each expert's weights once and the batch streams them, which the
// model does not count: DeepSeek-V3 gate_up at 4,096 tokens (128 rows per
// expert) took 1.03x the 128 x 128 tile's time on 128 x 256 (H100,
// docs/perf/log/2026-12-07-grouped-fast-128x256.md), where 256 rows per
// expert gained 4-13%.
inline bool grouped_fast_wide(const GroupedParams& g, int sm_count) {
  const int tile_rows = row(Shape::k128x128).block_m;
  const int64_t rows_per_expert =
      g.layout == FP8KIT_GROUPED_MASKED ? g.rows : ceil_div(g.rows, std::max(1, g.experts));
  if (rows_per_expert <= tile_rows) return false;
  const int64_t slots = grouped_m_slots(g, tile_rows);
  const int k_blocks = static_cast<int>(ceil_div(g.dense.k, kBlockK));
  auto cost = [&](Shape s, const TileCost& c) {
    const int64_t units = slots * ceil_div(g.dense.n, row(s).block_n);
    return static_cast<double>(waves_of(units, sm_count)) * (k_blocks * c.block + c.overhead);
  };
  return cost(Shape::k128x256, kFastCosts.t128x256) < cost(Shape::k128x128, kFastCosts.t128x128);
}

// fast_accum: the call's accumulation is FAST (options.accumulation).
inline GroupedPlan make_grouped_plan(const GroupedParams& g, int sm_count, bool fast_accum = false) {
  const bool block = g.dense.a_scale_mode == FP8KIT_SCALE_BLOCK;
  GroupedPlan pl;
  if (grouped_decode16(g))
    pl = grouped_shape(Shape::k128x16Swap);
  else if (grouped_swap(g))
    pl = grouped_shape(block ? Shape::k128x64SwapBlock : Shape::k128x64Swap);
  else if (!block && fast_accum && grouped_fast_wide(g, sm_count))
    pl = grouped_shape(Shape::k128x256);
  else
    pl = grouped_shape(block ? Shape::k128x128Block : Shape::k128x128);
  pl.b_tiles = static_cast<int>(ceil_div(g.dense.n, pl.b_rows));
  pl.a_box_rows = grouped_a_box_rows(g, pl);
  pl.stage_tx_bytes = (pl.a_box_rows + pl.b_rows) * kBlockK;  // FP8: one byte per element
  // No rows at all (T = 0, max_m = 0): no unit, no launch (A's map would be empty).
  pl.max_units = g.rows == 0 ? 0 : grouped_m_slots(g, pl.a_rows) * pl.b_tiles;
  pl.grid = static_cast<int>(std::min<int64_t>(pl.max_units, sm_count));
  return pl;
}

// Largest row a tile of A or B may start at: coordinates stay int-safe.
constexpr int64_t kMaxGroupedRows = INT_MAX - 2 * kMaxBlockM;

// Why the grouped kernel cannot take these sizes; empty if it can.
inline std::string grouped_limit_refusal(const GroupedParams& g, const GroupedPlan& pl) {
  if (g.experts > kMaxGroupedExperts)
    return "experts = " + std::to_string(g.experts) + ": sm90_wgmma's grouped kernel takes at most " +
           std::to_string(kMaxGroupedExperts) + " (its unit table lives in shared memory)";
  const int64_t a_rows = g.layout == FP8KIT_GROUPED_MASKED ? int64_t{g.experts} * g.rows : g.rows;
  if (a_rows > kMaxGroupedRows || int64_t{g.experts} * g.dense.n > kMaxGroupedRows)
    return "sm90_wgmma's grouped kernel takes the rows of A (T or E * max_m) and E * N below 2^31 - 512";
  if (pl.max_units > INT_MAX) return "the (expert, tile) units exceed 2^31 - 1";
  return {};
}

}  // namespace fp8kit::sm90
