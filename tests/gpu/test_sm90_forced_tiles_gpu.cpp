// Forced plans of the native Hopper path's tiles that the suite's own shapes
// reach in few modes (tile_config.hpp): the FAST-only 128 x 256 tile, the
// 128 x 160 tile (D's store boxes 64 bytes wide, SWIZZLE_64B) promoted and
// FAST, and its block-scale twin (five 32-column scale groups). Ragged M, N
// and K, unsplit and with split-K through a workspace, every vector scale
// pair (block scales for the twin) x output x bias x operand types, against the
// float64 reference under the mode's bound; and the FAST-only tile's launch
// refused before anything runs when the caller asks for promotion. Forced
// plans go through the path's dev header (sm90_forced.hpp).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "sm90_forced.hpp"

namespace sm90 = fp8kit::sm90;
namespace forced = fp8kit::test::sm90_forced;
using sm90::Shape;

namespace {

struct TileShape {
  int64_t m, n, k;
};
// Ragged on every side: one partial tile (200 x 300), a row of tiles with a
// 16-deep K tail, a K shorter than one block, and a tile row past N's
// 16-byte granule (N = 2100: 13 x 160 + 20, 8 x 256 + 52).
const TileShape kShapes[] = {{200, 300, 272}, {129, 2100, 1040}, {300, 1000, 16}, {1000, 520, 4224}};
constexpr int kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]);
constexpr int kSplits[] = {1, 2, 3};
constexpr int kSplitCount = sizeof(kSplits) / sizeof(kSplits[0]);
constexpr size_t kWorkspaceBytes = size_t{64} << 20;

struct ForcedTile {
  Shape shape;
  bool fast;
  const char* name;
};
const ForcedTile kTiles[] = {
    {Shape::k128x256, true, "128x256_fast"},
    {Shape::k128x160, false, "128x160_promoted"},
    {Shape::k128x160, true, "128x160_fast"},
    {Shape::k128x160Block, false, "128x160_block"},
};
constexpr int kTileCount = sizeof(kTiles) / sizeof(kTiles[0]);

using ForcedTileParam = std::tuple<int /*tile*/, int /*shape*/, int /*splits*/, int /*rotation*/>;
class Sm90ForcedTile : public ::testing::TestWithParam<ForcedTileParam> {};

TEST_P(Sm90ForcedTile, MatchesReference) {
  const auto [ti, si, spi, rot] = GetParam();
  std::string why;
  const fp8kit::DeviceInfo* dev = forced::hopper(&why);
  if (!dev) GTEST_SKIP() << why;
  const ForcedTile& t = kTiles[ti];
  const TileShape& s = kShapes[si];
  fp8kit::ref::GemmCase c = forced::rotated_case(s.m, s.n, s.k, sm90::row(t.shape).block_scales, rot + si);
  if (t.fast) c.accumulation = FP8KIT_ACCUMULATION_FAST;
  const fp8kit::ref::DeviceBuffer ws(kWorkspaceBytes);
  fp8kit::LaunchEnv env;
  env.workspace = ws.get();
  env.workspace_size = kWorkspaceBytes;
  env.fast_accumulation = t.fast;
  const sm90::Plan pl = sm90::plan_for(t.shape, kSplits[spi], static_cast<int>(s.m), static_cast<int>(s.n),
                                       static_cast<int>(s.k), dev->sm_count, kWorkspaceBytes);
  forced::run_plan(c, pl, env, "splits " + std::to_string(pl.splits));
}

std::string forced_tile_name(const ::testing::TestParamInfo<ForcedTileParam>& info) {
  const auto [ti, si, spi, rot] = info.param;
  const TileShape& s = kShapes[si];
  return std::string(kTiles[ti].name) + "_" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k) + "_splits" + std::to_string(kSplits[spi]) + "_r" + std::to_string(rot);
}

// Five rotations cover every vector scale pair; with the shapes' offsets each
// output type and bias type meets each shape.
INSTANTIATE_TEST_SUITE_P(Tiles, Sm90ForcedTile,
                         ::testing::Combine(::testing::Range(0, kTileCount), ::testing::Range(0, kShapeCount),
                                            ::testing::Range(0, kSplitCount),
                                            ::testing::Range(0, forced::kVectorModeCount)),
                         forced_tile_name);

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
