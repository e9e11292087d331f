// GPU correctness of fp8kit_grouped_gemm on every grouped path (sm90_wgmma
// forced, sm89_mma, sm75_hmma, AUTO): every layout x scale mode x output dtype
// x bias in both tile orientations (prefill and decode sizes), ragged / empty /
// all-on-one groups, more experts than one scan pass or the sm90 unit table,
// the device-side clamping of bad offsets and counts, CUDA-graph replay with
// new counts, and FAST accumulation on large batches; fresh random inputs, poisoned
// outputs (rows of no expert must stay poisoned), against the float64
// reference with the dense bound (docs/testing.md). Skipped without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "arch/config.hpp"
#include "gemm/sm90/tile_config.hpp"
#include "reference/grouped_check.hpp"
#include "test_rng.hpp"
#include "test_tables.hpp"

using fp8kit::ref::GemmOutcome;
using fp8kit::ref::GroupedCase;

namespace {

using fp8kit::test::rng;

const fp8kit_path kPaths[] = {FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA, FP8KIT_PATH_SM89_MMA, FP8KIT_PATH_SM75_HMMA};
const fp8kit_grouped_layout kLayouts[] = {FP8KIT_GROUPED_CONTIGUOUS, FP8KIT_GROUPED_MASKED};

using fp8kit::test::kModes;
using fp8kit::test::kOuts;
using fp8kit::test::kPairs;
const fp8kit_dtype kBiasTypes[] = {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16, FP8KIT_DTYPE_F32};

bool unsupported_here(const GemmOutcome& r, fp8kit_path path) {
  return r.status == FP8KIT_STATUS_UNSUPPORTED && path != FP8KIT_PATH_AUTO;
}

void expect_outcome(const GroupedCase& c, const GemmOutcome& r) {
  ASSERT_EQ(r.status, FP8KIT_STATUS_SUCCESS) << c.label() << ": " << r.message;
  EXPECT_EQ(r.unwritten, 0) << c.label();
  EXPECT_EQ(r.clobbered, 0) << c.label() << ": bytes written outside the experts' rows of D";
  EXPECT_EQ(r.failures, 0) << c.label() << ": " << r.failures << " of " << r.checked << " outside the bound; first "
                           << r.first_failure;
  ::testing::Test::RecordProperty("worst_error_over_bound", std::to_string(r.worst_ratio));
}

void expect_correct(const GroupedCase& c, fp8kit_path path) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  const GemmOutcome r = fp8kit::ref::run_grouped_case(c, path, rng());
  if (unsupported_here(r, path)) GTEST_SKIP() << fp8kit_path_name(path) << " cannot run here: " << r.message;
  expect_outcome(c, r);
}

// ---- Every layout x mode x output x bias on ragged groups -------------------

// Group sizes: prefill (more than 64 rows per expert: the 128 x 128 tiles of
// sm90_wgmma) and decode (at most 64: its swapped tiles).
const std::vector<int64_t> kModeSizes[] = {
    {0, 1, 130, 37, 200},     // an empty expert, one row, ragged M tiles
    {3, 0, 64, 17, 1, 40, 9},  // max_m 64, mean 19: decode
    {1, 16, 0, 5, 16, 2, 9},   // max_m 16: masked, sm90_wgmma's 16-token decode tile
};
const char* const kModeSizeNames[] = {"prefill", "decode", "decode16"};

using ModeParam = std::tuple<fp8kit_path, int /*layout*/, int /*mode*/, int /*out*/, int /*sizes*/>;
class GroupedModes : public ::testing::TestWithParam<ModeParam> {};

TEST_P(GroupedModes, MatchesReference) {
  const auto [path, li, mi, oi, zi] = GetParam();
  GroupedCase c;
  c.layout = kLayouts[li];
  c.n = 136;  // ragged N tile
  c.k = 272;  // 2 full 128-blocks + 16
  c.sizes = kModeSizes[zi];
  c.tail_rows = 3;  // contiguous: rows past the last end stay untouched
  c.a_mode = kModes[mi].a;
  c.b_mode = kModes[mi].b;
  c.a_type = kPairs[(li + mi + oi) % 4].first;
  c.b_type = kPairs[(li + mi + oi) % 4].second;
  c.d_type = kOuts[oi];
  const int bias_pick = (li + mi + 2 * oi) % 4;  // none, bf16, f16, f32
  c.bias = bias_pick != 0;
  c.bias_type = kBiasTypes[(bias_pick + 2) % 3];
  expect_correct(c, path);
}

