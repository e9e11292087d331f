// Cluster split on the native Hopper path (src/gemm/sm90/cluster_split.cuh):
// forced plans of every tile with its code in clusters of 2..8 CTAs with ragged K
// (the last CTA with fewer K blocks, an empty CTA), and the plan's own
// cluster choices in every scale mode x output x bias and decode M = 1..64,
// against the float64 reference, with fresh random inputs and poisoned D.
// Forced plans go through the path's dev header, as dev/sm90's harness does.
// Built where the sm90 family is (tests/CMakeLists.txt); skipped without a
// Hopper GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <tuple>

#include "sm90_forced.hpp"

namespace sm90 = fp8kit::sm90;
using fp8kit::ref::GemmCase;
using sm90::Shape;

namespace {

using fp8kit::test::rng;
using fp8kit::test::sm90_forced::expect_correct;
using fp8kit::test::sm90_forced::hopper;
using fp8kit::test::sm90_forced::ragged_k;
using fp8kit::test::sm90_forced::rotated_case;

// One case with the plan of tile `t` in clusters of `s` CTAs, no workspace.
void run_forced(const GemmCase& c, Shape t, int s) {
  std::string why;
  const fp8kit::DeviceInfo* dev = hopper(&why);
  if (!dev) GTEST_SKIP() << why;
  const sm90::Plan pl = sm90::cluster_split_plan(t, s, static_cast<int>(c.m), static_cast<int>(c.n),
                                                 static_cast<int>(c.k), dev->sm_count);
  ASSERT_EQ(pl.cluster_splits, s);
  fp8kit::test::sm90_forced::run_plan(c, pl, fp8kit::LaunchEnv{},
                                      "cluster " + std::to_string(s) + " kb/cta " + std::to_string(pl.kb_per_split));
}

// The tiles compiled with the cluster split (tile_config.hpp, ShapeRow::cluster_split).
constexpr Shape kTiles[] = {Shape::k128x64Swap, Shape::k128x64SwapBlock};
const char* const kTileNames[] = {"swap", "swapblock"};
constexpr int kTileCount = sizeof(kTiles) / sizeof(kTiles[0]);
using fp8kit::test::kOuts;
constexpr int kDecodeMs[] = {1, 9, 16, 33, 64};

// ---- Forced: every tile x cluster size x K layout ---------------------------
// K layouts of S CTAs: `even` 2S K blocks (2 each), `fewer` 2S - 1 (the last
// CTA has 1), `empty` S + 1 (2 each: the last CTAs have none; S = 2: 1 block).
enum KLayout { kEven, kFewer, kEmpty };
const char* const kLayoutNames[] = {"even", "fewer", "empty"};

using ForcedParam = std::tuple<int /*tile*/, int /*S*/, int /*layout*/>;
class Sm90ClusterSplitForced : public ::testing::TestWithParam<ForcedParam> {};

TEST_P(Sm90ClusterSplitForced, MatchesReference) {
  const auto [ti, s, layout] = GetParam();
  const Shape t = kTiles[ti];
  const bool swap = t == Shape::k128x64Swap || t == Shape::k128x64SwapBlock;
  const bool block = t == Shape::k128x128Block || t == Shape::k128x64SwapBlock;
  const int kb = layout == kEven ? 2 * s : layout == kFewer ? 2 * s - 1 : (s == 2 ? 1 : s + 1);
  const int rot = ti * 21 + s * 3 + layout;
  const int64_t m = swap ? kDecodeMs[rot % 5] : 200;
  run_forced(rotated_case(m, 300, ragged_k(kb), block, rot), t, s);
}

std::string forced_name(const ::testing::TestParamInfo<ForcedParam>& info) {
  const auto [ti, s, layout] = info.param;
  return std::string(kTileNames[ti]) + "_S" + std::to_string(s) + "_" + kLayoutNames[layout];
}

INSTANTIATE_TEST_SUITE_P(Tiles, Sm90ClusterSplitForced,
                         ::testing::Combine(::testing::Range(0, kTileCount),
                                            ::testing::Range(2, sm90::kMaxClusterSplit + 1), ::testing::Range(0, 3)),
                         forced_name);

// ---- The plan's own cluster splits (no workspace, as the Python front end) ---
// On the H200 (its capacity as measured in docs/perf/log/2026-12-01-cluster-split.md): 5 x
// 300 x 8320 takes the swapped tile in clusters of 5, decode M x 2112 x 7168
// clusters of 4, 33 x 4096 x 4096 clusters of 2; 200 x 300 x 4224 and 128 x
// 2112 x 7168 take the unsplit 128 x 128 tile without a workspace (the normal
// tiles have no cluster split).
struct PlanShape {
  int64_t m, n, k;
};
const PlanShape kPlanShapes[] = {{200, 300, 4224}, {5, 300, 8320}, {1, 2112, 7168},  {16, 2112, 7168},
                                 {64, 2112, 7168}, {33, 4096, 4096}, {128, 2112, 7168}};
constexpr int kPlanModes = 6;  // the five vector pairs, then block
constexpr size_t kNoWorkspaceBytes = 256;  // a device pointer lent with workspace_size 0

using PlanParam = std::tuple<int /*shape*/, int /*mode*/, int /*out*/>;
class Sm90ClusterSplitPlan : public ::testing::TestWithParam<PlanParam> {};

TEST_P(Sm90ClusterSplitPlan, MatchesReference) {
  const auto [si, mi, oi] = GetParam();
  std::string why;
  const fp8kit::DeviceInfo* dev = hopper(&why);
  if (!dev) GTEST_SKIP() << why;
  const PlanShape& s = kPlanShapes[si];
  const bool block = mi == kPlanModes - 1;
  GemmCase c = rotated_case(s.m, s.n, s.k, block, si + mi);
  c.d_type = kOuts[oi];
  c.ldd_pad = 0;
  c.align_d_rows();
  const sm90::Plan pl = sm90::make_plan(static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k), block,
                                        dev->sm_count, 0, sm90::ClusterForce::kPlan, sm90::cluster_fit(*dev));
  ::testing::Test::RecordProperty("cluster", std::to_string(pl.cluster_splits));
  // A lent pointer of 0 bytes: the plan gets no workspace.
  const fp8kit::ref::DeviceBuffer none(kNoWorkspaceBytes);
  const fp8kit::ref::LentWorkspace ws{none.get(), 0, false};
  expect_correct(c, fp8kit::ref::run_case(c, FP8KIT_PATH_SM90_WGMMA, rng(), 1 << 16, 2048, ws),
                 "plan cluster " + std::to_string(pl.cluster_splits) + " tile " + std::to_string(static_cast<int>(pl.shape)));
}

