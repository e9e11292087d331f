// The kernel's arguments besides the three tensor maps (kernel parameter
// space, by value), built once on the host (path.cu) in the kernel's own
// terms: kernel rows X and kernel columns Y of the tile product
// C = X . Y^T, so that the device never re-derives the orientation from M
// and N:
//   normal:  X = A [M, K], Y = B [N, K]   ->  D[m, n] = C[m, n]
//   swapped: X = B [N, K], Y = A [M, K]   ->  D[m, n] = C[n, m]
// Only D stays in D's terms (rows M, columns N): the epilogue transposes a
// swapped tile as it stages it. Sizes are runtime; the host validated them.
#pragma once

#include <cstdint>

#include "fp8kit/fp8kit.h"

namespace fp8kit::sm90 {

// A side's scales. Vector modes: TENSOR (one; grouped: one per expert),
// ROW / COL (one per kernel row of that side, indexed by the row in the
// side's tensor map, which is the layout of fp8kit.h in grouped launches
// too), NONE. BLOCK: the layout of fp8kit.h (per row on A's side,
// [k_blocks, block_ld]; per 128-block on B's, [N / 128, k_blocks]), expert
// e's at ptr + e * expert_stride. Dense: block_ld = M, expert_stride = 0.
// Grouped A rows are the map's rows, R = T or E * max_m: contiguous has
// block_ld = T, stride 0; masked [E, k_blocks, max_m] has block_ld = max_m
// and stride (k_blocks - 1) * max_m, since expert e's rows start at map row
// e * max_m. Grouped B: stride ceil(N / 128) * k_blocks.
struct SideScales {
  fp8kit_scale_mode mode;
  const float* ptr;
  int block_ld;
  int64_t expert_stride;
};

// Grouped launches (tile_scheduler.cuh): what the CTA's unit table is built
// from. Kernel rows of the A side are rows of A's map ([T, K] or
// [E * max_m, K]); of the B side, rows of B as [E * N, K].
struct GroupedArgs {
  const int32_t* groups;  // device offs (contiguous) or counts (masked), [experts]
  int experts;            // <= kMaxGroupedExperts
  int rows;               // T (contiguous) or max_m (masked)
  int masked;             // layout: 0 contiguous, 1 masked
  int n;                  // B rows of one expert (N)
  int b_tiles;            // tiles of one expert's N along the B side
  int stage_tx_bytes;     // bytes the X and Y boxes land in one stage (A's box may be short: grouped_plan.hpp)
};

// 2-CTA clusters (tile_scheduler.cuh, mainloop.cuh): the two CTAs of a
// cluster run paired units in lock step, two tiles that share one operand
// tile (`share_x`: the same X tile and adjacent Y tiles; else the same Y tile
// and adjacent X tiles). Each CTA loads half of the shared tile's rows and
// multicasts it to both; the shared side's tensor map has boxes of half the
// rows. num_units then counts pairs; a pair's second tile past the edge
// (odd tile counts) repeats the first and stores nothing.
struct ClusterArgs {
  int size;     // CTAs per cluster: 1 (no cluster), or 2
  int share_x;  // size 2: 1 X is shared (pairs along Y), 0 Y is shared (pairs along X)
};

struct KernelArgs {
  int rows_x, rows_y;       // kernel rows / columns of the problem (normal: M, N; swapped: N, M)
  int k_blocks;             // ceil(K / kBlockK) = ceil(K / 128)
  int tiles_x, tiles_y;     // tiles along X / Y
  int group_x;              // rasterisation: tiles along X in one group
  int splits;               // split-K factor (1: none)
  int kb_per_split;         // K blocks per split (last split may have fewer)
  int num_units;            // tiles_x * tiles_y * splits
  SideScales x_scales, y_scales;
  const void* bias;         // along N, which is X in swapped tiles (TileConfig::kBiasAlongX); nullptr: none
  fp8kit_dtype bias_type;
  void* d;                  // D [d_rows = M, d_cols = N]: TMA stores (third tensor map) up to column n_tma,
  int64_t ldd;              //    plain stores for columns [n_tma, N)
  int d_rows, d_cols;
  int n_tma;                // N rounded down to a multiple of 16 bytes of D
  fp8kit_dtype d_type;
  float* partials;          // split-K: [num_units][kConsumers][sub-tiles][partial_regs][128 threads] f32
  int partial_regs;         //   registers of a partial (the accumulator's first ones; plan.hpp)
  unsigned* counters;       // split-K: [tiles * kConsumers] arrival counts, zero at launch and left zero
  int cluster_splits;       // cluster split (cluster_split.cuh): CTAs of a cluster that split one tile's K
                            //   range, = splits, one unit per CTA; 0: none (partials then hold a workspace split)
  int fine_scales_tma;      // dense normal block tiles: A's block scales come by TMA (the fourth tensor map)
                            //   into each stage's slot; 0: the scale warp copies them (TileConfig::kCoarseChunks)
  int weights_first;        // programmatic launch: the first stages' weight tiles go out before
                            //   griddepcontrol.wait (mainloop.cuh); 0: X and Y per stage in order
  int fast_accum;           // FAST accumulation (non-block tiles): the K sum stays in the wgmma
                            //   accumulator, no per-K-block promotion (mainloop.cuh)
  GroupedArgs grouped;      // grouped tiles only (num_units, tiles_x / y unused there)
  ClusterArgs cluster;      // 2-CTA clusters with TMA multicast (dense normal tiles only)
};

}  // namespace fp8kit::sm90