std::string mode_name(const ::testing::TestParamInfo<ModeParam>& info) {
  const auto [path, li, mi, oi, zi] = info.param;
  return std::string(fp8kit_path_name(path)) + "_" + fp8kit_grouped_layout_name(kLayouts[li]) + "_" +
         kModes[mi].name + "_" + fp8kit_dtype_name(kOuts[oi]) + "_" + kModeSizeNames[zi];
}

INSTANTIATE_TEST_SUITE_P(All, GroupedModes,
                         ::testing::Combine(::testing::ValuesIn(kPaths), ::testing::Range(0, 2), ::testing::Range(0, 6),
                                            ::testing::Range(0, 3), ::testing::Range(0, 3)),
                         mode_name);

// ---- Group shapes ------------------------------------------------------------

struct Shape {
  const char* name;
  int64_t n, k;
  std::vector<int64_t> sizes;
  int64_t tail_rows, lda_pad, ldd_pad;
};

std::vector<int64_t> many_small(int experts, int max_rows) {
  std::mt19937 g(experts);
  std::vector<int64_t> s(experts);
  for (auto& x : s) x = static_cast<int64_t>(g() % (max_rows + 1));
  return s;
}

const Shape kShapes[] = {
    {"AllOnOne", 264, 128, {0, 0, 0, 300, 0, 0, 0, 0}, 0, 0, 0},
    {"AllEmptyWithTail", 64, 64, {0, 0, 0, 0}, 50, 0, 0},
    {"NoRows", 64, 64, {0, 0}, 0, 0, 0},
    {"ThreeHundredExperts", 72, 128, many_small(300, 6), 0, 0, 0},  // two scan passes of 256
    {"OverTableExperts", 40, 64, many_small(1100, 2), 0, 0, 0},      // sm90_wgmma refuses: AUTO falls back
    {"ManyPrefillTiles", 520, 384, {700, 129, 0, 1000}, 0, 0, 0},    // several 128-row tiles per expert
    {"LongK", 128, 7168, {33, 1, 17, 40}, 0, 0, 0},
    {"PaddedNarrowN", 24, 144, {5, 129, 0}, 7, 16, 8},
    {"OneExpert", 130, 1040, {257}, 0, 0, 0},
    // Masked decode slabs of max_m 16 (the benchmark's): sm90_wgmma loads 16
    // token rows into its 64-row tile; the rest is stale stage data.
    {"DecodeSlabs", 264, 1040, {16, 1, 0, 9, 16, 3, 16, 2}, 0, 0, 0},
    {"DecodeManyUnitsPerCta", 264, 256, many_small(150, 16), 0, 0, 0},  // ~3 units per CTA on 132 SMs
};

// A case's scales, operand and output types and bias.
struct Config {
  const char* name;
  fp8kit_scale_mode a_mode, b_mode;
  fp8kit_dtype a_type, b_type, d_type;
  bool bias;
  fp8kit_dtype bias_type;
  void apply(GroupedCase& c) const {
    c.a_mode = a_mode, c.b_mode = b_mode, c.a_type = a_type, c.b_type = b_type, c.d_type = d_type;
    c.bias = bias, c.bias_type = bias_type;
  }
};
constexpr fp8kit_dtype kE4 = FP8KIT_DTYPE_E4M3, kE5 = FP8KIT_DTYPE_E5M2;
const Config kShapeConfigs[] = {
    {"tensor_bf16", FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, kE4, kE4, FP8KIT_DTYPE_BF16, false, FP8KIT_DTYPE_F32},
    {"tokchan_f16_bias", FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL, kE4, kE4, FP8KIT_DTYPE_F16, true, FP8KIT_DTYPE_BF16},
    {"block_f32_bias", FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK, kE5, kE4, FP8KIT_DTYPE_F32, true, FP8KIT_DTYPE_F32},
};

