// The native Hopper grouped path's host plan (src/gemm/sm90/grouped_plan.hpp):
// the tile from host-known sizes only, the unit bound against the units the
// device counts (the clamped group sizes of the reference), the persistent
// grid, the refusals and the grouped tiles' shared-memory budget. Host only.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gemm/sm90/grouped_plan.hpp"
#include "gemm/sm90/shared_storage.hpp"
#include "reference/grouped_reference.hpp"

namespace sm90 = fp8kit::sm90;
using fp8kit::GroupedParams;
using sm90::Shape;
// The configurations of a shape for each problem kind.
template <Shape S>
using Dense = sm90::TileConfig<S, sm90::Kind::kDense>;
template <Shape S>
using Grouped = sm90::TileConfig<S, sm90::Kind::kGrouped>;

namespace {

constexpr int kH200Sms = 132;

GroupedParams problem(fp8kit_grouped_layout layout, int experts, int rows, int n, bool block = false) {
  GroupedParams g{};
  g.layout = layout;
  g.experts = experts;
  g.rows = rows;
  g.dense.n = n;
  g.dense.k = 256;
  g.dense.a_scale_mode = block ? FP8KIT_SCALE_BLOCK : FP8KIT_SCALE_TENSOR;
  g.dense.b_scale_mode = g.dense.a_scale_mode;
  return g;
}

TEST(Sm90GroupedPlan, OrientationFromHostSizesOnly) {
  // Masked: max_m; contiguous: the mean rows per expert, against kSwapMaxM.
  EXPECT_TRUE(sm90::make_grouped_plan(problem(FP8KIT_GROUPED_MASKED, 8, 64, 4096), kH200Sms).swap);
  EXPECT_FALSE(sm90::make_grouped_plan(problem(FP8KIT_GROUPED_MASKED, 8, 65, 4096), kH200Sms).swap);
  EXPECT_TRUE(sm90::make_grouped_plan(problem(FP8KIT_GROUPED_CONTIGUOUS, 8, 8 * 64, 4096), kH200Sms).swap);
  EXPECT_FALSE(sm90::make_grouped_plan(problem(FP8KIT_GROUPED_CONTIGUOUS, 8, 8 * 64 + 8, 4096), kH200Sms).swap);
  EXPECT_TRUE(sm90::make_grouped_plan(problem(FP8KIT_GROUPED_CONTIGUOUS, 8, 0, 4096), kH200Sms).swap);
}

TEST(Sm90GroupedPlan, TileOfEachOrientationAndScaleMode) {
  const struct {
    int rows;
    bool block;
    Shape shape;
    int a_rows;
  } cases[] = {{16, false, Shape::k128x16Swap, 16},
               {16, true, Shape::k128x64SwapBlock, 64},
               {17, false, Shape::k128x64Swap, 64},
               {32, false, Shape::k128x64Swap, 64},
               {32, true, Shape::k128x64SwapBlock, 64},
               {512, false, Shape::k128x128, 128},
               {512, true, Shape::k128x128Block, 128}};
  for (const auto& c : cases) {
    const sm90::GroupedPlan pl = sm90::make_grouped_plan(problem(FP8KIT_GROUPED_MASKED, 4, c.rows, 300, c.block), kH200Sms);
    EXPECT_EQ(pl.shape, c.shape) << c.rows << (c.block ? " block" : "");
    EXPECT_EQ(pl.a_rows, c.a_rows);
    EXPECT_EQ(pl.b_rows, 128);
    EXPECT_EQ(pl.b_tiles, 3);  // ceil(300 / 128)
    EXPECT_EQ(pl.swap, c.a_rows < 128);
  }
}

// The 16-token decode tile is masked only: a contiguous batch of the same
// mean keeps the 64-token tile (one expert of many rows would stream its
// weights once per 16 of them).
TEST(Sm90GroupedPlan, DecodeTileIsMaskedOnly) {
  EXPECT_EQ(sm90::make_grouped_plan(problem(FP8KIT_GROUPED_MASKED, 8, 1, 4096), kH200Sms).shape,
            Shape::k128x16Swap);
  EXPECT_EQ(sm90::make_grouped_plan(problem(FP8KIT_GROUPED_CONTIGUOUS, 8, 8 * 16, 4096), kH200Sms).shape,
            Shape::k128x64Swap);
  using C = Grouped<Shape::k128x16Swap>;
  static_assert(C::kGrouped && C::kSwap && !C::kBlock && C::kBlockN == sm90::kDecodeMaxM, "the decode tile");
  EXPECT_GT(C::kStages, Grouped<Shape::k128x64Swap>::kStages) << "a quarter of the token bytes";
  EXPECT_FALSE(C::kTmaStores) << "its 16-row D sub-tiles are not D's 64-row store boxes";
  EXPECT_LE(sm90::smem_bytes<C>(), sm90::kSmemBytesMax);
}

// The device's unit count (sum_e ceil(rows_e / a_rows) x b_tiles over the
// clamped sizes) never exceeds the host bound the grid is sized from.
TEST(Sm90GroupedPlan, UnitBoundCoversEveryGrouping) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const auto layout = trial % 2 ? FP8KIT_GROUPED_MASKED : FP8KIT_GROUPED_CONTIGUOUS;
    const int experts = 1 + static_cast<int>(rng() % 64);
    const int rows = static_cast<int>(rng() % 1500);
    const int n = 1 + static_cast<int>(rng() % 700);
    std::vector<int32_t> groups(experts);
    for (auto& v : groups) v = static_cast<int32_t>(rng() % (rows + 200)) - 50;  // out of order, negative, too big
    const GroupedParams g = problem(layout, experts, rows, n, trial % 3 == 0);
    const sm90::GroupedPlan pl = sm90::make_grouped_plan(g, kH200Sms);
    int64_t units = 0;
    for (const auto& r : fp8kit::ref::expert_rows(layout, experts, rows, groups.data()))
      units += fp8kit::ceil_div(r.count, pl.a_rows) * pl.b_tiles;
    ASSERT_LE(units, pl.max_units) << "trial " << trial;
    EXPECT_EQ(pl.grid, std::min<int64_t>(pl.max_units, kH200Sms));
    EXPECT_TRUE(sm90::grouped_limit_refusal(g, pl).empty());
  }
}

