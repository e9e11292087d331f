// The FAST-only 128 x 256 tile of the native Hopper path (tile_config.hpp,
// ShapeRow::fast_only): forced plans with ragged M, N and K, unsplit and with
// split-K through a workspace, every vector scale pair x output x bias x
// operand types, against the float64 reference under the fast bound; and its
// launch refused before anything runs when the caller asks for promotion.
// Forced plans go through the path's dev header (sm90_forced.hpp).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "sm90_forced.hpp"

namespace sm90 = fp8kit::sm90;
namespace forced = fp8kit::test::sm90_forced;
using sm90::Shape;

namespace {

struct FastShape {
  int64_t m, n, k;
};
// Ragged on every side: one partial tile (200 x 300), 2 x 9 tiles with a
// 16-deep K tail, a K shorter than one block, and a tile row past N's
// 16-byte granule.
const FastShape kShapes[] = {{200, 300, 272}, {129, 2100, 1040}, {300, 1000, 16}, {1000, 520, 4224}};
constexpr int kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]);
constexpr int kSplits[] = {1, 2, 3};
constexpr size_t kWorkspaceBytes = size_t{64} << 20;

using FastTileParam = std::tuple<int /*shape*/, int /*splits*/, int /*rotation*/>;
class Sm90FastTile : public ::testing::TestWithParam<FastTileParam> {};

TEST_P(Sm90FastTile, MatchesReference) {
  const auto [si, spi, rot] = GetParam();
  std::string why;
  const fp8kit::DeviceInfo* dev = forced::hopper(&why);
  if (!dev) GTEST_SKIP() << why;
  const FastShape& s = kShapes[si];
  fp8kit::ref::GemmCase c = forced::rotated_case(s.m, s.n, s.k, false, rot + si);
  c.accumulation = FP8KIT_ACCUMULATION_FAST;
  const fp8kit::ref::DeviceBuffer ws(kWorkspaceBytes);
  fp8kit::LaunchEnv env;
  env.workspace = ws.get();
  env.workspace_size = kWorkspaceBytes;
  env.fast_accumulation = true;
  const sm90::Plan pl = sm90::plan_for(Shape::k128x256, kSplits[spi], static_cast<int>(s.m), static_cast<int>(s.n),
                                       static_cast<int>(s.k), dev->sm_count, kWorkspaceBytes);
  forced::run_plan(c, pl, env, "splits " + std::to_string(pl.splits));
}

std::string fast_tile_name(const ::testing::TestParamInfo<FastTileParam>& info) {
  const auto [si, spi, rot] = info.param;
  const FastShape& s = kShapes[si];
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + "_splits" +
         std::to_string(kSplits[spi]) + "_r" + std::to_string(rot);
}

// Five rotations cover every vector scale pair; with the shapes' offsets each
// output type and bias type meets each shape.
INSTANTIATE_TEST_SUITE_P(Tile128x256, Sm90FastTile,
                         ::testing::Combine(::testing::Range(0, kShapeCount), ::testing::Range(0, 3),
                                            ::testing::Range(0, forced::kVectorModeCount)),
                         fast_tile_name);

TEST(Sm90FastTileRefusal, PromotedLaunchIsRefused) {
  std::string why;
  const fp8kit::DeviceInfo* dev = forced::hopper(&why);
  if (!dev) GTEST_SKIP() << why;
  fp8kit::ref::GemmCase c{256, 512, 256};
  fp8kit::ref::Problem prob(c, fp8kit::test::rng());
  fp8kit::GemmParams p = fp8kit::operand_params(prob.desc().op, prob.desc().n, prob.desc().k);
  p.m = static_cast<int>(c.m);
  const sm90::Plan pl = sm90::plan_for(Shape::k128x256, 1, p.m, p.n, p.k, dev->sm_count, 0);
  EXPECT_EQ(sm90::launch_plan(p, *dev, fp8kit::LaunchEnv{}, nullptr, pl, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
