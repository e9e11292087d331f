// The native Hopper path's host plan (src/gemm/sm90/plan.hpp): invariants
// over many shapes, SM counts and workspace sizes, the shared-memory budget
// of every tile, and the choices the H200 measurements fitted (docs/perf/README.md,
// "The fitted constants"). Clusters: test_sm90_plan_clusters.cpp.
// Host only: runs everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gemm/sm90/plan.hpp"
#include "gemm/sm90/shared_storage.hpp"
#include "sm90_plan_checks.hpp"

namespace sm90 = fp8kit::sm90;
using sm90::Plan;
using sm90::Shape;
// The configurations of a shape for each problem kind.
template <Shape S>
using Dense = sm90::TileConfig<S, sm90::Kind::kDense>;
template <Shape S>
using Grouped = sm90::TileConfig<S, sm90::Kind::kGrouped>;

namespace {

using namespace fp8kit::sm90::plan_test;

TEST(Sm90Plan, ConsistentOverShapesSmCountsAndWorkspaces) {
  std::mt19937 g(20261130);
  std::uniform_int_distribution<int> small_m(1, 80), big(1, 40000), kk(1, 3000);
  const int sm_counts[] = {1, 8, 78, kH200Sms, 170};
  const size_t workspaces[] = {0, size_t{1} << 20, kAnyWorkspace};
  for (int i = 0; i < 3000; ++i) {
    const int m = (i % 3 == 0) ? small_m(g) : big(g);
    const int n = big(g);
    const int k = 16 * kk(g);  // the API's rule: K a multiple of 16
    const bool block = i % 2;
    const int sms = sm_counts[i % 5];
    const size_t ws = workspaces[(i / 5) % 3];
    expect_consistent(sm90::make_plan(m, n, k, block, sms, ws), m, n, k, block, sms, ws);
  }
}

TEST(Sm90Plan, WorkspaceSizeGivesTheBestPlan) {
  // fp8kit_gemm_workspace_size asks with SIZE_MAX; that many bytes must then
  // reproduce the plan, and none must fall back to one split.
  const int shapes[][3] = {{1, 4096, 14336}, {16, 8192, 28672}, {5, 300, 8320}, {200, 300, 4224}, {128, 7168, 2048}};
  for (const auto& s : shapes)
    for (bool block : {false, true}) {
      const Plan best = sm90::make_plan(s[0], s[1], s[2], block, kH200Sms, kAnyWorkspace);
      SCOPED_TRACE(label(s[0], s[1], s[2], block, kH200Sms, kAnyWorkspace));
      EXPECT_GT(best.splits, 1);
      const Plan exact = sm90::make_plan(s[0], s[1], s[2], block, kH200Sms, best.workspace_bytes());
      EXPECT_EQ(exact.splits, best.splits);
      EXPECT_EQ(exact.shape, best.shape);
      const Plan none = sm90::make_plan(s[0], s[1], s[2], block, kH200Sms, 0);
      EXPECT_EQ(none.splits, 1);
      EXPECT_EQ(none.shape, best.shape);
      const Plan short_by_one = sm90::make_plan(s[0], s[1], s[2], block, kH200Sms, best.workspace_bytes() - 1);
      EXPECT_EQ(short_by_one.splits, 1);
    }
}

TEST(Sm90Plan, DecodeSplitsFillOneWaveWithFullPipelines) {
  for (int n : {300, 2112, 4096, 8192, 28672, 57344})
    for (int k : {512, 2048, 4096, 8320, 14336, 28672})
      for (int m : {1, 16, 64}) {
        const Plan p = sm90::make_plan(m, n, k, false, kH200Sms, kAnyWorkspace);
        SCOPED_TRACE(label(m, n, k, false, kH200Sms, kAnyWorkspace));
        EXPECT_EQ(p.shape, Shape::k128x64Swap);
        const int tiles = p.tiles_x * p.tiles_y;
        if (tiles >= kH200Sms || p.k_blocks < sm90::kMinDecodeSplitStream) {
          EXPECT_EQ(p.splits, 1);
        }
        if (p.splits > 1) {
          EXPECT_GE(p.kb_per_split, sm90::kMinSplitKBlocksSmall);
          EXPECT_LE(p.num_units, kH200Sms);
        }
      }
}

// The swapped tile's partial shrinks with M: 4 registers per 8 tokens.
TEST(Sm90Plan, DecodePartialsAsWideAsTheTokens) {
  for (int m : {1, 8, 9, 16, 64}) {
    const Plan p = sm90::plan_for(Shape::k128x64Swap, 4, m, 4096, 4096, kH200Sms, kAnyWorkspace);  // 32 tiles
    SCOPED_TRACE(m);
    ASSERT_EQ(p.splits, 4);
    EXPECT_EQ(p.partial_regs, 4 * static_cast<int>(fp8kit::ceil_div(m, 8)));
    EXPECT_EQ(p.partial_bytes, size_t{32} * 4 * 2 * p.partial_regs * 128 * sizeof(float));
  }
}

TEST(Sm90Plan, WideTilesOnlyOnAFullGridAndNeverSplit) {
  for (int m : {65, 512, 1000, 2048, 8192})
    for (int n : {512, 2104, 6144, 32768})
      for (int k : {512, 4096})
        for (bool block : {false, true}) {
          for (bool fast : {false, true}) {
            const Plan p = sm90::make_plan(m, n, k, block, kH200Sms, kAnyWorkspace, sm90::ClusterForce::kPlan,
                                           sm90::ClusterFit{}, fast);
            if (p.block_m == 128 && p.block_n <= 128) continue;
            SCOPED_TRACE(label(m, n, k, block, kH200Sms, kAnyWorkspace));
            EXPECT_GE(fp8kit::ceil_div(m, 128) * fp8kit::ceil_div(n, 128), kH200Sms);
            EXPECT_EQ(p.splits, 1);
          }
        }
}

// The FAST-only tile is planned for FAST accumulation alone: promoted and
// block-scale plans never name it, and the model prices it out of them.
TEST(Sm90Plan, FastOnlyTileOnlyForFastAccumulation) {
  for (int m : {65, 512, 2048, 4096, 8192})
    for (int n : {512, 2112, 4096, 7168, 32768})
      for (int k : {512, 2048, 7168})
        for (bool block : {false, true}) {
          SCOPED_TRACE(label(m, n, k, block, kH200Sms, kAnyWorkspace));
          for (bool fast : {false, true}) {
            const Plan p = sm90::make_plan(m, n, k, block, kH200Sms, kAnyWorkspace, sm90::ClusterForce::kPlan,
                                           sm90::ClusterFit{}, fast);
            if (sm90::row(p.shape).fast_only) {
              EXPECT_TRUE(fast && !block);
            }
          }
          const Plan wide = sm90::plan_for(Shape::k128x256, 1, m, n, k, kH200Sms, 0);
          EXPECT_EQ(sm90::normal_tile_cost(wide, sm90::summing_of(block, false), kH200Sms), sm90::kNever);
          EXPECT_LT(sm90::normal_tile_cost(wide, sm90::Summing::kFast, kH200Sms), sm90::kNever);
        }
}

// The choices the H200 measurements fitted (the sweeps of
// docs/perf/log/2026-11-30-pipeline-and-tiles.md).
// A change of the model that moves them needs new measurements.
TEST(Sm90Plan, FittedChoicesOnTheH200) {
  struct Pin {
    int m, n, k;
    bool block;
    Shape shape;
    int splits;
  };
  const Pin pins[] = {
      {8192, 8192, 8192, false, Shape::k128x128, 1},     // many waves: 128x128 is faster per FLOP
      {4096, 4096, 4096, false, Shape::k128x128, 1},     // 116.5 us vs 127.8 (256x128)
      {2048, 32768, 512, false, Shape::k256x128, 1},      // small K: 101.0 us vs 106.7
      // 192 tiles of 128 x 128 (two waves), 128 of 128 x 192 (one): v13-ntile
      // (before: 128 x 128 28.9 us vs 256 x 128 29.4; block 256 x 128 31.3 us
      // vs 128 x 128 40.4).
      {512, 6144, 4096, false, Shape::k128x192, 1},
      {512, 6144, 4096, true, Shape::k128x192Block, 1},
      {4096, 2112, 7168, false, Shape::k128x192, 1},      // 544 tiles (4.1 waves) against 352 (2.7)
      {4096, 2112, 7168, true, Shape::k128x192Block, 1},
      {1000, 4104, 272, false, Shape::k256x128, 1},       // the GPU tests' wide-tile shape
      {1000, 4104, 272, true, Shape::k256x128Block, 1},
      // The GPU tests' wide-N shapes (GemmSm90WideN): one wave of 8 x 11
      // tiles of 128 x 192 or 8 x 14 of 128 x 160 (128 x 128: 8 x 17, two);
      // at 3 K blocks the 128 x 160 tile's overhead loses, at 4 it wins
      // (promoted 1.34 / 6.0 against 1.6 / 5.0); block scales count waves
      // only, one of 128 x 160 (1.3) under one of 128 x 192 (1.35).
      {1000, 2104, 272, false, Shape::k128x192, 1},
      {1000, 2104, 272, true, Shape::k128x160Block, 1},
      {1000, 2100, 400, false, Shape::k128x160, 1},
      {1000, 2100, 400, true, Shape::k128x160Block, 1},
      {500, 6100, 144, false, Shape::k128x192, 1},        // 4 x 32 tiles of 128 x 192: one wave
      {500, 6100, 144, true, Shape::k128x192Block, 1},    // 4 x 39 of 128 x 160: two
      {1100, 1976, 272, false, Shape::k128x192, 1},
      {1100, 1976, 272, true, Shape::k128x160Block, 1},
      // Decode (docs/perf/log/2026-12-01-splitk-without-memset.md): long streams split into one wave of
      // splits of >= 8 K blocks; short ones (K <= 4096) do not.
      {1, 4096, 4096, false, Shape::k128x64Swap, 1},        // graph: 9.4 us unsplit vs 11.2 with 4 splits
      {1, 7168, 2048, false, Shape::k128x64Swap, 1},        // graph: 6.7 us unsplit vs 8.7 with 2
      {1, 4096, 7168, false, Shape::k128x64Swap, 4},        // graph: 14.2 us vs 19.1 with 2 (v11's rule)
      {1, 2112, 7168, false, Shape::k128x64Swap, 7},        // graph: 13.1 us vs 16.3 with 2
      {1, 4096, 14336, false, Shape::k128x64Swap, 4},       // 26.8 us vs 31.8 unsplit (v10)
      {1, 8192, 28672, false, Shape::k128x64Swap, 2},       // 69.5 us vs 84.0 unsplit (v10)
      {1, 57344, 8192, false, Shape::k128x64Swap, 1},       // 448 tiles: a full grid
      {5, 300, 8320, false, Shape::k128x64Swap, 8},         // the GPU tests' decode split-K shape
      {200, 300, 4224, false, Shape::k128x128, 4},       // the GPU tests' large-tile split-K shape
  };
  for (const Pin& pin : pins) {
    const Plan p = sm90::make_plan(pin.m, pin.n, pin.k, pin.block, kH200Sms, kAnyWorkspace);
    SCOPED_TRACE(label(pin.m, pin.n, pin.k, pin.block, kH200Sms, kAnyWorkspace));
    EXPECT_EQ(static_cast<int>(p.shape), static_cast<int>(pin.shape));
    EXPECT_EQ(p.splits, pin.splits);
  }
}

template <Shape S>
void expect_fits(int stages) {
  using Cfg = sm90::TileConfig<S, sm90::Kind::kDense>;
  SCOPED_TRACE(sm90::row(S).name);
  const int smem = sm90::smem_bytes<Cfg>();
  EXPECT_LE(smem, sm90::kSmemBytesMax);
  EXPECT_EQ(Cfg::kStages, stages);
  // One more stage would not fit: the budget goes to stages.
  EXPECT_GT(smem + Cfg::kStageBytes + Cfg::kScaleSlotBytes, sm90::kSmemBytesMax);
  EXPECT_EQ(Cfg::kBytesX % sm90::kSwizzleAtomBytes, 0);
  EXPECT_EQ(Cfg::kBytesY % sm90::kSwizzleAtomBytes, 0);
  EXPECT_EQ(Cfg::kStagingBytes % sm90::kSwizzleAtomBytes, 0);
}

// Stage counts of every tile in the 227 KB opt-in budget (tile_config.hpp's
// kStages).
TEST(Sm90Plan, SharedMemoryBudgetPerTile) {
  // Every shape of the table is here: a new one states its stages.
  static_assert(sm90::kShapeCount == 12, "a stage count per shape below");
  expect_fits<Shape::k128x128>(6);
  expect_fits<Shape::k128x128Block>(5);
  expect_fits<Shape::k256x128>(4);
  expect_fits<Shape::k256x128Block>(3);
  expect_fits<Shape::k128x64Swap>(8);
  expect_fits<Shape::k128x64SwapBlock>(8);
  expect_fits<Shape::k128x192>(4);
  expect_fits<Shape::k128x192Block>(4);
  expect_fits<Shape::k128x256>(4);  // its D sub-tile staged in halves (kMaxStagedCols)
  EXPECT_EQ(Dense<Shape::k128x256>::kStagingBytes, sm90::kWgmmaM * 128 * 2);
  expect_fits<Shape::k128x160>(5);
  expect_fits<Shape::k128x160Block>(5);
}

// D's store boxes: every tile's sub-tile is whole chunks of a TMA swizzle
// span for 16-bit and f32 outputs, and the staging buffer holds whole
// chunks, so each output type's passes are whole (epilogue.cuh, StoreShape).
TEST(Sm90Plan, DStoreChunksAreWholeSwizzleSpans) {
  for (const sm90::ShapeRow& r : sm90::kShapes) {
    SCOPED_TRACE(r.name);
    const int chunk = sm90::out_chunk_bytes(r.shape);
    EXPECT_TRUE(chunk == 32 || chunk == 64 || chunk == 128);
    for (int elem : {2, 4}) EXPECT_EQ(sm90::out_cols(r.shape) * elem % chunk, 0);
  }
  EXPECT_EQ(sm90::out_chunk_bytes(Shape::k128x160), 64);
  EXPECT_EQ(sm90::out_chunk_bytes(Shape::k128x192), 128);
  EXPECT_EQ(sm90::out_chunk_bytes(Shape::k128x64Swap), 128);
  using C = Dense<Shape::k128x160>;
  const int chunk_bytes = C::kOutRows * C::kOutChunkBytes;
  EXPECT_EQ(C::kStagingBytes % chunk_bytes, 0);
  for (int elem : {2, 4}) EXPECT_EQ(C::kOutRows * C::kOutCols * elem % C::kStagingBytes, 0);
}

// The tile table: each row is its own shape, every shape is instantiated for
// at least one problem kind, the features its row names belong to the dense
// kind, and the kernel counts per kind follow from it.
TEST(Sm90Plan, TheTileTableIsConsistent) {
  int dense = 0, grouped = 0;
  for (const sm90::ShapeRow& r : sm90::kShapes) {
    SCOPED_TRACE(r.name);
    EXPECT_TRUE(r.dense || r.grouped);
    EXPECT_FALSE((r.clusters || r.cluster_split) && !r.dense);
    EXPECT_FALSE(r.fast_only && (r.block_scales || r.swap || r.clusters || r.cluster_split));
    EXPECT_EQ(r.swap, std::string(r.name).find("swap") != std::string::npos);
    EXPECT_EQ(r.block_scales, std::string(r.name).find("block") != std::string::npos);
    EXPECT_EQ(std::string(r.name).rfind(std::to_string(r.block_m) + "x" + std::to_string(r.block_n), 0), 0u);
    dense += r.dense, grouped += r.grouped;
  }
  EXPECT_EQ(sm90::kernels_of(sm90::Kind::kDense), 4 * dense);
  EXPECT_EQ(sm90::kGroupedKernelCount, 4 * grouped);
  EXPECT_EQ(dense, 11);
  EXPECT_EQ(grouped, 6);
}

// A wide dense block tile's scale groups: over the first 64 tiles of N,
// each group of columns lies inside one 128-block of B's scales. The slot
// holds the 128 A scales (TMA writes it whole: 128-byte aligned sizes); the
// group scales of each K block come in B's chunks, one float per group.
template <class Cfg>
void expect_groups_inside_blocks_and_chunked() {
  for (int ty = 0; ty < 64; ++ty)
    for (int g = 0; g < Cfg::kScaleGroups; ++g) {
      const int first = ty * Cfg::kBlockN + g * Cfg::kScaleGroupCols;
      EXPECT_EQ(first / fp8kit::kScaleBlock, (first + Cfg::kScaleGroupCols - 1) / fp8kit::kScaleBlock) << ty << " " << g;
    }
  EXPECT_TRUE(Cfg::kCoarseChunks);
  EXPECT_EQ(Cfg::kColScales, 0);
  EXPECT_EQ(Cfg::kScaleSlotFloats, Cfg::kBlockM);
  EXPECT_EQ(Cfg::kCoarseChunkFloats, sm90::kCoarseChunkBlocks * Cfg::kScaleGroups);
  EXPECT_EQ(Cfg::kColFactorsPerThread, 2);
  EXPECT_FALSE(Cfg::kDoubleAcc);
}

// Block scales of the 128 x 192 tiles: a tile starts at a multiple of 64
// columns, so each of its three 64-column groups lies in one 128-block of
// B's scales, and the tile straddles two blocks.
TEST(Sm90Plan, WideNScaleGroupsNeverStraddleABlock) {
  using Cfg = Dense<Shape::k128x192Block>;
  static_assert(Cfg::kScaleGroupCols == 64 && Cfg::kScaleGroups == 3, "three groups of 64 columns");
  static_assert(Dense<Shape::k128x128Block>::kScaleGroups == 1, "one block per 128 x 128 tile");
  expect_groups_inside_blocks_and_chunked<Cfg>();
  // The grouped and swapped block tiles keep both sides in the slot.
  using G = Grouped<Shape::k128x128Block>;
  EXPECT_FALSE(G::kCoarseChunks);
  EXPECT_GE(G::kScaleSlotFloats, G::kColScaleOffset + G::kColScales);
  EXPECT_FALSE(Dense<Shape::k128x192>::kDoubleAcc);
}

// Block scales of the 128 x 160 tile: five 32-column groups (a tile starts
// at a multiple of 32 columns), each inside one 128-block of B's scales;
// B's scales in chunks, five per K block.
TEST(Sm90Plan, Block160ScaleGroupsNeverStraddleABlock) {
  using Cfg = Dense<Shape::k128x160Block>;
  static_assert(Cfg::kScaleGroupCols == 32 && Cfg::kScaleGroups == 5, "five groups of 32 columns");
  expect_groups_inside_blocks_and_chunked<Cfg>();
}

// The 128 x 192 tiles win only where their waves beat the others' by the
// model, never on a partial grid, and with fewer waves than 128 x 128.
TEST(Sm90Plan, WideNOnlyWhereItsWavesWin) {
  for (int m : {128, 512, 2048, 4096, 8192})
    for (int n : {2112, 4096, 6144, 7168, 24576, 28672})
      for (int k : {1536, 7168})
        for (bool block : {false, true}) {
          const Plan p = sm90::make_plan(m, n, k, block, kH200Sms, kAnyWorkspace);
          if (p.shape != Shape::k128x192 && p.shape != Shape::k128x192Block) continue;
          SCOPED_TRACE(label(m, n, k, block, kH200Sms, kAnyWorkspace));
          const Plan l = sm90::plan_for(block ? Shape::k128x128Block : Shape::k128x128, 1, m, n, k, kH200Sms, 0);
          EXPECT_GE(int64_t{l.tiles_x} * l.tiles_y, kH200Sms);
          const sm90::Summing how = sm90::summing_of(block, false);
          EXPECT_LT(sm90::normal_tile_cost(p, how, kH200Sms), sm90::normal_tile_cost(l, how, kH200Sms));
          EXPECT_LT(sm90::waves_of(int64_t{p.tiles_x} * p.tiles_y, kH200Sms),
                    sm90::waves_of(int64_t{l.tiles_x} * l.tiles_y, kH200Sms));
        }
}

// FAST accumulation: the full-grid tile by its own costs (the H100 sweep of
// docs/perf/log/2026-12-05-fast-128x256.md, times of each shape's unsplit
// tiles; each pin is that shape's fastest, but 4096^3's, within 1.2%); it
// never moves a split, so the workspace a plan needs is the same in both modes.
TEST(Sm90Plan, FastAccumulationPicksByItsOwnCosts) {
  struct Pin {
    int m, n, k;
    Shape fast, promoted;
  };
  const Pin pins[] = {
      {8192, 8192, 8192, Shape::k128x256, Shape::k128x128},    // fast 871.0 us, 128 x 192 950.6
      {4096, 4096, 4096, Shape::k128x256, Shape::k128x128},    // fast 122.5 us, 256 x 128 121.1
      {8192, 24576, 1536, Shape::k128x256, Shape::k128x128},   // fast 572.6 us, 128 x 192 582.7
      {512, 28672, 4096, Shape::k128x128, Shape::k128x128},    // fast 95.8 us, 256 x 128 102.8
      {4096, 2112, 7168, Shape::k128x192, Shape::k128x192},    // fast 106.2 us, 128 x 256 139.5
      // The 128 x 160 tile (docs/perf/log/2026-12-05-tile-128x160.md, an
      // H100's FAST sweep; promoted by the derived cost):
      {2048, 2112, 7168, Shape::k128x160, Shape::k128x160},    // fast 58.4 us, 128 x 192 73.3
      {512, 5120, 32768, Shape::k128x160, Shape::k128x160},    // fast 129.0 us, 128 x 192 142.6
      {8192, 2112, 7168, Shape::k128x192, Shape::k128x128},    // fast 214.4 us, 128 x 160 238.4
  };
  for (const Pin& pin : pins) {
    SCOPED_TRACE(label(pin.m, pin.n, pin.k, false, kH200Sms, kAnyWorkspace));
    const Plan fast = sm90::make_plan(pin.m, pin.n, pin.k, false, kH200Sms, kAnyWorkspace, sm90::ClusterForce::kPlan,
                                      sm90::ClusterFit{}, true);
    const Plan promoted = sm90::make_plan(pin.m, pin.n, pin.k, false, kH200Sms, kAnyWorkspace);
    EXPECT_EQ(static_cast<int>(fast.shape), static_cast<int>(pin.fast));
    EXPECT_EQ(static_cast<int>(promoted.shape), static_cast<int>(pin.promoted));
  }
  for (int m : {1, 16, 64, 65, 200, 512, 4096})
    for (int n : {300, 2112, 4096, 28672})
      for (int k : {512, 4224, 7168})
        for (bool block : {false, true}) {
          SCOPED_TRACE(label(m, n, k, block, kH200Sms, kAnyWorkspace));
          const Plan fast = sm90::make_plan(m, n, k, block, kH200Sms, kAnyWorkspace, sm90::ClusterForce::kPlan,
                                            sm90::ClusterFit{}, true);
          const Plan promoted = sm90::make_plan(m, n, k, block, kH200Sms, kAnyWorkspace);
          EXPECT_EQ(fast.workspace_bytes(), promoted.workspace_bytes());
          EXPECT_EQ(fast.splits, promoted.splits);
          if (block) {
            EXPECT_EQ(static_cast<int>(fast.shape), static_cast<int>(promoted.shape));
          }
        }
}

}  // namespace
