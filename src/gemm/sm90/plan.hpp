// Host plan of the native Hopper path: tile configuration, split-K and
// rasterisation from M, N, K and the SM count, with a simple model (no
// per-shape table). The constants were fitted to H200 sweeps (docs/perf/README.md
// lists each and what fit it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/environment.hpp"
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
// Measured without the memset (docs/perf/log/2026-12-01-splitk-without-memset.md): going from 1 to 2-4
// splits still costs ~2 us, which K <= 4096 (32 K blocks) does not win back
// (1x4096x4096 in a graph: 9.4 us unsplit, 11.2 with 4 splits of 8), while
// the long streams gain (1x4096x7168: 19.1 -> 14.2 us at 4 splits of 14;
// 1x2112x7168: 16.3 -> 13.1 at 7 of 8). Beyond one wave splits lost up to
// 2x in the decode sweep of docs/perf/log/2026-11-30-pipeline-and-tiles.md.
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
static_assert(kSwapMaxM <= row(Shape::k128x64Swap).block_n, "a swapped tile has one tile along Y");
// Makespan model of the normal tiles, in times of one 128 x 128 K block:
// waves x (K blocks per unit x block cost + tile overhead), a cost per tile
// shape and per way its K blocks are summed (TileCosts below). A tile costs
// about 4 K blocks beyond its K loop (epilogue, pipeline fill; the v6 K sweep).
struct TileCost {
  double block;     // one K block of the tile, in 128 x 128 K blocks
  double overhead;  // the tile beyond its K loop, in the same unit
};
struct TileCosts {
  TileCost t128x128, t256x128, t128x192, t128x256, t128x160;
};
// A tile a way of summing cannot run (the 128 x 256 tile promoted): never the shortest.
constexpr double kNever = std::numeric_limits<double>::infinity();
// Promoted vector scales. The 256 x 128 K block costs 2.0-2.2 of the
// 128 x 128 one (its single accumulator waits for each sub-tile's wgmma;
// the 128 x 128 tile double-buffers; the v8 sweep). The 128 x 192 tile:
// 1.5x the FLOPs of a 128 x 128 tile per K block for 1.25x its X and Y
// bytes, with one accumulator (the other consumer's wgmma covers a
// promotion); 1.6 fits the long-K tensor row (docs/perf/log/2026-12-01-wide-n-tile.md).
// The 128 x 160 tile (1.25x the FLOPs, one accumulator as 128 x 192): its
// FAST costs (below) times promoted / FAST of the 128 x 192 tile (1.6 / 1.43),
// 1.34 / 6.0; the plan then takes it only where its waves win by 10% or more
// (512 x 5120 x 32768, 2048 x 2112 x 7168). An H100's promoted sweep fits it
// at 1.26 / 4.5, but there the other wide tiles fit lower too (128 x 192
// 1.41), so the derived cost stays until the H200's sweep
// (docs/perf/log/2026-12-05-tile-128x160.md).
constexpr TileCosts kPromotedCosts{{1.0, 4.0}, {2.2, 6.0}, {1.6, 5.0}, {kNever, kNever}, {1.34, 6.0}};
// FAST accumulation: no promotion, so one accumulator no longer serialises
// the wide tiles and their lower L2 traffic per FLOP shows. Least-squares fit
// (log time, 128 x 128 fixed at 1.0 / 4.0) to the H200 sweep of every full-grid
// suite shape at M >= 512 (54 shapes, docs/perf/log/2026-12-03-fast-tiles.md):
// tensor 1.98 / 5.5 and 1.43 / 5.0; token x channel, fitted apart, the same.
// The 128 x 256 tile (FAST only): the 256 x 128 tile's FLOPs and L2 bytes
// per K block with a sixth less shared-memory read per FLOP and half the
// wgmma instructions. Fitted on an H100 SXM (132 SMs, the same suite: 54
// full-grid shapes, docs/perf/log/2026-12-05-fast-128x256.md) at 1.77 / 7.5;
// 256 x 128 fits 1.85 / 7.0 in that sweep, against 1.98 / 5.5 on the H200.
// The 128 x 160 tile: predicted 1.21 / 4.5 (by FLOPs between 128 x 128 and
// 128 x 192); on the H100's FAST sweep (docs/perf/log/2026-12-05-tile-128x160.md)
// the plan's replay is best, 1.3% from the fastest tile (2.0% without it), for
// any cost in 1.13-1.20 / 6-10: 1.2 / 6.0. (The log-time least squares, 1.15 /
// 5.5, would also take 8192 x 2112 x 7168, 11% slower there than 128 x 192.)
constexpr TileCosts kFastCosts{{1.0, 4.0}, {1.98, 5.5}, {1.43, 5.0}, {1.77, 7.5}, {1.2, 6.0}};
// Block-scale tiles keep one accumulator at 128 x 128 too, so they are
// compared by waves only, at these costs per wave: the 256 x 128 tile 1.8
// (v8's rule, restored with one accumulator in fc956c6); the 128 x 192 one
// fitted to an H100 block sweep of every tile over 59 full-grid shapes
// (docs/perf/log/2026-12-06-block-192-cost.md): 1.35, where the plan's
// replay is 0.4% from the fastest tile (1.5% at the 1.55 predicted first;
// the H200's three long-K shapes measured 1.42-1.52 against 128 x 128
// alone, docs/perf/log/2026-12-01-wide-n-tile.md). The 128 x 160 one, predicted
// before any device run: 1.25x the 128 x 128 tile's FLOPs per wave with one
// accumulator, on the line from 128 x 128 (1.0) to 128 x 192 (1.5x the
// FLOPs, 1.55): 1.28, rounded up for its five column groups' scale factors
// per K block (three at 128 x 192).
constexpr double k256x128WaveCostBlockScales = 1.8;
constexpr double k128x192WaveCostBlockScales = 1.35;
constexpr double k128x160WaveCostBlockScales = 1.3;