using ShapeParam = std::tuple<fp8kit_path, int /*layout*/, int /*shape*/, int /*config*/>;
class GroupedShapes : public ::testing::TestWithParam<ShapeParam> {};

TEST_P(GroupedShapes, MatchesReference) {
  const auto [path, li, si, ci] = GetParam();
  const Shape& s = kShapes[si];
  GroupedCase c;
  c.layout = kLayouts[li];
  c.n = s.n;
  c.k = s.k;
  c.sizes = s.sizes;
  c.tail_rows = s.tail_rows;
  c.lda_pad = s.lda_pad;
  c.ldd_pad = s.ldd_pad;
  kShapeConfigs[ci].apply(c);
  const int ob = c.d_type == FP8KIT_DTYPE_F32 ? 4 : 2;
  while (((c.n + c.ldd_pad) * ob) % 16) ++c.ldd_pad;
  expect_correct(c, path);
}

std::string shape_name(const ::testing::TestParamInfo<ShapeParam>& info) {
  const auto [path, li, si, ci] = info.param;
  return std::string(fp8kit_path_name(path)) + "_" + fp8kit_grouped_layout_name(kLayouts[li]) + "_" +
         kShapes[si].name + "_" + kShapeConfigs[ci].name;
}

INSTANTIATE_TEST_SUITE_P(Groups, GroupedShapes,
                         ::testing::Combine(::testing::Values(FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA,
                                                              FP8KIT_PATH_SM89_MMA, FP8KIT_PATH_SM75_HMMA),
                                            ::testing::Range(0, 2), ::testing::Range(0, 11), ::testing::Range(0, 3)),
                         shape_name);

// ---- FAST accumulation -------------------------------------------------------

// Large enough batches that sm90_wgmma's plan takes its 128 x 256 tile on
// the lent GPUs' 132 SMs (the CPU test FastAccumulationTakesTheWideTileOnLargeBatches
// pins the choice): N 1000 (a ragged last 256-wide tile), K 400 (a
// partial K block), ragged and empty experts; each vector mode and output
// type, under the FAST bound.
const Config kFastConfigs[] = {
    kShapeConfigs[0],
    kShapeConfigs[1],
    {"none_f32_bias", FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE, kE4, kE5, FP8KIT_DTYPE_F32, true, FP8KIT_DTYPE_F32},
};
using FastParam = std::tuple<fp8kit_path, int /*layout*/, int /*config*/>;
class GroupedFast : public ::testing::TestWithParam<FastParam> {};

TEST_P(GroupedFast, MatchesReference) {
  const auto [path, li, ci] = GetParam();
  GroupedCase c;
  c.layout = kLayouts[li];
  c.n = 1000;
  c.k = 400;
  c.sizes = c.layout == FP8KIT_GROUPED_MASKED ? std::vector<int64_t>{300, 12, 0, 299, 150, 300, 1, 77}
                                              : std::vector<int64_t>{600, 0, 700, 300};
  c.tail_rows = 3;
  c.accumulation = FP8KIT_ACCUMULATION_FAST;
  kFastConfigs[ci].apply(c);
  expect_correct(c, path);
}

std::string fast_name(const ::testing::TestParamInfo<FastParam>& info) {
  const auto [path, li, ci] = info.param;
  return std::string(fp8kit_path_name(path)) + "_" + fp8kit_grouped_layout_name(kLayouts[li]) + "_" +
         kFastConfigs[ci].name;
}

INSTANTIATE_TEST_SUITE_P(Tiles, GroupedFast,
                         ::testing::Combine(::testing::Values(FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA,
                                                              FP8KIT_PATH_SM89_MMA),
                                            ::testing::Range(0, 2), ::testing::Range(0, 3)),
                         fast_name);

// ---- Group arrays only the device sees: clamped, never trusted ---------------

