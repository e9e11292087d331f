// Every rejection of the NVFP4 entry points' argument checks, without a GPU
// (validation runs before the device is touched): the status and that the
// message names the offending argument.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "api/ops.hpp"
#include "core/environment.hpp"
#include "fp8kit/fp8kit.h"

namespace {

// Fake, well-aligned, non-overlapping addresses: never dereferenced.
uintptr_t fake(uintptr_t slot) { return 0x7f0000000000ull + slot * 0x100000000ull; }
template <typename T>
T* at(uintptr_t slot, uintptr_t plus = 0) {
  return reinterpret_cast<T*>(fake(slot) + plus);
}

fp8kit_nvfp4_operands valid_operands() {
  fp8kit_nvfp4_operands op{};
  op.a = at<const void>(1), op.lda = 64, op.a_type = FP8KIT_DTYPE_NVFP4;  // K = 128: 64 bytes a row
  op.a_scale = at<const void>(2), op.a_scale_layout = FP8KIT_NVFP4_SCALES_SWIZZLED;
  op.b = at<const void>(3), op.ldb = 64, op.b_type = FP8KIT_DTYPE_NVFP4;
  op.b_scale = at<const void>(4), op.b_scale_layout = FP8KIT_NVFP4_SCALES_SWIZZLED;
  op.alpha = at<const float>(5);
  op.d = at<void>(6), op.ldd = 72, op.d_type = FP8KIT_DTYPE_BF16;
  return op;
}

fp8kit_nvfp4_gemm_desc valid_desc() {
  fp8kit_nvfp4_gemm_desc d = FP8KIT_NVFP4_GEMM_DESC_INIT;
  d.m = 33, d.n = 65, d.k = 128;
  d.op = valid_operands();
  return d;
}

struct Case {
  const char* name;
  std::function<void(fp8kit_nvfp4_gemm_desc&)> mutate;
  const char* expect_in_message;
};

const Case kCases[] = {
    {"MZero", [](auto& d) { d.m = 0; }, "m = 0"},
    {"NTooLarge", [](auto& d) { d.n = 1ll << 31; }, "n = 2147483648"},
    {"KBelowGranule", [](auto& d) { d.k = 16; }, "k = 16"},
    {"KNotMultipleOf32", [](auto& d) { d.k = 48; }, "k = 48"},
    {"ATypeFp8", [](auto& d) { d.op.a_type = FP8KIT_DTYPE_E4M3; }, "a_type = e4m3"},
    {"BTypeBf16", [](auto& d) { d.op.b_type = FP8KIT_DTYPE_BF16; }, "b_type = bf16"},
    {"BTypeGarbage", [](auto& d) { int v = -3; std::memcpy(&d.op.b_type, &v, sizeof v); }, "b_type = -3"},
    {"DTypeNvfp4", [](auto& d) { d.op.d_type = FP8KIT_DTYPE_NVFP4; }, "d_type = nvfp4"},
    {"BiasTypeNvfp4", [](auto& d) { d.op.bias = at<const void>(7); d.op.bias_type = FP8KIT_DTYPE_NVFP4; }, "bias_type"},
    {"BLayoutGarbage", [](auto& d) { d.op.b_scale_layout = static_cast<fp8kit_nvfp4_scale_layout>(9); }, "b_scale_layout = 9"},
    {"ALayoutGarbage", [](auto& d) { d.op.a_scale_layout = static_cast<fp8kit_nvfp4_scale_layout>(7); }, "a_scale_layout = 7"},
    {"ANull", [](auto& d) { d.op.a = nullptr; }, "a is NULL"},
    {"BNull", [](auto& d) { d.op.b = nullptr; }, "b is NULL"},
    {"BScaleNull", [](auto& d) { d.op.b_scale = nullptr; }, "b_scale is NULL"},
    {"AScaleNull", [](auto& d) { d.op.a_scale = nullptr; }, "a_scale is NULL"},
    {"DNull", [](auto& d) { d.op.d = nullptr; }, "d is NULL"},
    {"AScaleForW4a16", [](auto& d) { d.op.a_type = FP8KIT_DTYPE_BF16; d.op.lda = 128; }, "a_scale is not NULL"},
    {"LdaBelowPackedRow", [](auto& d) { d.op.lda = 48; }, "lda = 48"},
    {"LdaNot16Bytes", [](auto& d) { d.op.lda = 72; }, "lda = 72"},
    {"LdaBelowW4a16Row", [](auto& d) { d.op.a_type = FP8KIT_DTYPE_F16; d.op.a_scale = nullptr; d.op.lda = 64; }, "lda = 64"},
    {"LdbBelowPackedRow", [](auto& d) { d.op.ldb = 32; }, "ldb = 32"},
    {"LdbNot16Bytes", [](auto& d) { d.op.ldb = 65; }, "ldb = 65"},
    {"LddBelowN", [](auto& d) { d.op.ldd = 64; }, "ldd = 64"},
    {"LddRowNot16Bytes", [](auto& d) { d.op.ldd = 66; }, "ldd = 66"},
    {"AMisaligned", [](auto& d) { d.op.a = at<const void>(1, 8); }, "a = "},
    {"BMisaligned", [](auto& d) { d.op.b = at<const void>(3, 4); }, "b = "},
    {"DMisaligned", [](auto& d) { d.op.d = at<void>(6, 2); }, "d = "},
    {"SwizzledBScaleMisaligned", [](auto& d) { d.op.b_scale = at<const void>(4, 4); }, "b_scale = "},
    {"SwizzledAScaleMisaligned", [](auto& d) { d.op.a_scale = at<const void>(2, 1); }, "a_scale = "},
    {"AlphaMisaligned", [](auto& d) { d.op.alpha = at<const float>(5, 2); }, "alpha = "},
    {"BiasMisaligned", [](auto& d) { d.op.bias = at<const void>(7, 1); d.op.bias_type = FP8KIT_DTYPE_F16; }, "bias = "},
    {"DOverlapsA", [](auto& d) { d.op.d = at<void>(1, 256); }, "d overlaps a"},
    {"DOverlapsB", [](auto& d) { d.op.b = at<const void>(6, 1024); }, "d overlaps b"},
    {"DOverlapsBScale", [](auto& d) { d.op.b_scale = at<const void>(6, 512); }, "d overlaps b_scale"},
    {"DOverlapsAScale", [](auto& d) { d.op.a_scale = at<const void>(6, 1024); }, "d overlaps a_scale"},
    {"DOverlapsAlpha", [](auto& d) { d.op.alpha = at<const float>(6, 64); }, "d overlaps alpha"},
    {"DOverlapsBias", [](auto& d) { d.op.bias = at<const void>(6, 32); d.op.bias_type = FP8KIT_DTYPE_F32; }, "d overlaps bias"},
};

class Nvfp4Rejection : public ::testing::TestWithParam<Case> {};

TEST_P(Nvfp4Rejection, NamesTheArgument) {
  fp8kit_nvfp4_gemm_desc d = valid_desc();
  GetParam().mutate(d);
  EXPECT_EQ(fp8kit_nvfp4_gemm(&d, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  EXPECT_NE(std::string(fp8kit_last_error()).find(GetParam().expect_in_message), std::string::npos)
      << "message: " << fp8kit_last_error();
  fp8kit_path path = FP8KIT_PATH_AUTO;
  EXPECT_EQ(fp8kit_nvfp4_gemm_select(&d, nullptr, &path), FP8KIT_STATUS_INVALID_ARGUMENT);
  size_t bytes = 1;
  EXPECT_EQ(fp8kit_nvfp4_gemm_workspace_size(&d, nullptr, &bytes), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find(GetParam().expect_in_message), std::string::npos);
  EXPECT_EQ(bytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(Nvfp4Gemm, Nvfp4Rejection, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

fp8kit_nvfp4_grouped_gemm_desc valid_grouped() {
  fp8kit_nvfp4_grouped_gemm_desc d = FP8KIT_NVFP4_GROUPED_GEMM_DESC_INIT;
  d.layout = FP8KIT_GROUPED_MASKED;
  d.experts = 4, d.rows = 8, d.n = 64, d.k = 128;
  d.counts = at<const int32_t>(8);
  d.op = valid_operands();
  return d;
}

struct GroupedCase {
  const char* name;
  std::function<void(fp8kit_nvfp4_grouped_gemm_desc&)> mutate;
  const char* expect_in_message;
};

const GroupedCase kGroupedCases[] = {
    {"LayoutGarbage", [](auto& d) { d.layout = static_cast<fp8kit_grouped_layout>(5); }, "layout = 5"},
    {"ExpertsZero", [](auto& d) { d.experts = 0; }, "experts = 0"},
    {"RowsNegative", [](auto& d) { d.rows = -1; }, "rows = -1"},
    {"CountsNull", [](auto& d) { d.counts = nullptr; }, "counts is NULL"},
    {"OffsGivenWithMasked", [](auto& d) { d.offs = at<const int32_t>(9); }, "offs is not NULL"},
    {"CountsMisaligned", [](auto& d) { d.counts = at<const int32_t>(8, 2); }, "counts = "},
    {"KNotMultipleOf32", [](auto& d) { d.k = 80; }, "k = 80"},
    {"BTypeBf16", [](auto& d) { d.op.b_type = FP8KIT_DTYPE_BF16; }, "b_type = bf16"},
    {"DOverlapsCounts", [](auto& d) { d.counts = at<const int32_t>(6, 16); }, "d overlaps counts"},
    // B of E = 4 experts of 64 rows x 64 bytes: 16 KiB; D placed inside it.
    {"DOverlapsLastExpertsB", [](auto& d) { d.op.d = at<void>(3, 12288); }, "d overlaps b"},
};

class Nvfp4GroupedRejection : public ::testing::TestWithParam<GroupedCase> {};

TEST_P(Nvfp4GroupedRejection, NamesTheArgument) {
  fp8kit_nvfp4_grouped_gemm_desc d = valid_grouped();
  GetParam().mutate(d);
  EXPECT_EQ(fp8kit_nvfp4_grouped_gemm(&d, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  EXPECT_NE(std::string(fp8kit_last_error()).find(GetParam().expect_in_message), std::string::npos)
      << "message: " << fp8kit_last_error();
  size_t bytes = 1;
  EXPECT_EQ(fp8kit_nvfp4_grouped_gemm_workspace_size(&d, nullptr, &bytes), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(bytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(Nvfp4Grouped, Nvfp4GroupedRejection, ::testing::ValuesIn(kGroupedCases),
                         [](const auto& info) { return std::string(info.param.name); });

fp8kit_nvfp4_quantize_desc valid_quantize() {
  fp8kit_nvfp4_quantize_desc d = FP8KIT_NVFP4_QUANTIZE_DESC_INIT;
  d.m = 5, d.k = 48;
  d.x = at<const void>(1), d.ldx = 48, d.x_type = FP8KIT_DTYPE_BF16;
  d.q = at<void>(2), d.ldq = 24, d.q_type = FP8KIT_DTYPE_NVFP4;
  d.scale = at<void>(3), d.scale_layout = FP8KIT_NVFP4_SCALES_SWIZZLED;
  d.global_scale = at<const float>(4);
  return d;
}

struct QuantizeCase {
  const char* name;
  std::function<void(fp8kit_nvfp4_quantize_desc&)> mutate;
  const char* expect_in_message;
};

const QuantizeCase kQuantizeCases[] = {
    {"MZero", [](auto& d) { d.m = 0; }, "m = 0"},
    {"KNotMultipleOf16", [](auto& d) { d.k = 40; }, "k = 40"},
    {"XTypeF32", [](auto& d) { d.x_type = FP8KIT_DTYPE_F32; }, "x_type = f32"},
    {"QTypeE4m3", [](auto& d) { d.q_type = FP8KIT_DTYPE_E4M3; }, "q_type = e4m3"},
    {"LayoutGarbage", [](auto& d) { d.scale_layout = static_cast<fp8kit_nvfp4_scale_layout>(3); }, "scale_layout = 3"},
    {"XNull", [](auto& d) { d.x = nullptr; }, "x is NULL"},
    {"QNull", [](auto& d) { d.q = nullptr; }, "q is NULL"},
    {"ScaleNull", [](auto& d) { d.scale = nullptr; }, "scale is NULL"},
    {"LdxBelowK", [](auto& d) { d.ldx = 32; }, "ldx = 32"},
    {"LdqBelowRow", [](auto& d) { d.ldq = 16; }, "ldq = 16"},
    {"LdqNot8Bytes", [](auto& d) { d.ldq = 28; }, "ldq = 28"},
    {"QMisaligned", [](auto& d) { d.q = at<void>(2, 4); }, "q = "},
    {"SwizzledScaleMisaligned", [](auto& d) { d.scale = at<void>(3, 8); }, "scale = "},
    {"GlobalScaleMisaligned", [](auto& d) { d.global_scale = at<const float>(4, 1); }, "global_scale = "},
    {"EpsNegative", [](auto& d) { d.rms_weight = at<const void>(5); d.eps = -1.f; }, "eps = -1"},
    {"QOverlapsX", [](auto& d) { d.q = at<void>(1, 64); }, "q overlaps x"},
    {"ScaleOverlapsX", [](auto& d) { d.scale = at<void>(1, 32); }, "scale overlaps x"},
    {"QOverlapsScale", [](auto& d) { d.q = at<void>(3, 64); }, "q overlaps scale"},
};

class Nvfp4QuantizeRejection : public ::testing::TestWithParam<QuantizeCase> {};

TEST_P(Nvfp4QuantizeRejection, NamesTheArgument) {
  fp8kit_nvfp4_quantize_desc d = valid_quantize();
  GetParam().mutate(d);
  EXPECT_EQ(fp8kit_nvfp4_quantize(&d, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  EXPECT_NE(std::string(fp8kit_last_error()).find(GetParam().expect_in_message), std::string::npos)
      << "message: " << fp8kit_last_error();
}

INSTANTIATE_TEST_SUITE_P(Nvfp4Quantize, Nvfp4QuantizeRejection, ::testing::ValuesIn(kQuantizeCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace

TEST(Nvfp4Validation, NullDescriptors) {
  EXPECT_EQ(fp8kit_nvfp4_gemm(nullptr, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("desc is NULL"), std::string::npos);
  EXPECT_EQ(fp8kit_nvfp4_grouped_gemm(nullptr, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(fp8kit_nvfp4_quantize(nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  fp8kit_nvfp4_gemm_desc d = valid_desc();
  EXPECT_EQ(fp8kit_nvfp4_gemm_select(&d, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(fp8kit_nvfp4_gemm_workspace_size(&d, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("bytes is NULL"), std::string::npos);
  size_t bytes = 0;
  EXPECT_EQ(fp8kit_nvfp4_gemm_workspace_size(nullptr, nullptr, &bytes), FP8KIT_STATUS_INVALID_ARGUMENT);
  fp8kit_nvfp4_grouped_gemm_desc g = valid_grouped();
  EXPECT_EQ(fp8kit_nvfp4_grouped_gemm_workspace_size(&g, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
}

TEST(Nvfp4Validation, StructSizeIsChecked) {
  fp8kit_nvfp4_gemm_desc d = valid_desc();
  d.struct_size = 8;
  EXPECT_EQ(fp8kit_nvfp4_gemm(&d, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("struct_size = 8"), std::string::npos);
}

TEST(Nvfp4Validation, LayoutsHaveNoTailPadding) {
  EXPECT_EQ(sizeof(fp8kit_nvfp4_operands), 104u);
  EXPECT_EQ(sizeof(fp8kit_nvfp4_gemm_desc), 136u);
  EXPECT_EQ(sizeof(fp8kit_nvfp4_grouped_gemm_desc), 168u);
  EXPECT_EQ(sizeof(fp8kit_nvfp4_quantize_desc), 96u);
}

TEST(Nvfp4Validation, ValidInputsReachTheDevice) {
  // Valid descriptors pass every check: without a GPU a clear 'unsupported',
  // with one a refusal of the fake (unmapped) pointers, never a launch.
  fp8kit_nvfp4_gemm_desc d = valid_desc();
  const fp8kit_status s = fp8kit_nvfp4_gemm(&d, nullptr, nullptr);
  EXPECT_TRUE(s == FP8KIT_STATUS_UNSUPPORTED || s == FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  fp8kit_nvfp4_grouped_gemm_desc g = valid_grouped();
  const fp8kit_status sg = fp8kit_nvfp4_grouped_gemm(&g, nullptr, nullptr);
  EXPECT_TRUE(sg == FP8KIT_STATUS_UNSUPPORTED || sg == FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  fp8kit_nvfp4_quantize_desc q = valid_quantize();
  const fp8kit_status sq = fp8kit_nvfp4_quantize(&q, nullptr);
  EXPECT_TRUE(sq == FP8KIT_STATUS_UNSUPPORTED || sq == FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  size_t bytes = 1;
  const fp8kit_status sw = fp8kit_nvfp4_gemm_workspace_size(&d, nullptr, &bytes);
  EXPECT_TRUE(sw == FP8KIT_STATUS_UNSUPPORTED || sw == FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  EXPECT_EQ(bytes, 0u);
}

// FP8KIT_NVFP4_SM90_SPLIT as the environment reads it: a positive decimal
// integer or 0 (the launcher then keeps 1 .. its cluster limit).
TEST(Nvfp4Validation, SplitEnvironmentIsAPositiveInteger) {
  const std::pair<const char*, int> cases[] = {{"1", 1},  {"8", 8},   {"12", 12}, {"0", 0},  {"-2", 0},
                                               {"+3", 0}, {"3x", 0},  {"", 0},    {" 4", 0}, {"99999999999", 0}};
  for (const auto& [text, want] : cases) {
    setenv("FP8KIT_NVFP4_SM90_SPLIT", text, 1);
    fp8kit::reload_environment();
    EXPECT_EQ(fp8kit::environment().nvfp4_sm90_split, want) << "'" << text << "'";
  }
  unsetenv("FP8KIT_NVFP4_SM90_SPLIT");
  fp8kit::reload_environment();
  EXPECT_EQ(fp8kit::environment().nvfp4_sm90_split, 0);
}

// The workspace rule as the pipeline binds it (api/ops.hpp): NVFP4 A only,
// enough bytes (M x K x 2; grouped, every row of A), 16-byte aligned, never
// a workspace promised zero-filled; a size query asks as if lent.
TEST(Nvfp4Validation, WorkspaceIsBoundOnlyWhereWideningCanUseIt) {
  fp8kit::Nvfp4Params p{};
  p.m = 100, p.k = 64, p.a_type = FP8KIT_DTYPE_NVFP4;
  const size_t need = 100 * 64 * 2;
  alignas(16) static unsigned char lent[100 * 64 * 2 + 16];
  fp8kit_gemm_options o = FP8KIT_GEMM_OPTIONS_INIT;
  auto bound = [&](bool query) {
    p.a_widen = false, p.a_wide = nullptr;
    fp8kit::bind_workspace(&p, o, query);
    return p.a_widen;
  };
  EXPECT_FALSE(bound(false)) << "nothing lent";
  EXPECT_TRUE(bound(true)) << "a query asks as if lent";
  EXPECT_EQ(p.a_wide, nullptr);
  o.workspace = lent, o.workspace_size = need - 1;
  EXPECT_FALSE(bound(false)) << "one byte short";
  o.workspace_size = need;
  EXPECT_TRUE(bound(false));
  EXPECT_EQ(p.a_wide, lent);
  o.workspace = lent + 8;
  EXPECT_FALSE(bound(false)) << "misaligned";
  o.workspace = lent, o.workspace_zeroed = 1;
  EXPECT_FALSE(bound(false)) << "zeroed: kept for split-K counters";
  EXPECT_FALSE(bound(true));
  o.workspace_zeroed = 0, p.a_type = FP8KIT_DTYPE_BF16;
  EXPECT_FALSE(bound(false)) << "16-bit A needs no widening";
  fp8kit::Nvfp4GroupedParams g{};
  g.layout = FP8KIT_GROUPED_MASKED, g.experts = 4, g.rows = 25;  // 100 rows of A in all
  g.dense.k = 64, g.dense.a_type = FP8KIT_DTYPE_NVFP4;
  fp8kit::bind_workspace(&g, o, false);
  EXPECT_TRUE(g.dense.a_widen);
  g.dense.a_widen = false, g.experts = 5;
  fp8kit::bind_workspace(&g, o, false);
  EXPECT_FALSE(g.dense.a_widen) << "125 rows need more";
}
