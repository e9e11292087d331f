// Every rejection of fp8kit_gemm's argument checks, without a GPU: validation
// runs before the device is touched. Each case checks the status and that the
// message names the offending argument.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "api/options.hpp"
#include "core/environment.hpp"
#include "fp8kit/fp8kit.h"

namespace {

// Fake, well-aligned, non-overlapping addresses: never dereferenced, since
// every case here fails validation first.
uintptr_t fake(uintptr_t slot) { return 0x7f0000000000ull + slot * 0x100000000ull; }

fp8kit_gemm_desc valid_desc() {
  fp8kit_gemm_desc d = FP8KIT_GEMM_DESC_INIT;
  d.m = 33; d.n = 65; d.k = 64;
  d.op.a = reinterpret_cast<const void*>(fake(1)); d.op.lda = 64; d.op.a_type = FP8KIT_DTYPE_E4M3;
  d.op.b = reinterpret_cast<const void*>(fake(2)); d.op.ldb = 64; d.op.b_type = FP8KIT_DTYPE_E4M3;
  d.op.d = reinterpret_cast<void*>(fake(3)); d.op.ldd = 72; d.op.d_type = FP8KIT_DTYPE_BF16;
  d.op.a_scale_mode = FP8KIT_SCALE_TENSOR; d.op.a_scale = reinterpret_cast<const float*>(fake(4));
  d.op.b_scale_mode = FP8KIT_SCALE_TENSOR; d.op.b_scale = reinterpret_cast<const float*>(fake(5));
  return d;
}

struct Case {
  const char* name;
  std::function<void(fp8kit_gemm_desc&)> mutate;
  const char* expect_in_message;
};

const Case kCases[] = {
    {"MZero", [](auto& d) { d.m = 0; }, "m = 0"},
    {"MNegative", [](auto& d) { d.m = -5; }, "m = -5"},
    {"MTooLarge", [](auto& d) { d.m = 1ll << 31; }, "m = 2147483648"},
    {"NZero", [](auto& d) { d.n = 0; }, "n = 0"},
    {"KBelow16", [](auto& d) { d.k = 8; d.op.lda = d.op.ldb = 16; }, "k = 8"},
    {"KNotMultipleOf16", [](auto& d) { d.k = 40; }, "k = 40"},
    {"ATypeNotFp8", [](auto& d) { d.op.a_type = FP8KIT_DTYPE_BF16; }, "a_type = bf16"},
    {"BTypeNotFp8", [](auto& d) { d.op.b_type = FP8KIT_DTYPE_F32; }, "b_type = f32"},
    {"DTypeFp8", [](auto& d) { d.op.d_type = FP8KIT_DTYPE_E4M3; }, "d_type = e4m3"},
    {"DTypeGarbage", [](auto& d) { d.op.d_type = static_cast<fp8kit_dtype>(99); }, "d_type"},
    {"BiasTypeFp8", [](auto& d) { d.op.bias = reinterpret_cast<const void*>(fake(6)); d.op.bias_type = FP8KIT_DTYPE_E5M2; }, "bias_type = e5m2"},
    {"ANull", [](auto& d) { d.op.a = nullptr; }, "a is NULL"},
    {"BNull", [](auto& d) { d.op.b = nullptr; }, "b is NULL"},
    {"DNull", [](auto& d) { d.op.d = nullptr; }, "d is NULL"},
    {"LdaBelowK", [](auto& d) { d.op.lda = 48; }, "lda = 48"},
    {"LdaNotMultipleOf16", [](auto& d) { d.op.lda = 72; }, "lda = 72"},
    {"LdbBelowK", [](auto& d) { d.op.ldb = 32; }, "ldb = 32"},
    {"LdbNotMultipleOf16", [](auto& d) { d.op.ldb = 65; }, "ldb = 65"},
    {"LddBelowN", [](auto& d) { d.op.ldd = 64; }, "ldd = 64"},
    {"LddRowNot16Bytes", [](auto& d) { d.op.ldd = 66; }, "ldd = 66"},
    {"AMisaligned", [](auto& d) { d.op.a = reinterpret_cast<const void*>(fake(1) + 8); }, "a = "},
    {"BMisaligned", [](auto& d) { d.op.b = reinterpret_cast<const void*>(fake(2) + 4); }, "b = "},
    {"DMisaligned", [](auto& d) { d.op.d = reinterpret_cast<void*>(fake(3) + 2); }, "d = "},
    {"AScaleModeCol", [](auto& d) { d.op.a_scale_mode = FP8KIT_SCALE_COL; }, "a_scale_mode"},
    {"BScaleModeRow", [](auto& d) { d.op.b_scale_mode = FP8KIT_SCALE_ROW; }, "b_scale_mode"},
    {"AScaleModeGarbage", [](auto& d) { d.op.a_scale_mode = static_cast<fp8kit_scale_mode>(42); }, "a_scale_mode = 42"},
    {"BTypeNegative", [](auto& d) { int v = -3; std::memcpy(&d.op.b_type, &v, sizeof v); }, "b_type = -3"},
    {"AScaleNullForTensor", [](auto& d) { d.op.a_scale = nullptr; }, "a_scale is NULL"},
    {"BScaleGivenForNone", [](auto& d) { d.op.b_scale_mode = FP8KIT_SCALE_NONE; }, "b_scale is not NULL"},
    {"AScaleMisaligned", [](auto& d) { d.op.a_scale = reinterpret_cast<const float*>(fake(4) + 2); }, "a_scale = "},
    {"BlockOnAOnly", [](auto& d) { d.op.a_scale_mode = FP8KIT_SCALE_BLOCK; }, "BLOCK scaling"},
    {"BlockOnBOnly", [](auto& d) { d.op.b_scale_mode = FP8KIT_SCALE_BLOCK; }, "BLOCK scaling"},
    {"BiasMisaligned", [](auto& d) { d.op.bias = reinterpret_cast<const void*>(fake(6) + 1); d.op.bias_type = FP8KIT_DTYPE_F16; }, "bias = "},
    {"DOverlapsA", [](auto& d) { d.op.d = reinterpret_cast<void*>(fake(1) + 256); }, "d overlaps a"},
    {"DOverlapsB", [](auto& d) { d.op.b = reinterpret_cast<const void*>(fake(3) + 1024); }, "d overlaps b"},
    {"DOverlapsScale", [](auto& d) { d.op.a_scale = reinterpret_cast<const float*>(fake(3) + 64); }, "d overlaps a_scale"},
    {"DOverlapsBias", [](auto& d) { d.op.bias = reinterpret_cast<const void*>(fake(3) + 32); d.op.bias_type = FP8KIT_DTYPE_F32; }, "d overlaps bias"},
};

class Rejection : public ::testing::TestWithParam<Case> {};

TEST_P(Rejection, NamesTheArgument) {
  fp8kit_gemm_desc d = valid_desc();
  GetParam().mutate(d);
  const fp8kit_status s = fp8kit_gemm(&d, nullptr, nullptr);
  EXPECT_EQ(s, FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  EXPECT_NE(std::string(fp8kit_last_error()).find(GetParam().expect_in_message), std::string::npos)
      << "message: " << fp8kit_last_error();
}

INSTANTIATE_TEST_SUITE_P(Gemm, Rejection, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace

TEST(Validation, NullDescriptor) {
  EXPECT_EQ(fp8kit_gemm(nullptr, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("desc is NULL"), std::string::npos);
}

TEST(Validation, BadPathOption) {
  fp8kit_gemm_desc d = valid_desc();
  fp8kit_gemm_options o;
  fp8kit_gemm_options_init(&o);
  o.path = static_cast<fp8kit_path>(17);
  EXPECT_EQ(fp8kit_gemm(&d, &o, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("options->path = 17"), std::string::npos);
}

TEST(Validation, WorkspaceSizeWithoutPointer) {
  fp8kit_gemm_desc d = valid_desc();
  fp8kit_gemm_options o;
  fp8kit_gemm_options_init(&o);
  o.workspace_size = 1024;
  EXPECT_EQ(fp8kit_gemm(&d, &o, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("workspace"), std::string::npos);
}

TEST(Validation, BadPathEnvironment) {
  setenv("FP8KIT_PATH", "sm88_magic", 1);
  fp8kit::reload_environment();
  fp8kit_gemm_desc d = valid_desc();
  const fp8kit_status s = fp8kit_gemm(&d, nullptr, nullptr);
  unsetenv("FP8KIT_PATH");
  fp8kit::reload_environment();
  EXPECT_EQ(s, FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("FP8KIT_PATH = 'sm88_magic'"), std::string::npos);
}

// Programmatic launch is opt-in: off unless the caller or FP8KIT_PDL=1 asks
// (the environment is applied when a call resolves its options).
TEST(Validation, ProgrammaticLaunchIsOptIn) {
  fp8kit_gemm_options o, resolved;
  fp8kit_gemm_options_init(&o);
  EXPECT_EQ(o.programmatic_launch, 0);
  ASSERT_EQ(fp8kit::resolve_options(&o, &resolved), FP8KIT_STATUS_SUCCESS);
  EXPECT_EQ(resolved.programmatic_launch, 0);
  setenv("FP8KIT_PDL", "1", 1);
  fp8kit::reload_environment();
  const fp8kit_status s = fp8kit::resolve_options(&o, &resolved);
  unsetenv("FP8KIT_PDL");
  fp8kit::reload_environment();
  ASSERT_EQ(s, FP8KIT_STATUS_SUCCESS);
  EXPECT_EQ(resolved.programmatic_launch, 1);
}

// FP8KIT_PATH forces a path where the caller's is AUTO, and only there.
TEST(Validation, PathEnvironmentAppliesToAuto) {
  fp8kit_gemm_options o, resolved;
  fp8kit_gemm_options_init(&o);
  setenv("FP8KIT_PATH", "sm75_hmma", 1);
  fp8kit::reload_environment();
  ASSERT_EQ(fp8kit::resolve_options(&o, &resolved), FP8KIT_STATUS_SUCCESS);
  EXPECT_EQ(resolved.path, FP8KIT_PATH_SM75_HMMA);
  o.path = FP8KIT_PATH_SM89_MMA;
  ASSERT_EQ(fp8kit::resolve_options(&o, &resolved), FP8KIT_STATUS_SUCCESS);
  EXPECT_EQ(resolved.path, FP8KIT_PATH_SM89_MMA);
  ASSERT_EQ(fp8kit::resolve_options(nullptr, &resolved), FP8KIT_STATUS_SUCCESS);
  EXPECT_EQ(resolved.path, FP8KIT_PATH_SM75_HMMA);
  unsetenv("FP8KIT_PATH");
  fp8kit::reload_environment();
}

// The zeroed-workspace promise is the caller's alone: never on by default.
TEST(Validation, WorkspaceZeroedIsOptIn) {
  fp8kit_gemm_options o;
  fp8kit_gemm_options_init(&o);
  EXPECT_EQ(o.workspace_zeroed, 0);
}

TEST(Validation, WorkspaceQueryNullOutput) {
  fp8kit_gemm_desc d = valid_desc();
  EXPECT_EQ(fp8kit_gemm_workspace_size(&d, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
}

TEST(Validation, ValidInputReachesTheDevice) {
  // A valid descriptor passes every check; what comes back then depends on the
  // machine: without a GPU a clear 'unsupported', with one a refusal of the
  // fake (unmapped) pointers — never a launch.
  fp8kit_gemm_desc d = valid_desc();
  const fp8kit_status s = fp8kit_gemm(&d, nullptr, nullptr);
  EXPECT_TRUE(s == FP8KIT_STATUS_UNSUPPORTED || s == FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  if (s == FP8KIT_STATUS_INVALID_ARGUMENT) {
    EXPECT_NE(std::string(fp8kit_last_error()).find("a = "), std::string::npos) << fp8kit_last_error();
  }
}

// options.accumulation: a value outside the enum, a nonzero reserved field
// and FAST with block scales are refused before anything else, by name.
TEST(Validation, AccumulationOption) {
  fp8kit_gemm_desc d = valid_desc();
  fp8kit_gemm_options o = FP8KIT_GEMM_OPTIONS_INIT;
  auto refused = [&](const char* text) {
    const fp8kit_status s = fp8kit_gemm(&d, &o, nullptr);
    return s == FP8KIT_STATUS_INVALID_ARGUMENT && std::string(fp8kit_last_error()).find(text) != std::string::npos;
  };
  o.accumulation = static_cast<fp8kit_accumulation>(7);
  EXPECT_TRUE(refused("options->accumulation = 7")) << fp8kit_last_error();
  o.accumulation = FP8KIT_ACCUMULATION_PROMOTED;
  o.reserved = 1;
  EXPECT_TRUE(refused("options->reserved = 1")) << fp8kit_last_error();
  o.reserved = 0;
  o.accumulation = FP8KIT_ACCUMULATION_FAST;
  d.k = 256;
  d.op.lda = d.op.ldb = 256;
  d.op.a_scale_mode = d.op.b_scale_mode = FP8KIT_SCALE_BLOCK;
  EXPECT_TRUE(refused("options->accumulation = FAST: block scales")) << fp8kit_last_error();
  fp8kit_gemm_options defaults;
  fp8kit_gemm_options_init(&defaults);
  EXPECT_EQ(defaults.accumulation, FP8KIT_ACCUMULATION_PROMOTED);
}