struct Clamp {
  const char* name;
  fp8kit_grouped_layout layout;
  int64_t experts, rows;
  std::vector<int32_t> groups;
};
const Clamp kClamps[] = {
    {"OffsOutOfOrder", FP8KIT_GROUPED_CONTIGUOUS, 4, 100, {50, 20, 80, 300}},
    {"OffsNegative", FP8KIT_GROUPED_CONTIGUOUS, 4, 60, {-5, 40, -1, 60}},
    {"OffsAboveT", FP8KIT_GROUPED_CONTIGUOUS, 3, 100, {200, 300, 2147483647}},
    {"OffsEndBeforeT", FP8KIT_GROUPED_CONTIGUOUS, 2, 300, {10, 140}},
    {"CountsAboveMaxM", FP8KIT_GROUPED_MASKED, 4, 64, {70, 64, 1000, 2147483647}},
    {"CountsNegative", FP8KIT_GROUPED_MASKED, 3, 40, {-3, -2147483647 - 1, 5}},
};

using ClampParam = std::tuple<fp8kit_path, int>;
class GroupedClamps : public ::testing::TestWithParam<ClampParam> {};

TEST_P(GroupedClamps, NothingOutOfBounds) {
  const auto [path, ci] = GetParam();
  const Clamp& cl = kClamps[ci];
  GroupedCase c;
  c.layout = cl.layout;
  c.n = 136;
  c.k = 144;
  c.sizes.assign(static_cast<size_t>(cl.experts), 0);
  if (cl.layout == FP8KIT_GROUPED_CONTIGUOUS) c.tail_rows = cl.rows;
  else c.max_m = cl.rows;
  c.raw_groups = cl.groups;
  c.a_mode = FP8KIT_SCALE_ROW;  // per-row scales: an out-of-range row would read past them
  c.b_mode = FP8KIT_SCALE_COL;
  c.bias = true;
  expect_correct(c, path);
}

INSTANTIATE_TEST_SUITE_P(Device, GroupedClamps,
                         ::testing::Combine(::testing::ValuesIn(kPaths), ::testing::Range(0, 6)),
                         [](const auto& info) {
                           return std::string(fp8kit_path_name(std::get<0>(info.param))) + "_" +
                                  kClamps[std::get<1>(info.param)].name;
                         });

// ---- CUDA graphs: captured once, replayed with new group sizes ---------------

using GraphParam = std::tuple<fp8kit_path, int /*layout*/>;
class GroupedGraph : public ::testing::TestWithParam<GraphParam> {};