struct Plan {
  Shape shape;
  bool swap;
  int block_m, block_n;
  int tiles_x, tiles_y, group_x;
  int k_blocks, splits, kb_per_split, num_units, grid;
  int cluster = 1;        // CTAs per cluster: 2 runs paired tiles with TMA multicast (pair_tiles)
  bool share_x = false;   // cluster 2: X is shared (pairs along Y), else Y (pairs along X)
  int cluster_splits = 1;  // cluster split (cluster_split.cuh): CTAs per cluster = splits; 1: none
  int partial_regs;       // accumulator registers per thread a split-K partial keeps
  size_t counter_bytes;   // split-K arrival counters (kCounterBytes; 0 without split-K), at offset 0
  size_t partial_bytes;   // split-K partial tiles (0 without split-K), after the counters
  size_t workspace_bytes() const { return partial_bytes + counter_bytes; }
};

// Waves of a persistent launch of `units` equal units on `sm_count` CTAs.
inline int64_t waves_of(int64_t units, int sm_count) { return ceil_div(units, sm_count); }

// A plan's shape fields, from the tile table.
inline Plan shape_of(Shape s) {
  Plan pl{};
  pl.shape = s;
  pl.swap = row(s).swap;
  pl.block_m = row(s).block_m;
  pl.block_n = row(s).block_n;
  return pl;
}