// A's box: masked swapped tiles load max_m token rows (at most the tile's
// 64); contiguous and unswapped tiles whole tiles. The stage's transaction
// bytes are the two boxes.
TEST(Sm90GroupedPlan, MaskedDecodeLoadsOnlyTheSlabRows) {
  const struct {
    fp8kit_grouped_layout layout;
    int rows;
    bool block;
    int a_box_rows;
  } cases[] = {{FP8KIT_GROUPED_MASKED, 1, false, 1},       {FP8KIT_GROUPED_MASKED, 16, false, 16},
               {FP8KIT_GROUPED_MASKED, 16, true, 16},      {FP8KIT_GROUPED_MASKED, 37, false, 37},
               {FP8KIT_GROUPED_MASKED, 64, false, 64},     {FP8KIT_GROUPED_MASKED, 65, false, 128},
               {FP8KIT_GROUPED_MASKED, 512, true, 128},    {FP8KIT_GROUPED_CONTIGUOUS, 8 * 16, false, 64},
               {FP8KIT_GROUPED_CONTIGUOUS, 8 * 512, false, 128}};
  for (const auto& c : cases) {
    const sm90::GroupedPlan pl = sm90::make_grouped_plan(problem(c.layout, 8, c.rows, 300, c.block), kH200Sms);
    EXPECT_EQ(pl.a_box_rows, c.a_box_rows) << c.layout << " rows " << c.rows;
    EXPECT_LE(pl.a_box_rows, pl.a_rows);
    EXPECT_EQ(pl.stage_tx_bytes, (pl.a_box_rows + pl.b_rows) * sm90::kBlockK);
  }
  // Whole boxes are the tile's stage.
  EXPECT_EQ(sm90::make_grouped_plan(problem(FP8KIT_GROUPED_MASKED, 8, 64, 300), kH200Sms).stage_tx_bytes,
            Grouped<Shape::k128x64Swap>::kStageBytes);
  EXPECT_EQ(sm90::make_grouped_plan(problem(FP8KIT_GROUPED_MASKED, 8, 512, 300), kH200Sms).stage_tx_bytes,
            Grouped<Shape::k128x128>::kStageBytes);
}

TEST(Sm90GroupedPlan, NoRowsNoLaunch) {
  for (auto layout : {FP8KIT_GROUPED_CONTIGUOUS, FP8KIT_GROUPED_MASKED}) {
    const sm90::GroupedPlan pl = sm90::make_grouped_plan(problem(layout, 4, 0, 256), kH200Sms);
    EXPECT_EQ(pl.max_units, 0);
    EXPECT_EQ(pl.grid, 0);
  }
}

TEST(Sm90GroupedPlan, RefusalsNameTheLimit) {
  GroupedParams g = problem(FP8KIT_GROUPED_MASKED, sm90::kMaxGroupedExperts, 4, 64);
  EXPECT_TRUE(sm90::grouped_limit_refusal(g, sm90::make_grouped_plan(g, kH200Sms)).empty());
  g.experts = sm90::kMaxGroupedExperts + 1;
  const std::string why = sm90::grouped_limit_refusal(g, sm90::make_grouped_plan(g, kH200Sms));
  EXPECT_NE(why.find("experts = 1025"), std::string::npos) << why;
  EXPECT_NE(why.find("1024"), std::string::npos) << why;
  g = problem(FP8KIT_GROUPED_CONTIGUOUS, 4, 2147483647 - 100, 64);  // T within 512 of 2^31
  EXPECT_NE(sm90::grouped_limit_refusal(g, sm90::make_grouped_plan(g, kH200Sms)).find("rows of A"), std::string::npos);
}

