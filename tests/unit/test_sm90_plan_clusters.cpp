// The Hopper plan's clusters (src/gemm/sm90/plan.hpp): 2-CTA clusters with
// multicast (cluster_plan; tile_scheduler.cuh's pair mapping replayed on the
// host) and the cluster split of decode (cluster_split_plan,
// decode_cluster_split), with the choices the H200 measurements fitted.
// Host only: runs everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/environment.hpp"
#include "gemm/sm90/plan.hpp"
#include "sm90_plan_checks.hpp"

namespace sm90 = fp8kit::sm90;
using sm90::Plan;
using sm90::Shape;
using namespace fp8kit::sm90::plan_test;

namespace {

// ---- 2-CTA clusters (plan.hpp: cluster_plan; tile_scheduler.cuh: pair_unit) ----

// The device's pair mapping (tile_scheduler.cuh: raster, pair_unit), replayed
// on the host: tile (tx, ty) of pair q for cluster rank r, and whether it is a pad.
struct PairTile {
  int tx, ty;
  bool pad;
};
PairTile pair_tile(const Plan& p, int q, int rank) {
  const bool along_y = p.share_x;
  const int pairs_x = along_y ? p.tiles_x : (p.tiles_x + 1) / 2;
  const int pairs_y = along_y ? (p.tiles_y + 1) / 2 : p.tiles_y;
  const int group_x = along_y ? p.group_x : std::max(1, p.group_x / 2);
  const int per_group = group_x * pairs_y;
  const int group = q / per_group;
  const int first_x = group * group_x;
  const int gx = std::min(pairs_x - first_x, group_x);
  const int local = q - group * per_group;
  const int px = first_x + local % gx, py = local / gx;
  const int paired = 2 * (along_y ? py : px) + rank;
  const bool pad = paired >= (along_y ? p.tiles_y : p.tiles_x);
  const int own = pad ? paired - rank : paired;
  return {along_y ? px : own, along_y ? own : py, pad};
}

TEST(Sm90Plan, ClusterPairsCoverEveryTileOnce) {
  const int shapes[][2] = {{512, 28672}, {4095, 4097}, {333, 300}, {100, 1000}, {1000, 2104}, {8192, 8192}, {128, 128}};
  for (const auto& s : shapes)
    for (auto force : {sm90::ClusterForce::kShareX, sm90::ClusterForce::kShareY}) {
      const Plan one = sm90::plan_for(Shape::k256x128Block, 1, s[0], s[1], 1024, kH200Sms, 0);
      const Plan p = sm90::cluster_plan(one, kH200Sms, force);
      SCOPED_TRACE(label(s[0], s[1], 1024, true, kH200Sms, 0) + (p.share_x ? " share x" : " share y"));
      ASSERT_EQ(p.cluster, 2);
      EXPECT_EQ(p.share_x, force == sm90::ClusterForce::kShareX);
      std::vector<int> seen(static_cast<size_t>(p.tiles_x) * p.tiles_y, 0);
      for (int q = 0; q < p.num_units; ++q) {
        const PairTile t0 = pair_tile(p, q, 0), t1 = pair_tile(p, q, 1);
        EXPECT_FALSE(t0.pad);
        ASSERT_LT(t0.tx, p.tiles_x);
        ASSERT_LT(t0.ty, p.tiles_y);
        ASSERT_LT(t1.tx, p.tiles_x);
        ASSERT_LT(t1.ty, p.tiles_y);
        // The pair shares the tile of its shared side: the multicast halves make one tile.
        EXPECT_EQ(p.share_x ? t0.tx : t0.ty, p.share_x ? t1.tx : t1.ty);
        if (t1.pad) {
          EXPECT_TRUE(t1.tx == t0.tx && t1.ty == t0.ty);  // repeats the first, stores nothing
        }
        ++seen[static_cast<size_t>(t0.ty) * p.tiles_x + t0.tx];
        if (!t1.pad) ++seen[static_cast<size_t>(t1.ty) * p.tiles_x + t1.tx];
      }
      for (int v : seen) EXPECT_EQ(v, 1);
    }
}

TEST(Sm90Plan, ClustersWhereLegalAndWorthIt) {
  // Only the tile compiled with clusters (the 256 x 128 block tile), without
  // split-K; the override cannot put them anywhere else.
  for (Shape t : {Shape::k128x128, Shape::k128x128Block, Shape::k256x128, Shape::k128x64Swap, Shape::k128x64SwapBlock}) {
    const Plan one = sm90::plan_for(t, 1, 2048, 8192, 4096, kH200Sms, 0);
    EXPECT_EQ(sm90::cluster_plan(one, kH200Sms, sm90::ClusterForce::kOn).cluster, 1) << static_cast<int>(t);
  }
  EXPECT_EQ(sm90::make_plan(8192, 8192, 8192, false, kH200Sms, kAnyWorkspace, sm90::ClusterForce::kOn).cluster, 1);
  EXPECT_EQ(sm90::make_plan(16, 8192, 4096, true, kH200Sms, kAnyWorkspace, sm90::ClusterForce::kOn).cluster, 1);
  // The plan's own choice: two waves or more of 256 x 128 block tiles.
  const Plan big = sm90::make_plan(4096, 8192, 4096, true, kH200Sms, kAnyWorkspace);  // 16 x 64 tiles
  ASSERT_EQ(big.shape, Shape::k256x128Block);
  EXPECT_EQ(big.cluster, 2);
  EXPECT_TRUE(big.share_x);  // the 256-row X tile is the larger side
  EXPECT_EQ(big.grid, kH200Sms);
  EXPECT_EQ(sm90::make_plan(4096, 8192, 4096, true, kH200Sms, kAnyWorkspace, sm90::ClusterForce::kOff).cluster, 1);
  // One wave of 256 x 128 block tiles (2 x 48; make_plan gives this shape
  // the 128 x 192 tile, which has no cluster code).
  const Plan one_wave_tiles = sm90::plan_for(Shape::k256x128Block, 1, 512, 6144, 4096, kH200Sms, 0);
  EXPECT_EQ(sm90::cluster_plan(one_wave_tiles, kH200Sms, sm90::ClusterForce::kPlan).cluster, 1);
  EXPECT_EQ(sm90::cluster_plan(one_wave_tiles, kH200Sms, sm90::ClusterForce::kOn).cluster, 2);
  EXPECT_EQ(sm90::make_plan(512, 6144, 4096, true, kH200Sms, kAnyWorkspace, sm90::ClusterForce::kOn).cluster, 1);
  // One tile along Y: pairs go along X (Y shared).
  const Plan column = sm90::cluster_plan(sm90::plan_for(Shape::k256x128Block, 1, 4096, 100, 272, kH200Sms, 0),
                                         kH200Sms, sm90::ClusterForce::kOn);
  EXPECT_EQ(column.tiles_y, 1);
  EXPECT_FALSE(column.share_x);
  // An odd SM count keeps whole clusters.
  const Plan odd = sm90::make_plan(4096, 8192, 4096, true, 131, kAnyWorkspace);
  EXPECT_EQ(odd.cluster, 2);
  EXPECT_EQ(odd.grid % 2, 0);
}

// ---- Cluster split (plan.hpp: cluster_split_plan, decode_cluster_split) ----

// An idealised device: every SM takes a CTA of a cluster of any size.
sm90::ClusterFit full_fit(int sms) {
  sm90::ClusterFit f;
  for (int s = 2; s <= sm90::kMaxClusterSplit; ++s) f.ctas[s] = sms - sms % s;
  return f;
}

TEST(Sm90Plan, ClusterPlansFitOneWaveWithoutWorkspace) {
  std::mt19937 g(20261201);
  std::uniform_int_distribution<int> small_m(1, 600), big(1, 12000), kk(1, 2000);
  const int sm_counts[] = {8, 78, kH200Sms, 170};
  int clusters = 0;
  for (int i = 0; i < 3000; ++i) {
    const int m = (i % 2 == 0) ? small_m(g) : big(g);
    const int n = big(g);
    const int k = 16 * kk(g);
    const bool block = i % 3 == 0;
    const int sms = sm_counts[i % 4];
    sm90::ClusterFit fit = full_fit(sms);
    if (i % 5 == 0) fit.ctas[8] = fit.ctas[7] = 0;  // a device without room for the largest clusters
    for (size_t ws : {size_t{0}, kAnyWorkspace}) {
      const Plan p = sm90::make_plan(m, n, k, block, sms, ws, sm90::ClusterForce::kPlan, fit);
      expect_consistent(p, m, n, k, block, sms, ws);
      if (p.cluster_splits == 1) continue;
      SCOPED_TRACE(label(m, n, k, block, sms, ws));
      ++clusters;
      EXPECT_GE(p.cluster_splits, 2);
      EXPECT_EQ(p.cluster, 1);  // no 2-CTA multicast with it
      EXPECT_LE(p.cluster_splits, sm90::kMaxClusterSplit);
      EXPECT_EQ(p.splits, p.cluster_splits);
      EXPECT_EQ(p.workspace_bytes(), 0u);
      EXPECT_EQ(p.grid, p.num_units);  // one unit per CTA
      EXPECT_LE(p.grid, fit.ctas[p.cluster_splits]);
      EXPECT_GE(p.kb_per_split, p.swap ? sm90::kMinClusterKBlocksDecode : sm90::kMinSplitKBlocksLarge);
    }
  }
  EXPECT_GT(clusters, 100);
}

TEST(Sm90Plan, NoClusterSplitWithoutTheDevicesFit) {
  for (int m : {1, 16, 128, 200, 512})
    for (int n : {300, 2112, 4096})
      EXPECT_EQ(sm90::make_plan(m, n, 7168, false, kH200Sms, kAnyWorkspace).cluster_splits, 1) << m << "x" << n;
}

TEST(Sm90Plan, ForcedClusterPlanKeepsItsSizeAndMayLeaveCtasEmpty) {
  // 5 K blocks over 4 CTAs: 2, 2, 1, 0.
  const Plan p = sm90::cluster_split_plan(Shape::k128x64Swap, 4, 20, 300, 4 * 128 + 16, kH200Sms);
  EXPECT_EQ(p.cluster_splits, 4);
  EXPECT_EQ(p.splits, 4);
  EXPECT_EQ(p.kb_per_split, 2);
  EXPECT_EQ(p.num_units, 3 * 4);
  EXPECT_EQ(p.grid, p.num_units);
  EXPECT_EQ(p.workspace_bytes(), 0u);
  EXPECT_EQ(sm90::cluster_split_plan(Shape::k128x64Swap, 12, 1, 300, 4096, kH200Sms).cluster_splits,
            sm90::kMaxClusterSplit);
  // Tiles compiled without the cluster split keep their unsplit plan.
  for (Shape t : {Shape::k128x128, Shape::k128x128Block, Shape::k256x128, Shape::k256x128Block, Shape::k128x192,
                 Shape::k128x192Block})
    EXPECT_EQ(sm90::cluster_split_plan(t, 4, 300, 300, 4096, kH200Sms).cluster_splits, 1) << static_cast<int>(t);
}

// FP8KIT_SM90_CLUSTER_SPLIT's plan: 1 turns decode's cluster split off, 2 .. 8
// force it where its grid runs in one wave of the device's clusters, anything
// else leaves the rule's choice; prefill plans never take it.
TEST(Sm90Plan, ForcedDecodeClusterSplit) {
  const sm90::ClusterFit fit = full_fit(kH200Sms);
  auto plan = [&](int m, int n, int k, int force, const sm90::ClusterFit& f) {
    return sm90::make_plan(m, n, k, false, kH200Sms, kAnyWorkspace, sm90::ClusterForce::kPlan, f, false, force);
  };
  const Plan rule = plan(1, 4096, 4096, 0, fit);
  ASSERT_GT(rule.cluster_splits, 1);
  EXPECT_EQ(plan(1, 4096, 4096, 1, fit).cluster_splits, 1);
  for (int s = 2; s <= 4; ++s) {  // 32 tiles: 4 per cluster is 128 CTAs, one wave
    const Plan p = plan(1, 4096, 4096, s, fit);
    EXPECT_EQ(p.cluster_splits, s);
    EXPECT_EQ(p.grid, 32 * s);
    EXPECT_EQ(p.workspace_bytes(), 0u);
    expect_consistent(p, 1, 4096, 4096, false, kH200Sms, kAnyWorkspace);
  }
  EXPECT_EQ(plan(1, 4096, 4096, 5, fit).cluster_splits, rule.cluster_splits);  // 160 CTAs: two waves
  EXPECT_EQ(plan(1, 1024, 4096, 8, fit).cluster_splits, 8);                    // 8 tiles
  sm90::ClusterFit no_eight = fit;
  no_eight.ctas[8] = 0;
  EXPECT_EQ(plan(1, 1024, 4096, 8, no_eight).cluster_splits, plan(1, 1024, 4096, 0, no_eight).cluster_splits);
  for (int other : {0, 9, 100}) EXPECT_EQ(plan(1, 4096, 4096, other, fit).cluster_splits, rule.cluster_splits);
  EXPECT_EQ(plan(4096, 4096, 4096, 4, fit).cluster_splits, 1);
}

// FP8KIT_SM90_CLUSTER_SPLIT as the environment reads it (the same parser as
// FP8KIT_NVFP4_SM90_SPLIT): a positive decimal integer, else 0.
TEST(Sm90Plan, ClusterSplitEnvironmentIsAPositiveInteger) {
  const std::pair<const char*, int> cases[] = {{"4", 4}, {"12", 12}, {"0", 0}, {"-2", 0}, {"2x", 0}, {"", 0}};
  for (const auto& [text, want] : cases) {
    setenv("FP8KIT_SM90_CLUSTER_SPLIT", text, 1);
    fp8kit::reload_environment();
    EXPECT_EQ(fp8kit::environment().sm90_cluster_split, want) << "'" << text << "'";
  }
  unsetenv("FP8KIT_SM90_CLUSTER_SPLIT");
  fp8kit::reload_environment();
  EXPECT_EQ(fp8kit::environment().sm90_cluster_split, 0);
}

// The cluster choices on the H200 (its capacity per cluster size as the
// cluster-split run measured it; the choices fitted there:
// docs/perf/log/2026-12-01-cluster-split.md).
TEST(Sm90Plan, ClusterChoicesOnTheH200) {
  sm90::ClusterFit h200;
  const int ctas[] = {0, 0, 132, 117, 120, 110, 102, 105, 120};
  std::copy(std::begin(ctas), std::end(ctas), h200.ctas);
  struct Pin {
    int m, n, k;
    bool block;
    size_t ws;
    Shape shape;
    int cluster, splits;
  };
  const Pin pins[] = {
      {1, 4096, 4096, false, kAnyWorkspace, Shape::k128x64Swap, 2, 2},     // graph 9.5 -> 8.7 us (3 per cluster)
      {16, 2112, 7168, false, kAnyWorkspace, Shape::k128x64Swap, 4, 4},    // 12.4 us; 6 per cluster 13.0, 3 workspace 14.4
      {1, 4096, 7168, false, kAnyWorkspace, Shape::k128x64Swap, 3, 3},     // graph 14.3 -> 12.2 (4 workspace splits before)
      {1, 4096, 14336, false, kAnyWorkspace, Shape::k128x64Swap, 3, 3},    // graph 21.7 -> 20.5
      {1, 8192, 28672, false, kAnyWorkspace, Shape::k128x64Swap, 2, 2},    // graph 63.5 -> 60.7
      {1, 7168, 2048, false, kAnyWorkspace, Shape::k128x64Swap, 1, 1},     // 8 K blocks per CTA: unsplit is faster
      {1, 5120, 32768, false, kAnyWorkspace, Shape::k128x64Swap, 1, 3},    // 3 workspace splits: 48 us, clusters of 2: 68
      {1, 5120, 32768, false, 0, Shape::k128x64Swap, 2, 2},                // no workspace: clusters of 2
      {5, 300, 8320, false, kAnyWorkspace, Shape::k128x64Swap, 5, 5},      // the GPU tests' decode shape
      {1, 57344, 8192, false, kAnyWorkspace, Shape::k128x64Swap, 1, 1},    // a full grid
      {200, 300, 4224, false, kAnyWorkspace, Shape::k128x128, 1, 4},       // workspace split-K stays
      {200, 300, 4224, false, 0, Shape::k128x128, 1, 1},                   // no workspace: the normal tiles have no cluster split
      // (the cluster split cost the 128 x 128 tiles 2-4% unsplit: docs/perf/log/2026-12-01-integrated-run.md)
      {128, 4096, 4096, false, 0, Shape::k128x128, 1, 1},
      {512, 2112, 7168, true, 0, Shape::k128x128Block, 1, 1},              // 68 tiles: no split
  };
  for (const Pin& pin : pins) {
    const Plan p = sm90::make_plan(pin.m, pin.n, pin.k, pin.block, kH200Sms, pin.ws, sm90::ClusterForce::kPlan, h200);
    SCOPED_TRACE(label(pin.m, pin.n, pin.k, pin.block, kH200Sms, pin.ws));
    EXPECT_EQ(static_cast<int>(p.shape), static_cast<int>(pin.shape));
    EXPECT_EQ(p.cluster_splits, pin.cluster);
    EXPECT_EQ(p.splits, pin.splits);
  }
}

}  // namespace
