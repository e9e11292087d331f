// The native Hopper path's host plan (src/gemm/sm90/plan.hpp): invariants
// over many shapes, SM counts and workspace sizes, the shared-memory budget
// of every tile, and the choices the H200 measurements fitted (docs/perf.md).
// Host only: runs everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "gemm/sm90/plan.hpp"
#include "gemm/sm90/shared_storage.hpp"

namespace sm90 = fp8kit::sm90;
using sm90::Plan;
using sm90::Tile;

namespace {

constexpr int kH200Sms = 132;
constexpr size_t kAnyWorkspace = SIZE_MAX;

std::string label(int m, int n, int k, bool block, int sms, size_t ws) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + (block ? " block" : "") +
         " sms=" + std::to_string(sms) + " ws=" + (ws == SIZE_MAX ? std::string("any") : std::to_string(ws));
}

void expect_consistent(const Plan& p, int m, int n, int k, bool block, int sms, size_t ws) {
  SCOPED_TRACE(label(m, n, k, block, sms, ws));
  const Plan shape = sm90::shape_of(p.tile);
  EXPECT_EQ(p.block_m, shape.block_m);
  EXPECT_EQ(p.block_n, shape.block_n);
  EXPECT_EQ(p.swap, shape.swap);
  EXPECT_EQ(p.swap, m <= sm90::kSwapMaxM);
  const bool block_tile = p.tile == Tile::k128x128Block || p.tile == Tile::k256x128Block ||
                          p.tile == Tile::k128x64SwapBlock || p.tile == Tile::k128x128PingPongBlock;
  EXPECT_EQ(block_tile, block);
  // Tiles cover the kernel rows and columns exactly (no empty tile row or column).
  const int rows_x = p.swap ? n : m, rows_y = p.swap ? m : n;
  EXPECT_GE(int64_t{p.tiles_x} * p.block_m, rows_x);
  EXPECT_LT(int64_t{p.tiles_x - 1} * p.block_m, rows_x);
  EXPECT_GE(int64_t{p.tiles_y} * p.block_n, rows_y);
  EXPECT_LT(int64_t{p.tiles_y - 1} * p.block_n, rows_y);
  EXPECT_GE(p.group_x, 1);
  EXPECT_LE(p.group_x, std::min(p.tiles_x, sm90::kGroupX));
  // K splits: every split has K blocks, together exactly all of them.
  EXPECT_EQ(p.k_blocks, fp8kit::ceil_div(k, sm90::kBlockK));
  ASSERT_GE(p.splits, 1);
  EXPECT_GE(int64_t{p.kb_per_split} * p.splits, p.k_blocks);
  EXPECT_LT(int64_t{p.kb_per_split} * (p.splits - 1), p.k_blocks);
  const int64_t tiles = int64_t{p.tiles_x} * p.tiles_y;
  EXPECT_EQ(p.num_units, tiles * p.splits);
  EXPECT_EQ(p.grid, std::min<int64_t>(p.num_units, sms));
  // Workspace: none without a split; a split's fits what the caller has.
  if (p.splits == 1) {
    EXPECT_EQ(p.workspace_bytes(), 0u);
  } else {
    EXPECT_LE(p.workspace_bytes(), ws);
    // The partials keep the registers of the columns inside D: all of them
    // in the normal tiles, the tokens' (4 per 8 columns) in swapped ones.
    const int acc_regs = p.block_n / 2;
    EXPECT_EQ(p.partial_regs, p.swap ? std::min(acc_regs, 4 * static_cast<int>(fp8kit::ceil_div(m, 8))) : acc_regs);
    EXPECT_GE(p.partial_bytes, static_cast<size_t>(tiles) * p.splits * p.block_m * p.partial_regs *
                                   sm90::kWarpgroupThreads * sizeof(float) / sm90::kWgmmaM);
    // One counter region of fixed size at the workspace's head, for every plan.
    EXPECT_EQ(p.counter_bytes, sm90::kCounterBytes);
    EXPECT_LE(tiles, sm90::kMaxSplitTiles);
  }
}

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
      EXPECT_EQ(exact.tile, best.tile);
      const Plan none = sm90::make_plan(s[0], s[1], s[2], block, kH200Sms, 0);
      EXPECT_EQ(none.splits, 1);
      EXPECT_EQ(none.tile, best.tile);
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
        EXPECT_EQ(p.tile, Tile::k128x64Swap);
        const int tiles = p.tiles_x * p.tiles_y;
        if (tiles >= kH200Sms || p.k_blocks < sm90::kMinDecodeSplitStream) EXPECT_EQ(p.splits, 1);
        if (p.splits > 1) {
          EXPECT_GE(p.kb_per_split, sm90::kMinSplitKBlocksSmall);
          EXPECT_LE(p.num_units, kH200Sms);
        }
      }
}