TEST_P(GroupedGraph, ReplayWithNewCounts) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  const auto [path, li] = GetParam();
  GroupedCase c;
  c.layout = kLayouts[li];
  c.n = 200;
  c.k = 256;
  c.sizes = {40, 0, 90, 30};  // T = 160 rows (contiguous) or max_m = 90 (masked)
  c.a_mode = FP8KIT_SCALE_BLOCK;
  c.b_mode = FP8KIT_SCALE_BLOCK;
  c.bias = true;
  fp8kit::ref::GroupedProblem problem(c, rng());
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  fp8kit_gemm_options o;
  fp8kit_gemm_options_init(&o);
  o.path = path;
  fp8kit_path chosen = path;  // the path AUTO takes sets the check's accumulation bound
  if (fp8kit_grouped_gemm_select(&problem.desc(), &o, &chosen) != FP8KIT_STATUS_SUCCESS) chosen = path;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const fp8kit_status s = fp8kit_grouped_gemm(&problem.desc(), &o, stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  if (s == FP8KIT_STATUS_UNSUPPORTED && path != FP8KIT_PATH_AUTO) {
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    GTEST_SKIP() << fp8kit_path_name(path) << " cannot run here: " << fp8kit_last_error();
  }
  ASSERT_EQ(s, FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  const bool masked = c.layout == FP8KIT_GROUPED_MASKED;
  // New sizes per replay: all on one expert, all empty, ragged.
  const std::vector<std::vector<int32_t>> replays =
      masked ? std::vector<std::vector<int32_t>>{{0, 0, 90, 0}, {0, 0, 0, 0}, {1, 89, 3, 64}}
             : std::vector<std::vector<int32_t>>{{0, 0, 160, 160}, {0, 0, 0, 0}, {1, 90, 93, 157}};
  for (const auto& groups : replays) {
    problem.set_groups(groups);
    problem.poison();
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    GemmOutcome r = problem.check(chosen, rng());
    expect_outcome(c, r);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

INSTANTIATE_TEST_SUITE_P(Layouts, GroupedGraph,
                         ::testing::Combine(::testing::Values(FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA,
                                                              FP8KIT_PATH_SM89_MMA),
                                            ::testing::Range(0, 2)),
                         [](const auto& info) {
                           return std::string(fp8kit_path_name(std::get<0>(info.param))) + "_" +
                                  fp8kit_grouped_layout_name(kLayouts[std::get<1>(info.param)]);
                         });

// ---- Refusals that need a real device -----------------------------------------

TEST(GroupedDevice, HostGroupArrayIsRefusedBeforeLaunch) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  GroupedCase c;
  c.n = 64;
  c.k = 64;
  c.sizes = {3, 4};
  const fp8kit::ref::GroupedProblem problem(c, rng());
  static const int32_t host_offs[2] = {3, 7};
  fp8kit_grouped_gemm_desc d = problem.desc();
  d.offs = host_offs;
  EXPECT_EQ(fp8kit_grouped_gemm(&d, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("offs = "), std::string::npos) << fp8kit_last_error();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

bool on_hopper() {
  int dev = 0, major = 0, minor = 0;
  return cudaGetDevice(&dev) == cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
         cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess &&
         fp8kit::arch::kHopperWgmma.contains(10 * major + minor);
}

fp8kit_status select_path(const fp8kit_grouped_gemm_desc& d, fp8kit_path want, fp8kit_path* got) {
  fp8kit_gemm_options o;
  fp8kit_gemm_options_init(&o);
  o.path = want;
  return fp8kit_grouped_gemm_select(&d, &o, got);
}

// On Hopper AUTO takes sm90_wgmma (which the forced cases above then really
// ran: they skip only where the path is refused); elsewhere forcing it is
// refused with the reason.
TEST(GroupedDevice, WgmmaPathPreferredOnHopperOnly) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  GroupedCase c;
  c.n = 64;
  c.k = 64;
  c.sizes = {3, 4};
  const fp8kit::ref::GroupedProblem problem(c, rng());
  fp8kit_path got = FP8KIT_PATH_AUTO;
  if (on_hopper()) {
    ASSERT_EQ(select_path(problem.desc(), FP8KIT_PATH_AUTO, &got), FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
    EXPECT_EQ(got, FP8KIT_PATH_SM90_WGMMA);
    EXPECT_EQ(select_path(problem.desc(), FP8KIT_PATH_SM90_WGMMA, &got), FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
  } else {
    EXPECT_EQ(select_path(problem.desc(), FP8KIT_PATH_SM90_WGMMA, &got), FP8KIT_STATUS_UNSUPPORTED);
    EXPECT_NE(std::string(fp8kit_last_error()).find("sm90_wgmma"), std::string::npos) << fp8kit_last_error();
  }
}

// More experts than the sm90 unit table: forced, refused naming `experts`;
// AUTO falls back to the next grouped path.
TEST(GroupedDevice, WgmmaPathRefusesExpertsAboveItsTable) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  if (!on_hopper()) GTEST_SKIP() << "sm90_wgmma runs on Hopper only";
  GroupedCase c;
  c.n = 32;
  c.k = 64;
  c.sizes.assign(fp8kit::sm90::kMaxGroupedExperts + 1, 1);
  const fp8kit::ref::GroupedProblem problem(c, rng());
  fp8kit_path got = FP8KIT_PATH_AUTO;
  EXPECT_EQ(select_path(problem.desc(), FP8KIT_PATH_SM90_WGMMA, &got), FP8KIT_STATUS_UNSUPPORTED);
  EXPECT_NE(std::string(fp8kit_last_error()).find("experts = 1025"), std::string::npos) << fp8kit_last_error();
  ASSERT_EQ(select_path(problem.desc(), FP8KIT_PATH_AUTO, &got), FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
  EXPECT_EQ(got, FP8KIT_PATH_SM89_MMA);
}

}  // namespace
