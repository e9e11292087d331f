// GPU correctness of the Hopper kernel's 2-CTA clusters with TMA multicast
// (src/gemm/sm90/cluster.cuh), forced on where legal through the path's
// development override FP8KIT_SM90_CLUSTER (2x: X shared, 2y: Y shared):
// the 256 x 128 block tile with odd tile counts (pad units), tiles_x = 1,
// ragged and padded M / N / K, with and without programmatic launch (the
// producer's weights-first order); every other scale mode with the
// override set, which must leave their plans alone. Fresh random
// inputs, poisoned outputs, float64 reference (reference/gemm_check.hpp).
// Skipped where no GPU is present, or where sm90_wgmma cannot run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <tuple>

#include "core/environment.hpp"
#include "reference/gemm_check.hpp"
#include "test_rng.hpp"
#include "test_tables.hpp"

using fp8kit::ref::GemmCase;
using fp8kit::ref::GemmOutcome;

namespace {

using fp8kit::test::rng;

struct Shape {
  int64_t m, n, k;
  int64_t lda_pad, ldd_pad;
  const char* why;
};
// On a 132-SM H200 the block mode takes the 256 x 128 block tile (the one
// compiled with clusters: tile_config.hpp) on all of these but the first
// (Sm90Plan pins the plans); the other modes take tiles without cluster
// code, where the override must change nothing. Tiles below are 256 x 128
// ones.
const Shape kShapes[] = {
    {200, 8500, 272, 0, 0, "tiles_x1"},         // the 128 x 192 tile (no cluster code): the override leaves it alone
    {513, 5124, 528, 0, 0, "odd3x41"},          // odd both ways: a pad either way; one row in the last tile row
    {769, 3460, 272, 0, 0, "wide4x28"},         // 4 x 28, ragged K
    {513, 4996, 144, 48, 7, "ragged_padded"},   // 3 x 40, one row in the last tile row, padded A and D
    {1280, 3328, 1040, 0, 0, "tiles5x26"},      // ragged K over 9 K blocks
    {2048, 6144, 400, 0, 0, "two_waves"},       // 8 x 48: the plan's own clusters
};
constexpr int kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]);

using fp8kit::test::kModes;
using fp8kit::test::kOuts;
constexpr int kModeCount = sizeof(kModes) / sizeof(kModes[0]);
const char* const kForces[] = {"2x", "2y"};

// Sets an environment variable for one test and puts the old value back
// (fp8kit reads its environment once: reload_environment makes it see both).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv(name, value, 1);
    fp8kit::reload_environment();
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
    fp8kit::reload_environment();
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

using ClusterParam = std::tuple<int /*shape*/, int /*mode*/, int /*force*/, bool /*pdl*/>;
class Sm90Cluster : public ::testing::TestWithParam<ClusterParam> {};

TEST_P(Sm90Cluster, MatchesReference) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  const auto [si, mi, fi, pdl] = GetParam();
  const Shape& s = kShapes[si];
  GemmCase c{s.m, s.n, s.k};
  c.lda_pad = s.lda_pad;
  c.ldd_pad = s.ldd_pad;
  c.a_mode = kModes[mi].a;
  c.b_mode = kModes[mi].b;
  c.d_type = kOuts[(si + mi) % 3];
  c.a_type = (si + fi) % 2 ? FP8KIT_DTYPE_E5M2 : FP8KIT_DTYPE_E4M3;
  c.bias = (mi + si) % 2 == 0;
  c.bias_type = kOuts[(mi + fi) % 3];
  c.align_d_rows();
  const ScopedEnv cluster("FP8KIT_SM90_CLUSTER", kForces[fi]);
  const ScopedEnv programmatic("FP8KIT_PDL", pdl ? "1" : "0");
  const GemmOutcome r = fp8kit::ref::run_case(c, FP8KIT_PATH_SM90_WGMMA, rng());
  if (r.status == FP8KIT_STATUS_UNSUPPORTED) GTEST_SKIP() << "sm90_wgmma cannot run here: " << r.message;
  ASSERT_EQ(r.status, FP8KIT_STATUS_SUCCESS) << c.label() << ": " << r.message;
  EXPECT_EQ(r.unwritten, 0) << c.label();
  EXPECT_EQ(r.clobbered, 0) << c.label() << ": bytes written outside D[M, N]";
  EXPECT_EQ(r.failures, 0) << c.label() << ": " << r.failures << " of " << r.checked << " outside the bound; first "
                           << r.first_failure;
}

std::string cluster_name(const ::testing::TestParamInfo<ClusterParam>& info) {
  const auto [si, mi, fi, pdl] = info.param;
  return std::string(kShapes[si].why) + "_" + kModes[mi].name + "_" + kForces[fi] + (pdl ? "_pdl" : "");
}

INSTANTIATE_TEST_SUITE_P(Forced, Sm90Cluster,
                         ::testing::Combine(::testing::Range(0, kShapeCount), ::testing::Range(0, kModeCount),
                                            ::testing::Range(0, 2), ::testing::Bool()),
                         cluster_name);

}  // namespace
