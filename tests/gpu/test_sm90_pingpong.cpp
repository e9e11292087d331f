// GPU correctness of the Hopper ping-pong tiles (src/gemm/sm90/pingpong.cuh),
// forced through the path's development override FP8KIT_SM90_SCHEDULE (read
// at each call): every scale mode x output x bias, on shapes where the CTAs
// run an odd and an even number of units (each consumer takes every other
// unit of its CTA), ragged M, N and K. Against the float64 reference with
// fresh random inputs and a poisoned D (reference/gemm_check.hpp). Skipped
// without a GPU, and where sm90_wgmma cannot run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <tuple>

#include "reference/gemm_check.hpp"

using fp8kit::ref::GemmCase;
using fp8kit::ref::GemmOutcome;

namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 r{std::random_device{}()};
  return r;
}

struct Modes {
  fp8kit_scale_mode a, b;
  const char* name;
};
const Modes kModes[] = {
    {FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE, "none"},     {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, "tensor"},
    {FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL, "tokchan"},    {FP8KIT_SCALE_ROW, FP8KIT_SCALE_TENSOR, "tokten"},
    {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_COL, "tenchan"}, {FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK, "block"},
};
const fp8kit_dtype kOuts[] = {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16, FP8KIT_DTYPE_F32};
const fp8kit_dtype kFp8[] = {FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E5M2};

// Shapes by the units each CTA runs on a 132-SM H200 (128 x 128 tiles, one
// unit per tile): 1500 x 1500: 144 tiles, 12 CTAs with two units, the rest
// one (consumer 1 mostly idle); 2000 x 3000: 384 tiles, 120 CTAs with three
// (consumer 0 two, consumer 1 one), 12 with two; 4100 x 2050: 33 x 17 = 561
// tiles, four or five per CTA. Ragged M, N and K everywhere.
struct Shape {
  int64_t m, n, k;
};
const Shape kShapes[] = {{1500, 1500, 400}, {2000, 3000, 272}, {4100, 2050, 1040}};

class EnvSchedule {
 public:
  explicit EnvSchedule(const char* v) { setenv("FP8KIT_SM90_SCHEDULE", v, 1); }
  ~EnvSchedule() { unsetenv("FP8KIT_SM90_SCHEDULE"); }
};

void expect_correct_pingpong(const GemmCase& c) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  const EnvSchedule forced("pingpong");
  const GemmOutcome r = fp8kit::ref::run_case(c, FP8KIT_PATH_SM90_WGMMA, rng());
  if (r.status == FP8KIT_STATUS_UNSUPPORTED) GTEST_SKIP() << "sm90_wgmma cannot run here: " << r.message;
  ASSERT_EQ(r.status, FP8KIT_STATUS_SUCCESS) << c.label() << ": " << r.message;
  EXPECT_EQ(r.unwritten, 0) << c.label();
  EXPECT_EQ(r.clobbered, 0) << c.label() << ": bytes written outside D[M, N]";
  EXPECT_EQ(r.failures, 0) << c.label() << ": " << r.failures << " of " << r.checked << " outside the bound; first "
                           << r.first_failure;
  ::testing::Test::RecordProperty("worst_error_over_bound", std::to_string(r.worst_ratio));
}

using Param = std::tuple<int /*shape*/, int /*mode*/, int /*out*/>;
class Sm90PingPong : public ::testing::TestWithParam<Param> {};

TEST_P(Sm90PingPong, MatchesReference) {
  const auto [si, mi, oi] = GetParam();
  const Shape& s = kShapes[si];
  GemmCase c{s.m, s.n, s.k};
  c.a_mode = kModes[mi].a;
  c.b_mode = kModes[mi].b;
  c.a_type = kFp8[(mi + si) % 2];
  c.b_type = kFp8[(mi + oi) % 2];
  c.d_type = kOuts[oi];
  const int bias_pick = (si + mi + oi) % 4;  // cycles none, bf16, f16, f32
  c.bias = bias_pick != 0;
  c.bias_type = bias_pick == 1 ? FP8KIT_DTYPE_BF16 : bias_pick == 2 ? FP8KIT_DTYPE_F16 : FP8KIT_DTYPE_F32;
  c.lda_pad = si == 1 ? 16 : 0;
  const int64_t ob = c.d_type == FP8KIT_DTYPE_F32 ? 4 : 2;
  while (((c.n + c.ldd_pad) * ob) % 16) ++c.ldd_pad;  // D rows stay 16-byte aligned
  expect_correct_pingpong(c);
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  const auto [si, mi, oi] = info.param;
  const Shape& s = kShapes[si];
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + "_" + kModes[mi].name + "_" +
         fp8kit_dtype_name(kOuts[oi]);
}

INSTANTIATE_TEST_SUITE_P(Forced, Sm90PingPong,
                         ::testing::Combine(::testing::Range(0, 3), ::testing::Range(0, 6), ::testing::Range(0, 3)),
                         param_name);

// The override leaves decode to the swapped tile and the default to the plan:
// a decode shape and an unforced shape still pass (the schedule is read per call).
TEST(Sm90PingPongOverride, DecodeAndDefaultUnchanged) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  for (const char* v : {"pingpong", "cooperative", ""}) {
    const EnvSchedule forced(v);
    GemmCase c{v[0] ? 17 : 1000, 2112, 1040};
    const GemmOutcome r = fp8kit::ref::run_case(c, FP8KIT_PATH_SM90_WGMMA, rng());
    if (r.status == FP8KIT_STATUS_UNSUPPORTED) GTEST_SKIP() << "sm90_wgmma cannot run here: " << r.message;
    ASSERT_EQ(r.status, FP8KIT_STATUS_SUCCESS) << v << ": " << r.message;
    EXPECT_EQ(r.failures + r.unwritten + r.clobbered, 0) << v << " " << c.label();
  }
}

}  // namespace