std::string plan_name(const ::testing::TestParamInfo<PlanParam>& info) {
  const auto [si, mi, oi] = info.param;
  static const char* const kModeNames[] = {"none", "tensor", "tokchan", "tokten", "tenchan", "block"};
  const PlanShape& s = kPlanShapes[si];
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + "_" + kModeNames[mi] + "_" +
         fp8kit_dtype_name(kOuts[oi]);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Sm90ClusterSplitPlan,
                         ::testing::Combine(::testing::Range(0, 7), ::testing::Range(0, kPlanModes),
                                            ::testing::Range(0, 3)),
                         plan_name);

// The device's capacity per cluster size (what the plan fits its grids to),
// recorded for docs/perf/log/ (the cluster-split log has the H200's); the H200
// fits at least one wave of pairs.
TEST(Sm90ClusterSplit, DeviceCapacity) {
  std::string why;
  const fp8kit::DeviceInfo* dev = hopper(&why);
  if (!dev) GTEST_SKIP() << why;
  const sm90::ClusterFit fit = sm90::cluster_fit(*dev);
  std::string line;
  for (int s = 2; s <= sm90::kMaxClusterSplit; ++s) {
    line += " S" + std::to_string(s) + "=" + std::to_string(fit.ctas[s]);
    EXPECT_LE(fit.ctas[s], dev->sm_count);
    EXPECT_EQ(fit.ctas[s] % s, 0);
  }
  std::printf("cluster capacity (CTAs) on %s, %d SMs:%s\n", dev->name, dev->sm_count, line.c_str());
  ::testing::Test::RecordProperty("capacity", line);
  EXPECT_GE(fit.ctas[2], dev->sm_count / 2);
}

}  // namespace
