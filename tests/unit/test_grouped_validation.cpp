// Every rejection of fp8kit_grouped_gemm's argument checks, without a GPU:
// validation runs before the device is touched. Each case checks the status
// and that the message names the offending argument.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "core/environment.hpp"
#include "fp8kit/fp8kit.h"

namespace {

// Fake, well-aligned, non-overlapping addresses, never dereferenced.
uintptr_t fake(uintptr_t slot) { return 0x7f0000000000ull + slot * 0x100000000ull; }
template <typename T>
T* at(uintptr_t slot, uintptr_t offset = 0) {
  return reinterpret_cast<T*>(fake(slot) + offset);
}

// 4 experts, T = 300 routed rows, N = 65, K = 64, per-tensor scales [E].
fp8kit_grouped_gemm_desc valid_desc() {
  fp8kit_grouped_gemm_desc d = FP8KIT_GROUPED_GEMM_DESC_INIT;
  d.layout = FP8KIT_GROUPED_CONTIGUOUS;
  d.experts = 4; d.rows = 300; d.n = 65; d.k = 64;
  d.offs = at<const int32_t>(7);
  d.op.a = at<const void>(1); d.op.lda = 64; d.op.a_type = FP8KIT_DTYPE_E4M3;
  d.op.b = at<const void>(2); d.op.ldb = 64; d.op.b_type = FP8KIT_DTYPE_E4M3;
  d.op.d = at<void>(3); d.op.ldd = 72; d.op.d_type = FP8KIT_DTYPE_BF16;
  d.op.a_scale_mode = FP8KIT_SCALE_TENSOR; d.op.a_scale = at<const float>(4);
  d.op.b_scale_mode = FP8KIT_SCALE_TENSOR; d.op.b_scale = at<const float>(5);
  return d;
}

void masked(fp8kit_grouped_gemm_desc& d) {
  d.layout = FP8KIT_GROUPED_MASKED;
  d.rows = 64;
  d.counts = d.offs;
  d.offs = nullptr;
}

struct Case {
  const char* name;
  std::function<void(fp8kit_grouped_gemm_desc&)> mutate;
  const char* expect_in_message;
};

const Case kCases[] = {
    {"LayoutGarbage", [](auto& d) { d.layout = static_cast<fp8kit_grouped_layout>(5); }, "layout = 5"},
    {"ExpertsZero", [](auto& d) { d.experts = 0; }, "experts = 0"},
    {"ExpertsTooMany", [](auto& d) { d.experts = 1ll << 31; }, "experts = 2147483648"},
    {"RowsNegative", [](auto& d) { d.rows = -1; }, "rows = -1"},
    {"RowsTooLarge", [](auto& d) { d.rows = 1ll << 31; }, "rows = 2147483648"},
    {"NZero", [](auto& d) { d.n = 0; }, "n = 0"},
    {"KBelow16", [](auto& d) { d.k = 8; d.op.lda = d.op.ldb = 16; }, "k = 8"},
    {"KNotMultipleOf16", [](auto& d) { d.k = 40; }, "k = 40"},
    {"MaskedRowsOverflow", [](auto& d) { masked(d); d.experts = 1 << 16; d.rows = 1 << 16; }, "experts * rows"},
    {"ExpertsTimesNOverflow", [](auto& d) { d.experts = 1 << 16; d.n = 1 << 16; d.op.ldd = 1 << 16; }, "experts * n"},
    {"OffsNull", [](auto& d) { d.offs = nullptr; }, "offs is NULL"},
    {"CountsGivenWithOffs", [](auto& d) { d.counts = at<const int32_t>(8); }, "counts is not NULL"},
    {"CountsNull", [](auto& d) { masked(d); d.counts = nullptr; }, "counts is NULL"},
    {"OffsGivenWhenMasked", [](auto& d) { masked(d); d.offs = at<const int32_t>(8); }, "offs is not NULL"},
    {"OffsMisaligned", [](auto& d) { d.offs = at<const int32_t>(7, 2); }, "offs = "},
    {"CountsMisaligned", [](auto& d) { masked(d); d.counts = at<const int32_t>(7, 1); }, "counts = "},
    {"ATypeNotFp8", [](auto& d) { d.op.a_type = FP8KIT_DTYPE_BF16; }, "a_type = bf16"},
    {"BTypeNegative", [](auto& d) { int v = -3; std::memcpy(&d.op.b_type, &v, sizeof v); }, "b_type = -3"},
    {"DTypeFp8", [](auto& d) { d.op.d_type = FP8KIT_DTYPE_E4M3; }, "d_type = e4m3"},
    {"BiasTypeFp8", [](auto& d) { d.op.bias = at<const void>(6); d.op.bias_type = FP8KIT_DTYPE_E5M2; }, "bias_type = e5m2"},
    {"ANull", [](auto& d) { d.op.a = nullptr; }, "a is NULL"},
    {"BNull", [](auto& d) { d.op.b = nullptr; }, "b is NULL"},
    {"DNull", [](auto& d) { d.op.d = nullptr; }, "d is NULL"},
    {"LdaBelowK", [](auto& d) { d.op.lda = 48; }, "lda = 48"},
    {"LdaNotMultipleOf16", [](auto& d) { d.op.lda = 72; }, "lda = 72"},
    {"LdbBelowK", [](auto& d) { d.op.ldb = 32; }, "ldb = 32"},
    {"LddBelowN", [](auto& d) { d.op.ldd = 64; }, "ldd = 64"},
    {"LddRowNot16Bytes", [](auto& d) { d.op.ldd = 66; }, "ldd = 66"},
    {"AMisaligned", [](auto& d) { d.op.a = at<const void>(1, 8); }, "a = "},
    {"BMisaligned", [](auto& d) { d.op.b = at<const void>(2, 4); }, "b = "},
    {"DMisaligned", [](auto& d) { d.op.d = at<void>(3, 2); }, "d = "},
    {"BiasMisaligned", [](auto& d) { d.op.bias = at<const void>(6, 1); d.op.bias_type = FP8KIT_DTYPE_F16; }, "bias = "},
    {"AScaleModeCol", [](auto& d) { d.op.a_scale_mode = FP8KIT_SCALE_COL; }, "a_scale_mode"},
    {"BScaleModeRow", [](auto& d) { d.op.b_scale_mode = FP8KIT_SCALE_ROW; }, "b_scale_mode"},
    {"AScaleModeGarbage", [](auto& d) { d.op.a_scale_mode = static_cast<fp8kit_scale_mode>(42); }, "a_scale_mode = 42"},
    {"AScaleNullForTensor", [](auto& d) { d.op.a_scale = nullptr; }, "a_scale is NULL"},
    {"BScaleGivenForNone", [](auto& d) { d.op.b_scale_mode = FP8KIT_SCALE_NONE; }, "b_scale is not NULL"},
    {"AScaleMisaligned", [](auto& d) { d.op.a_scale = at<const float>(4, 2); }, "a_scale = "},
    {"BlockOnAOnly", [](auto& d) { d.op.a_scale_mode = FP8KIT_SCALE_BLOCK; }, "BLOCK scaling"},
    {"BlockOnBOnly", [](auto& d) { d.op.b_scale_mode = FP8KIT_SCALE_BLOCK; }, "BLOCK scaling"},
    // Overlaps use the layout's sizes: D [T, N] (contiguous) or [E, max_m, N].
    {"DOverlapsA", [](auto& d) { d.op.d = at<void>(1, 299 * 64); }, "d overlaps a"},
    {"DOverlapsLastExpertOfB", [](auto& d) { d.op.d = at<void>(2, (4 * 65 - 1) * 64); }, "d overlaps b"},
    {"DOverlapsRowScales", [](auto& d) { d.op.a_scale_mode = FP8KIT_SCALE_ROW; d.op.a_scale = at<const float>(3, 43184); }, "d overlaps a_scale"},
    {"DOverlapsTensorScales", [](auto& d) { d.op.b_scale = at<const float>(3, 299 * 144 + 128); }, "d overlaps b_scale"},
    {"DOverlapsBias", [](auto& d) { d.op.bias = at<const void>(3, 64); d.op.bias_type = FP8KIT_DTYPE_F32; }, "d overlaps bias"},
    {"DOverlapsOffs", [](auto& d) { d.offs = at<const int32_t>(3, 4096); }, "d overlaps offs"},
    // A leading dimension of 2^60 makes B span the address space (no overflow).
    {"HugeLdbOverlapsD", [](auto& d) { d.op.ldb = 1ll << 60; }, "d overlaps b"},
    {"MaskedDOverlapsA", [](auto& d) { masked(d); d.op.d = at<void>(1, (4 * 64 - 1) * 64); }, "d overlaps a"},
    {"MaskedDOverlapsCounts", [](auto& d) { masked(d); d.counts = at<const int32_t>(3, (4 * 64 - 1) * 144); }, "d overlaps counts"},
};

class GroupedRejection : public ::testing::TestWithParam<Case> {};

TEST_P(GroupedRejection, NamesTheArgument) {
  fp8kit_grouped_gemm_desc d = valid_desc();
  GetParam().mutate(d);
  const fp8kit_status s = fp8kit_grouped_gemm(&d, nullptr, nullptr);
  EXPECT_EQ(s, FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  EXPECT_NE(std::string(fp8kit_last_error()).find(GetParam().expect_in_message), std::string::npos)
      << "message: " << fp8kit_last_error();
  fp8kit_path path = FP8KIT_PATH_SM89_MMA;
  EXPECT_EQ(fp8kit_grouped_gemm_select(&d, nullptr, &path), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(path, FP8KIT_PATH_AUTO);
}

INSTANTIATE_TEST_SUITE_P(Grouped, GroupedRejection, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// A valid descriptor passes every check: without a GPU a clear 'unsupported',
// with one a refusal of the fake (unmapped) group array, never a launch.
void expect_reaches_device(const fp8kit_grouped_gemm_desc& d, const char* first_pointer) {
  const fp8kit_status s = fp8kit_grouped_gemm(&d, nullptr, nullptr);
  EXPECT_TRUE(s == FP8KIT_STATUS_UNSUPPORTED || s == FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  if (s == FP8KIT_STATUS_INVALID_ARGUMENT) {
    EXPECT_NE(std::string(fp8kit_last_error()).find(first_pointer), std::string::npos) << fp8kit_last_error();
  }
}

TEST(GroupedValidation, ValidContiguousReachesTheDevice) { expect_reaches_device(valid_desc(), "offs = "); }

TEST(GroupedValidation, ValidMaskedEveryScaleModeReachesTheDevice) {
  const fp8kit_scale_mode modes[][2] = {{FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE},
                                        {FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL},
                                        {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_COL},
                                        {FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK}};
  for (const auto& m : modes) {
    fp8kit_grouped_gemm_desc d = valid_desc();
    masked(d);
    d.op.a_scale_mode = m[0];
    d.op.b_scale_mode = m[1];
    if (m[0] == FP8KIT_SCALE_NONE) d.op.a_scale = nullptr;
    if (m[1] == FP8KIT_SCALE_NONE) d.op.b_scale = nullptr;
    d.op.bias = at<const void>(6);
    d.op.bias_type = FP8KIT_DTYPE_BF16;
    SCOPED_TRACE(fp8kit_scale_mode_name(m[0]));
    expect_reaches_device(d, "counts = ");
  }
}

TEST(GroupedValidation, NoRowsIsValid) {
  fp8kit_grouped_gemm_desc d = valid_desc();
  d.rows = 0;
  expect_reaches_device(d, "offs = ");
}

TEST(GroupedValidation, NullDescriptorAndOutput) {
  EXPECT_EQ(fp8kit_grouped_gemm(nullptr, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("desc is NULL"), std::string::npos);
  fp8kit_grouped_gemm_desc d = valid_desc();
  EXPECT_EQ(fp8kit_grouped_gemm_select(&d, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("path is NULL"), std::string::npos);
}

TEST(GroupedValidation, BadPathOption) {
  fp8kit_grouped_gemm_desc d = valid_desc();
  fp8kit_gemm_options o;
  fp8kit_gemm_options_init(&o);
  o.path = static_cast<fp8kit_path>(17);
  EXPECT_EQ(fp8kit_grouped_gemm(&d, &o, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("options->path = 17"), std::string::npos);
}

TEST(GroupedValidation, BadPathEnvironment) {
  setenv("FP8KIT_PATH", "sm88_magic", 1);
  fp8kit::reload_environment();
  fp8kit_grouped_gemm_desc d = valid_desc();
  const fp8kit_status s = fp8kit_grouped_gemm(&d, nullptr, nullptr);
  unsetenv("FP8KIT_PATH");
  fp8kit::reload_environment();
  EXPECT_EQ(s, FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("FP8KIT_PATH = 'sm88_magic'"), std::string::npos);
}

TEST(GroupedValidation, LayoutNames) {
  EXPECT_STREQ(fp8kit_grouped_layout_name(FP8KIT_GROUPED_CONTIGUOUS), "contiguous");
  EXPECT_STREQ(fp8kit_grouped_layout_name(FP8KIT_GROUPED_MASKED), "masked");
  EXPECT_STREQ(fp8kit_grouped_layout_name(static_cast<fp8kit_grouped_layout>(9)), "unknown_layout");
}

}  // namespace