// The swapped tile's partial shrinks with M: 4 registers per 8 tokens.
TEST(Sm90Plan, DecodePartialsAsWideAsTheTokens) {
  for (int m : {1, 8, 9, 16, 64}) {
    const Plan p = sm90::plan_for(Tile::k128x64Swap, 4, m, 4096, 4096, kH200Sms, kAnyWorkspace);  // 32 tiles
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
          const Plan p = sm90::make_plan(m, n, k, block, kH200Sms, kAnyWorkspace);
          if (p.tile != Tile::k256x128 && p.tile != Tile::k256x128Block) continue;
          SCOPED_TRACE(label(m, n, k, block, kH200Sms, kAnyWorkspace));
          EXPECT_GE(fp8kit::ceil_div(m, 128) * fp8kit::ceil_div(n, 128), kH200Sms);
          EXPECT_EQ(p.splits, 1);
        }
}

// The choices the H200 measurements fitted (docs/perf.md, v8-v10 sweeps).
// A change of the model that moves them needs new measurements.
TEST(Sm90Plan, FittedChoicesOnTheH200) {
  struct Pin {
    int m, n, k;
    bool block;
    Tile tile;
    int splits;
  };
  const Pin pins[] = {
      {8192, 8192, 8192, false, Tile::k128x128, 1},     // many waves: 128x128 is faster per FLOP
      {4096, 4096, 4096, false, Tile::k128x128, 1},     // 116.5 us vs 127.8 (256x128)
      {2048, 32768, 512, false, Tile::k256x128, 1},      // small K: 101.0 us vs 106.7
      {512, 6144, 4096, false, Tile::k128x128, 1},      // 28.9 us vs 29.4
      {512, 6144, 4096, true, Tile::k256x128Block, 1},   // block: 31.3 us vs 40.4
      {1000, 2104, 272, false, Tile::k256x128, 1},       // the GPU tests' wide-tile shape
      {1000, 2104, 272, true, Tile::k256x128Block, 1},
      // Decode (v12, docs/perf.md): long streams split into one wave of
      // splits of >= 8 K blocks; short ones (K <= 4096) do not.
      {1, 4096, 4096, false, Tile::k128x64Swap, 1},        // graph: 9.4 us unsplit vs 11.2 with 4 splits
      {1, 7168, 2048, false, Tile::k128x64Swap, 1},        // graph: 6.7 us unsplit vs 8.7 with 2
      {1, 4096, 7168, false, Tile::k128x64Swap, 4},        // graph: 14.2 us vs 19.1 with 2 (v11's rule)
      {1, 2112, 7168, false, Tile::k128x64Swap, 7},        // graph: 13.1 us vs 16.3 with 2
      {1, 4096, 14336, false, Tile::k128x64Swap, 4},       // 26.8 us vs 31.8 unsplit (v10)
      {1, 8192, 28672, false, Tile::k128x64Swap, 2},       // 69.5 us vs 84.0 unsplit (v10)
      {1, 57344, 8192, false, Tile::k128x64Swap, 1},       // 448 tiles: a full grid
      {5, 300, 8320, false, Tile::k128x64Swap, 8},         // the GPU tests' decode split-K shape
      {200, 300, 4224, false, Tile::k128x128, 4},       // the GPU tests' large-tile split-K shape
  };
  for (const Pin& pin : pins) {
    const Plan p = sm90::make_plan(pin.m, pin.n, pin.k, pin.block, kH200Sms, kAnyWorkspace);
    SCOPED_TRACE(label(pin.m, pin.n, pin.k, pin.block, kH200Sms, kAnyWorkspace));
    EXPECT_EQ(static_cast<int>(p.tile), static_cast<int>(pin.tile));
    EXPECT_EQ(p.splits, pin.splits);
  }
}

