// GPU correctness of FAST accumulation (fp8kit_gemm_options.accumulation):
// every non-block scale mode x output on the tiles the H200's plans pick
// (128 x 128, 256 x 128 with two sub-tiles per consumer, 128 x 192, the
// swapped decode tiles with split-K through a cluster and through the
// workspace), through AUTO, sm90_wgmma and a portable path (which sums in f32
// either way), against the float64 reference under the fast bound
// (gemm_check.cpp, acc_error). Block scales with FAST are refused before
// launch. ErrorByDepth prints the worst accumulation error seen per K, for
// the record (docs/testing.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "core/arg_checks.hpp"
#include "core/dtype.hpp"
#include "reference/gemm_check.hpp"
#include "test_expect.hpp"
#include "test_rng.hpp"
#include "test_tables.hpp"

using fp8kit::ref::GemmCase;
using fp8kit::ref::GemmOutcome;

namespace {

using fp8kit::test::kModes;
using fp8kit::test::kOuts;
using fp8kit::test::kPairs;
using fp8kit::test::rng;

constexpr fp8kit_path kPaths[] = {FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA, FP8KIT_PATH_SM89_MMA};
constexpr int kNonBlockModes[] = {1, 2, 3, 4};  // kModes: tensor, tokchan, tokten, tenchan
struct Shape {
  int64_t m, n, k;
};
constexpr Shape kShapes[] = {{200, 136, 272},   {1000, 4104, 272}, {1000, 2104, 400},
                             {5, 300, 8320},    {200, 300, 4224},  {64, 4096, 4096}};

GemmOutcome run(const GemmCase& c, fp8kit_path path) {
  return fp8kit::ref::run_case(c, path, rng(), fp8kit::ref::kFullCheckLimit, fp8kit::ref::kCheckSamples);
}

using FastParam = std::tuple<fp8kit_path, int /*mode*/, int /*out*/, int /*shape*/>;
class GemmFastAccum : public ::testing::TestWithParam<FastParam> {};

TEST_P(GemmFastAccum, MatchesReference) {
  const auto [path, mi, oi, si] = GetParam();
  GemmCase c{kShapes[si].m, kShapes[si].n, kShapes[si].k};
  const int mode = kNonBlockModes[mi];
  c.a_mode = kModes[mode].a;
  c.b_mode = kModes[mode].b;
  const int pi = (mi + oi + si) % 4;
  c.a_type = kPairs[pi].first;
  c.b_type = kPairs[pi].second;
  c.d_type = kOuts[oi];
  // D's rows are 16-byte aligned (fp8kit.h): a ragged N gets a padded ldd.
  const int64_t per_row = fp8kit::kBaseAlign / fp8kit::dtype_bytes(c.d_type);
  c.ldd_pad = (per_row - c.n % per_row) % per_row;
  c.bias = (mi + si) % 2 == 1;
  c.bias_type = FP8KIT_DTYPE_BF16;
  c.accumulation = FP8KIT_ACCUMULATION_FAST;
  fp8kit::test::expect_correct(c, path);
}

std::string fast_name(const ::testing::TestParamInfo<FastParam>& info) {
  const auto [path, mi, oi, si] = info.param;
  const Shape& s = kShapes[si];
  return std::string(fp8kit_path_name(path)) + "_" + kModes[kNonBlockModes[mi]].name + "_" +
         fp8kit_dtype_name(kOuts[oi]) + "_" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

INSTANTIATE_TEST_SUITE_P(Fast, GemmFastAccum,
                         ::testing::Combine(::testing::ValuesIn(kPaths), ::testing::Range(0, 4), ::testing::Range(0, 3),
                                            ::testing::Range(0, 6)),
                         fast_name);

TEST(GemmFastAccumRefusal, BlockScalesAreRefusedBeforeLaunch) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  GemmCase c{128, 128, 256};
  c.a_mode = c.b_mode = FP8KIT_SCALE_BLOCK;
  c.accumulation = FP8KIT_ACCUMULATION_FAST;
  const GemmOutcome r = run(c, FP8KIT_PATH_AUTO);
  EXPECT_EQ(r.status, FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(r.message.find("options->accumulation"), std::string::npos) << r.message;
}

// The worst accumulation error (beyond D's rounding, relative to sum |a b s|)
// of promoted and fast sm90_wgmma GEMMs by K, f32 out, per-tensor scales.
TEST(GemmFastAccumError, ErrorByDepth) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  for (const int64_t k : {256, 1024, 4096, 16384}) {
    double worst[2] = {0, 0};
    for (const fp8kit_accumulation acc : {FP8KIT_ACCUMULATION_PROMOTED, FP8KIT_ACCUMULATION_FAST}) {
      GemmCase c{256, 512, k};
      c.d_type = FP8KIT_DTYPE_F32;
      c.accumulation = acc;
      const GemmOutcome r = run(c, FP8KIT_PATH_SM90_WGMMA);
      if (r.status == FP8KIT_STATUS_UNSUPPORTED) GTEST_SKIP() << "sm90_wgmma cannot run here: " << r.message;
      ASSERT_EQ(r.status, FP8KIT_STATUS_SUCCESS) << r.message;
      EXPECT_EQ(r.failures, 0) << c.label() << ": first " << r.first_failure;
      worst[acc] = r.worst_acc_error;
    }
    std::printf("accumulation error, K = %lld: promoted %.3g (2^%.1f), fast %.3g (2^%.1f) of sum |a b s|\n",
                static_cast<long long>(k), worst[0], std::log2(worst[0]), worst[1], std::log2(worst[1]));
  }
}

}  // namespace