template <Shape S>
void expect_grouped_budget() {
  using Cg = sm90::TileConfig<S, sm90::Kind::kGrouped>;
  using Cd = sm90::TileConfig<S, sm90::Kind::kDense>;
  static_assert(Cg::kGrouped && !Cd::kGrouped, "a grouped tile beside its dense one");
  EXPECT_EQ(Cg::kSwap, Cd::kSwap);
  EXPECT_EQ(Cg::kBlock, Cd::kBlock);
  EXPECT_EQ(Cg::kBlockM, Cd::kBlockM);
  EXPECT_EQ(Cg::kBlockN, Cd::kBlockN);
  EXPECT_GE(Cg::kStages, 3);
  EXPECT_LE(Cd::kStages - Cg::kStages, 1) << "the unit table costs at most one stage";
  EXPECT_LE(sm90::smem_bytes<Cg>(), sm90::kSmemBytesMax);
  // The table is in the grouped storage only (an empty base of the dense one).
  EXPECT_TRUE(std::is_empty_v<sm90::GroupTable<false>>);
  EXPECT_GE(sizeof(sm90::SharedStorage<Cg>), sizeof(sm90::GroupTable<true>) + Cg::kStages * Cg::kStageBytes);
}

TEST(Sm90GroupedPlan, GroupedTilesAreTheDenseOnesPlusTheTable) {
  expect_grouped_budget<Shape::k128x128>();
  expect_grouped_budget<Shape::k128x128Block>();
  expect_grouped_budget<Shape::k128x64Swap>();
  expect_grouped_budget<Shape::k128x64SwapBlock>();
  expect_grouped_budget<Shape::k128x256>();
  // The 128 x 256 tile keeps its four stages: its D staging in quarters
  // makes the room of the unit table.
  EXPECT_EQ(Grouped<Shape::k128x256>::kStages, Dense<Shape::k128x256>::kStages);
  EXPECT_EQ(Grouped<Shape::k128x256>::kStagingBytes * 2, Dense<Shape::k128x256>::kStagingBytes);
}

// A FAST batch of many 128-token tiles takes the 128 x 256 tile (half the
// units); promoted, block-scale and decode-sized batches never do, nor a
// batch whose 128 x 128 units fit about one wave.
TEST(Sm90GroupedPlan, FastAccumulationTakesTheWideTileOnLargeBatches) {
  auto plan = [](GroupedParams g, bool fast) { return sm90::make_grouped_plan(g, kH200Sms, fast).shape; };
  auto sized = [](GroupedParams g, int k) {
    g.dense.k = k;
    return g;
  };
  // 64 experts x 256 rows, N 2048, K 7168: at most 3072 units of 128 x 128.
  const GroupedParams large = sized(problem(FP8KIT_GROUPED_CONTIGUOUS, 64, 64 * 256, 2048), 7168);
  EXPECT_EQ(plan(large, true), Shape::k128x256);
  EXPECT_EQ(plan(large, false), Shape::k128x128);
  EXPECT_EQ(plan(sized(problem(FP8KIT_GROUPED_CONTIGUOUS, 64, 64 * 256, 2048, true), 7168), true),
            Shape::k128x128Block);
  EXPECT_EQ(plan(sized(problem(FP8KIT_GROUPED_MASKED, 64, 16, 2048), 7168), true), Shape::k128x16Swap);
  // 4 experts x 128 rows, N 2048: 64 units of 128 x 128, under one wave.
  EXPECT_EQ(plan(sized(problem(FP8KIT_GROUPED_MASKED, 4, 128, 2048), 7168), true), Shape::k128x128);
  // One A tile per expert streams the weights either way: DeepSeek-V3 gate_up
  // at 4,096 tokens (256 experts x 128 rows) keeps 128 x 128; 129 rows take
  // the wide tile.
  EXPECT_EQ(plan(sized(problem(FP8KIT_GROUPED_CONTIGUOUS, 256, 256 * 128, 4096), 7168), true), Shape::k128x128);
  EXPECT_EQ(plan(sized(problem(FP8KIT_GROUPED_CONTIGUOUS, 256, 256 * 129, 4096), 7168), true), Shape::k128x256);
  EXPECT_EQ(plan(sized(problem(FP8KIT_GROUPED_MASKED, 64, 128, 4096), 7168), true), Shape::k128x128);
  // The GPU tests' FAST cases (tests/gpu/test_grouped_gpu.cpp) reach the tile
  // on the lent GPUs' 132 SMs: contiguous T 1600 over 4 experts, masked 8 x
  // max_m 300, N 1000, K 400.
  EXPECT_EQ(plan(sized(problem(FP8KIT_GROUPED_CONTIGUOUS, 4, 1600, 1000), 400), true), Shape::k128x256);
  EXPECT_EQ(plan(sized(problem(FP8KIT_GROUPED_MASKED, 8, 300, 1000), 400), true), Shape::k128x256);
  const sm90::GroupedPlan pl = sm90::make_grouped_plan(large, kH200Sms, true);
  EXPECT_EQ(pl.a_rows, 128);
  EXPECT_EQ(pl.b_rows, 256);
  EXPECT_EQ(pl.b_tiles, 8);
  EXPECT_EQ(pl.stage_tx_bytes, Grouped<Shape::k128x256>::kStageBytes);
}

}  // namespace