template <Tile T>
void expect_fits(int stages) {
  using Cfg = sm90::TileConfig<T>;
  SCOPED_TRACE(static_cast<int>(T));
  const int smem = sm90::smem_bytes<T>();
  EXPECT_LE(smem, sm90::kSmemBytesMax);
  EXPECT_EQ(Cfg::kStages, stages);
  // One more stage would not fit: the budget goes to stages.
  EXPECT_GT(smem + Cfg::kStageBytes + Cfg::kScaleSlotBytes, sm90::kSmemBytesMax);
  EXPECT_EQ(Cfg::kBytesX % sm90::kSwizzleAtomBytes, 0);
  EXPECT_EQ(Cfg::kBytesY % sm90::kSwizzleAtomBytes, 0);
  EXPECT_EQ(Cfg::kStagingBytes % sm90::kSwizzleAtomBytes, 0);
}

// Stage counts as docs/perf.md states them (the 227 KB opt-in budget).
TEST(Sm90Plan, SharedMemoryBudgetPerTile) {
  expect_fits<Tile::k128x128>(6);
  expect_fits<Tile::k128x128Block>(5);
  expect_fits<Tile::k256x128>(4);
  expect_fits<Tile::k256x128Block>(3);
  expect_fits<Tile::k128x64Swap>(8);
  expect_fits<Tile::k128x64SwapBlock>(8);
  expect_fits<Tile::k128x128PingPong>(6);
  expect_fits<Tile::k128x128PingPongBlock>(5);
}

// The schedule override: ping-pong replaces the normal tiles (never split,
// whatever the workspace), leaves decode to the swapped tile; cooperative
// and the default give the cooperative plan (the rule picks no ping-pong yet).
TEST(Sm90Plan, ForcedSchedules) {
  for (int m : {1, 64, 65, 512, 1000, 8192})
    for (int n : {300, 2104, 8192})
      for (int k : {512, 4224, 16384})
        for (bool block : {false, true}) {
          SCOPED_TRACE(label(m, n, k, block, kH200Sms, kAnyWorkspace));
          const Plan coop = sm90::cooperative_plan(m, n, k, block, kH200Sms, kAnyWorkspace);
          const Plan pp = sm90::make_plan(m, n, k, block, kH200Sms, kAnyWorkspace, sm90::Schedule::kPingPong);
          expect_consistent(pp, m, n, k, block, kH200Sms, kAnyWorkspace);
          if (coop.swap) {
            EXPECT_EQ(pp.tile, coop.tile);
            EXPECT_EQ(pp.splits, coop.splits);
          } else {
            EXPECT_EQ(pp.tile, block ? Tile::k128x128PingPongBlock : Tile::k128x128PingPong);
            EXPECT_FALSE(pp.split_k);
            EXPECT_EQ(pp.splits, 1);
            EXPECT_EQ(pp.workspace_bytes(), 0u);
          }
          for (sm90::Schedule s : {sm90::Schedule::kCooperative, sm90::Schedule::kAuto}) {
            const Plan p = sm90::make_plan(m, n, k, block, kH200Sms, kAnyWorkspace, s);
            EXPECT_EQ(p.tile, coop.tile);
            EXPECT_EQ(p.splits, coop.splits);
          }
        }
  // plan_for never splits a ping-pong tile.
  EXPECT_EQ(sm90::plan_for(Tile::k128x128PingPong, 4, 200, 300, 4224, kH200Sms, kAnyWorkspace).splits, 1);
}

}  // namespace