// The plan of tile `t` with (at most) `splits` K splits: the grid, and the
// workspace the splits need. Too little workspace: no split.
inline Plan plan_for(Shape t, int splits, int m, int n, int k, int sm_count, size_t workspace_available) {
  Plan pl = shape_of(t);
  const int rows_x = pl.swap ? n : m;
  const int rows_y = pl.swap ? m : n;
  pl.k_blocks = static_cast<int>(ceil_div(k, kBlockK));
  pl.tiles_x = static_cast<int>(ceil_div(rows_x, pl.block_m));
  pl.tiles_y = static_cast<int>(ceil_div(rows_y, pl.block_n));
  pl.group_x = std::min(pl.tiles_x, kGroupX);
  const int64_t tiles = int64_t{pl.tiles_x} * pl.tiles_y;
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

// Cluster split: how many CTAs can run at once in clusters of S CTAs (the
// device's answer, cudaOccupancyMaxActiveClusters x S: clusters live inside
// one GPC, so this can be below the SM count); 0 where unknown, and
// everywhere in a default ClusterFit, which plans no cluster split.
struct ClusterFit {
  int ctas[kMaxClusterSplit + 1] = {};
};

// Cluster split rules, fitted to the device run of docs/perf/log/2026-12-01-cluster-split.md:
// - a decode CTA of a cluster keeps at least kMinClusterKBlocksDecode K
//   blocks: 16x2112x7168 per launch took 12.4 us at 3-4 CTAs per tile (14-19
//   K blocks each), 13.0 at 6 (9-10); 1x7168x2048 10.6 us at 2 CTAs of 8 K
//   blocks against 9.9 unsplit;
// - a workspace split costs about kWorkspaceSplitCostKBlocks K blocks of a
//   CTA's stream more than a cluster split (graph-timed with programmatic
//   launch: 1x4096x7168 14.3 us at 4 workspace splits, 12.2 at clusters of
//   3; 1x5120x32768 48 us at 3 workspace splits, 68 at clusters of 2: the
//   longer stream per CTA costs more than the round trip saves).
constexpr int kMinClusterKBlocksDecode = 12;
constexpr int kWorkspaceSplitCostKBlocks = 10;

// The plan of tile `t` split over clusters of `s` CTAs (2..8): one unit per
// CTA, grid = tiles x s, and no workspace. The K blocks go ceil(k_blocks /
// s) to a CTA, so the last CTAs may get fewer or none (the kernel handles
// an empty split). Tiles without the cluster split's code
// (ShapeRow::cluster_split) keep the unsplit plan.
inline Plan cluster_split_plan(Shape t, int s, int m, int n, int k, int sm_count) {
  Plan pl = plan_for(t, 1, m, n, k, sm_count, 0);
  if (!row(t).cluster_split) return pl;
  s = std::max(2, std::min(s, kMaxClusterSplit));
  const int64_t tiles = int64_t{pl.tiles_x} * pl.tiles_y;
  pl.cluster_splits = pl.splits = s;
  pl.kb_per_split = static_cast<int>(ceil_div(pl.k_blocks, s));
  pl.num_units = pl.grid = static_cast<int>(tiles * s);
  return pl;
}

// The largest cluster size S in 2..max_s whose grid (tiles x S) runs in one
// wave and whose CTAs keep at least `min_kb` K blocks each (none empty); 1
// if none.
inline int cluster_split_size(int64_t tiles, int k_blocks, int min_kb, int max_s, const ClusterFit& fit) {
  for (int s = std::min(max_s, kMaxClusterSplit); s >= 2; --s)
    if (tiles * s <= fit.ctas[s] && k_blocks / s >= min_kb && (s - 1) * ceil_div(k_blocks, s) < k_blocks) return s;
  return 1;
}

// Decode (swapped tile, one tile along Y, fewer weight tiles than SMs): the
// largest cluster split that fits one wave with full streams per CTA,
// unless the workspace plan `ws` (the workspace split, where the caller lent the
// workspace) streams shorter by more than a workspace split costs. 1 in
// `cluster` when none is taken.
inline Plan decode_cluster_split(Shape t, int m, int n, int k, int sm_count, const ClusterFit& fit, const Plan& ws) {
  const Plan one = plan_for(t, 1, m, n, k, sm_count, 0);
  const int64_t tiles = int64_t{one.tiles_x} * one.tiles_y;
  const int s = cluster_split_size(tiles, one.k_blocks, kMinClusterKBlocksDecode, kMaxClusterSplit, fit);
  if (s < 2) return one;
  if (ws.splits > 1 && ws.kb_per_split + kWorkspaceSplitCostKBlocks < ceil_div(one.k_blocks, s)) return one;
  return cluster_split_plan(t, s, m, n, k, sm_count);
}

// Decode split count: as many splits as fill one wave, each keeping
// kMinSplitKBlocksSmall K blocks; none for short streams, nor once the tiles
// fill the SMs (a full grid already streams near the roof: the decode sweep
// of docs/perf/log/2026-11-30-pipeline-and-tiles.md, 1x57344x8192, 448 tiles, 0.82
// of it unsplit).
inline int decode_splits(const Plan& one, int sm_count) {
  const int64_t tiles = int64_t{one.tiles_x} * one.tiles_y;
  if (tiles >= sm_count || one.k_blocks < kMinDecodeSplitStream) return 1;
  return std::max(1, std::min(static_cast<int>(sm_count / tiles), one.k_blocks / kMinSplitKBlocksSmall));
}

// How a normal tile's K blocks are summed, for the makespan model.
enum class Summing { kPromoted, kFast, kBlockScales };
inline Summing summing_of(bool block_scales, bool fast_accum) {
  return block_scales ? Summing::kBlockScales : fast_accum ? Summing::kFast : Summing::kPromoted;
}

// A normal tile's cost by its rows and columns (either scale kind's twin).
inline const TileCost& tile_cost(const TileCosts& costs, const Plan& pl) {
  if (pl.block_m > row(Shape::k128x128).block_m) return costs.t256x128;
  if (pl.block_n == row(Shape::k128x256).block_n) return costs.t128x256;
  if (pl.block_n == row(Shape::k128x192).block_n) return costs.t128x192;
  if (pl.block_n == row(Shape::k128x160).block_n) return costs.t128x160;
  return costs.t128x128;
}

// A block-scale tile's cost per wave, in 128 x 128 waves (the constants above).
inline double block_scale_wave_cost(const Plan& pl) {
  if (pl.block_m > row(Shape::k128x128).block_m) return k256x128WaveCostBlockScales;
  if (pl.block_n == row(Shape::k128x192).block_n) return k128x192WaveCostBlockScales;
  if (pl.block_n == row(Shape::k128x160).block_n) return k128x160WaveCostBlockScales;
  return 1.0;
}

// Makespan of an unsplit plan of a normal tile by the model above, in
// 128 x 128 K blocks (block scales: in 128 x 128 waves).
inline double normal_tile_cost(const Plan& one, Summing how, int sm_count) {
  if (row(one.shape).fast_only && how != Summing::kFast) return kNever;
  if (row(one.shape).block_scales != (how == Summing::kBlockScales)) return kNever;  // no twin of the other kind
  const double waves = static_cast<double>(waves_of(int64_t{one.tiles_x} * one.tiles_y, sm_count));
  if (how == Summing::kBlockScales) return waves * block_scale_wave_cost(one);
  const TileCost& c = tile_cost(how == Summing::kFast ? kFastCosts : kPromotedCosts, one);
  return waves * (one.k_blocks * c.block + c.overhead);
}

// On a full grid: the shortest of the 128 x 128, 256 x 128, 128 x 192 and
// 128 x 160 tiles (FAST's 128 x 256 too) by the model, so the
// 128 x 192 one where N's 128-wide tiles leave a ragged last wave that
// 192-wide ones fill better (512 x 6144: 192 tiles of 128 x 128, two waves,
// against 128 of 128 x 192, one). Never split.
inline Plan full_grid_plan(int m, int n, int k, Summing how, int sm_count) {
  const bool block = how == Summing::kBlockScales;
  const Plan candidates[] = {
      plan_for(block ? Shape::k128x128Block : Shape::k128x128, 1, m, n, k, sm_count, 0),
      plan_for(block ? Shape::k256x128Block : Shape::k256x128, 1, m, n, k, sm_count, 0),
      plan_for(block ? Shape::k128x192Block : Shape::k128x192, 1, m, n, k, sm_count, 0),
      plan_for(Shape::k128x256, 1, m, n, k, sm_count, 0),  // FAST only (kNever otherwise)
      plan_for(block ? Shape::k128x160Block : Shape::k128x160, 1, m, n, k, sm_count, 0),
  };
  const Plan* best = &candidates[0];
  for (const Plan& c : candidates)
    if (normal_tile_cost(c, how, sm_count) < normal_tile_cost(*best, how, sm_count)) best = &c;
  return *best;
}

// ---- 2-CTA clusters with TMA multicast of the shared operand ---------------
// A pair of tiles that share one operand tile runs on the two CTAs of a
// cluster, each loading half of the shared tile and multicasting it
// (kernel_args.hpp, ClusterArgs): the shared side's L2 reads halve. Only
// the tiles compiled with clusters (ShapeRow::clusters: the 256 x 128 block
// tile), without split-K; a pair's second tile past the edge is a pad unit
// that repeats the first (odd tile counts).
// A development override of the plan's clusters: FP8KIT_SM90_CLUSTER
// (core/environment.hpp).
using ClusterForce = ClusterOverride;

inline bool cluster_legal(const Plan& pl, int sm_count) {
  return row(pl.shape).clusters && pl.splits == 1 && sm_count >= 2;
}

// The side to share: the larger tile side (X in the 256 x 128 tiles, unless
// it is the only tile along Y); at 128 x 128 pairs go along an even tile
// count (no pad), X first (the raster's groups run along X), else along the
// longer side (fewest pads).
inline bool cluster_shares_x(const Plan& pl) {
  if (pl.tiles_x == 1 || pl.tiles_y == 1) return pl.tiles_x == 1;
  if (pl.block_m > pl.block_n) return true;
  if (pl.tiles_x % 2 == 0) return false;
  if (pl.tiles_y % 2 == 0) return true;
  return pl.tiles_y > pl.tiles_x;
}

inline int64_t cluster_pairs(const Plan& pl, bool share_x) {
  return share_x ? int64_t{pl.tiles_x} * ceil_div(pl.tiles_y, 2) : ceil_div(pl.tiles_x, 2) * pl.tiles_y;
}

// The plan as 2-CTA clusters: units are pairs, the grid whole clusters.
inline void pair_tiles(Plan& pl, bool share_x, int sm_count) {
  const int64_t pairs = cluster_pairs(pl, share_x);
  pl.cluster = 2;
  pl.share_x = share_x;
  pl.num_units = static_cast<int>(pairs);
  pl.grid = 2 * static_cast<int>(std::min<int64_t>(pairs, sm_count / 2));
}

// Multicast where there are at least two waves of tiles (one wave has no
// tile whose operand another CTA of the wave would not read from L2 at the
// same time anyway, DeepGEMM's rule too) and the pairs, pads included, take
// no more waves of clusters than the tiles do of CTAs.
inline bool cluster_wins(const Plan& pl, int sm_count) {
  const int64_t tiles = int64_t{pl.tiles_x} * pl.tiles_y;
  const int64_t waves = waves_of(tiles, sm_count);
  return waves >= 2 && waves_of(cluster_pairs(pl, cluster_shares_x(pl)), sm_count / 2) <= waves;
}

inline Plan cluster_plan(Plan pl, int sm_count, ClusterForce force) {
  if (!cluster_legal(pl, sm_count) || force == ClusterForce::kOff) return pl;
  if (force == ClusterForce::kPlan && !cluster_wins(pl, sm_count)) return pl;
  const bool share_x = force == ClusterForce::kShareX   ? true
                       : force == ClusterForce::kShareY ? false
                                                        : cluster_shares_x(pl);
  pair_tiles(pl, share_x, sm_count);
  return pl;
}

// `workspace_available`: bytes the caller passed; SIZE_MAX asks for the best plan.
//
// Decode (M <= 64) takes the swapped tile, split along K to fill one wave
// (decode_splits). Otherwise, on a full grid of 128 x 128 tiles, the
// shortest tile by the makespan model for the way K blocks are summed
// (`fast_accum`: FAST accumulation; full_grid_plan); on a partial grid the
// 128 x 128 tile, split-K when its tiles fill at most half the SMs; then
// 2-CTA clusters where cluster_plan says so (`cluster`: a development
// override, FP8KIT_SM90_CLUSTER). `fast_accum` moves only the full-grid tile
// choice, which never splits, so a plan's workspace does not depend on it.
// Splits are costly here: a split writes and reads back an f32 partial tile,
// 4x the bytes of its bf16 output (docs/perf/log/2026-11-30-pipeline-and-tiles.md).
// Cluster splits (`fit`: the device's cluster capacity; the default plans
// none): decode_cluster_split for decode, where they beat the workspace
// split. They need no workspace, so callers without one (the Python front
// end) get decode split-K too. The normal tiles have none: their cluster
// splits tied with the workspace split at best (docs/perf/log/2026-12-01-cluster-split.md),
// and compiled into the 128 x 128 tiles the code cost every unsplit launch
// of them 2-4% (docs/perf/log/2026-12-01-integrated-run.md).
// `decode_split` (FP8KIT_SM90_CLUSTER_SPLIT, for sweeps and tests) forces
// decode's cluster split: 1 none (the workspace split where one is lent), 2 ..
// kMaxClusterSplit that many CTAs per cluster where the grid runs in one wave
// of the device's clusters (fit.ctas); 0, any other value or a grid that does
// not fit: the rule.
inline Plan make_plan(int m, int n, int k, bool block_scales, int sm_count, size_t workspace_available,
                      ClusterForce cluster = ClusterForce::kPlan, const ClusterFit& fit = ClusterFit{},
                      bool fast_accum = false, int decode_split = 0) {
  const bool swap = m <= kSwapMaxM;
  const int k_blocks = static_cast<int>(ceil_div(k, kBlockK));
  if (swap) {
    const Shape t = block_scales ? Shape::k128x64SwapBlock : Shape::k128x64Swap;
    const Plan ws = plan_for(t, decode_splits(plan_for(t, 1, m, n, k, sm_count, 0), sm_count), m, n, k, sm_count,
                             workspace_available);
    if (decode_split == 1) return ws;
    if (decode_split >= 2 && decode_split <= kMaxClusterSplit &&
        int64_t{ws.tiles_x} * ws.tiles_y * decode_split <= fit.ctas[decode_split])
      return cluster_split_plan(t, decode_split, m, n, k, sm_count);
    if (const Plan c = decode_cluster_split(t, m, n, k, sm_count, fit, ws); c.cluster_splits > 1) return c;
    return ws;
  }
  const Shape large = block_scales ? Shape::k128x128Block : Shape::k128x128;
  const Plan l1 = plan_for(large, 1, m, n, k, sm_count, 0);
  const int64_t large_tiles = int64_t{l1.tiles_x} * l1.tiles_y;
  if (large_tiles >= sm_count)
    return cluster_plan(full_grid_plan(m, n, k, summing_of(block_scales, fast_accum), sm_count), sm_count, cluster);
  const int splits =
      std::max(1, std::min(static_cast<int>(sm_count / large_tiles), k_blocks / kMinSplitKBlocksLarge));
  return cluster_plan(plan_for(large, splits, m, n, k, sm_count, workspace_available), sm_count, cluster);
}

}  // namespace fp8kit::sm90
