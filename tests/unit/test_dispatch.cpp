// The dispatch table for every capability from 7.5 to 12.1 and beyond, judged
// from the images this build carries (no GPU needed).
#include <gtest/gtest.h>

#include <string>

#include "fp8kit/fp8kit.h"

namespace {

bool built(const char* target) {
  // Targets are listed space-separated; match a whole word.
  const std::string all = std::string(" ") + fp8kit_build_targets() + " ";
  return all.find(std::string(" ") + target + " ") != std::string::npos ||
         all.find(std::string(" ") + target + ";") != std::string::npos;
}

bool full_build() {
  for (const char* t : {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_103", "sm_110", "sm_120",
                        "sm_121", "compute_120"})
    if (!built(t)) return false;
  return true;
}

struct Expect {
  int major, minor;
  fp8kit_path path;
  fp8kit_tensor_cores tc;
  const char* image;
};

}  // namespace

TEST(Dispatch, EveryKnownCapability) {
  if (!full_build()) GTEST_SKIP() << "developer build with a subset of targets: " << fp8kit_build_targets();
  const bool hopper = built("sm_90a");
  const Expect table[] = {
      {7, 5, FP8KIT_PATH_SM75_HMMA, FP8KIT_TC_FALLBACK, "sass sm_75"},
      {8, 0, FP8KIT_PATH_SM75_HMMA, FP8KIT_TC_FALLBACK, "sass sm_80"},
      {8, 6, FP8KIT_PATH_SM75_HMMA, FP8KIT_TC_FALLBACK, "sass sm_86"},
      {8, 7, FP8KIT_PATH_SM75_HMMA, FP8KIT_TC_FALLBACK, "sass sm_87"},
      {8, 9, FP8KIT_PATH_SM89_MMA, FP8KIT_TC_NATIVE, "sass sm_89"},
      {9, 0, hopper ? FP8KIT_PATH_SM90_WGMMA : FP8KIT_PATH_SM89_MMA, hopper ? FP8KIT_TC_NATIVE : FP8KIT_TC_EMULATED,
       hopper ? "sass sm_90a" : "sass sm_90"},
      {10, 0, FP8KIT_PATH_SM89_MMA, FP8KIT_TC_EMULATED, "sass sm_100"},
      {10, 3, FP8KIT_PATH_SM89_MMA, FP8KIT_TC_EMULATED, "sass sm_103"},
      {11, 0, FP8KIT_PATH_SM89_MMA, FP8KIT_TC_EMULATED, "sass sm_110"},
      // SM12x: the block-scaled family image, on every minor.
      {12, 0, FP8KIT_PATH_SM120_MMA, FP8KIT_TC_NATIVE, "sass sm_120f"},
      {12, 1, FP8KIT_PATH_SM120_MMA, FP8KIT_TC_NATIVE, "sass sm_120f"},
      // Unknown minors: the family's image loads (same major, lower minor).
      {12, 3, FP8KIT_PATH_SM120_MMA, FP8KIT_TC_NATIVE, "sass sm_120f"},
      {10, 7, FP8KIT_PATH_SM89_MMA, FP8KIT_TC_EMULATED, "sass sm_103"},
      // Unknown major: JIT from the embedded PTX.
      {13, 0, FP8KIT_PATH_SM89_MMA, FP8KIT_TC_UNKNOWN, "ptx compute_120 (JIT)"},
  };
  for (const Expect& e : table) {
    fp8kit_path_choice c = FP8KIT_PATH_CHOICE_INIT;
    for (auto [am, bm] : {std::pair{FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR}, std::pair{FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL},
                          std::pair{FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK}}) {
      ASSERT_EQ(fp8kit_choose_path(e.major, e.minor, am, bm, &c), FP8KIT_STATUS_SUCCESS)
          << e.major << "." << e.minor << ": " << fp8kit_last_error();
      EXPECT_EQ(c.path, e.path) << e.major << "." << e.minor;
      EXPECT_EQ(c.tensor_cores, e.tc) << e.major << "." << e.minor;
      EXPECT_STREQ(c.image, e.image) << e.major << "." << e.minor;
    }
  }
}

// In any build with an SM12x target: 12.0, 12.1 and an unseen 12.3
// all take sm120_mma's one sm_120f image; 11.x and 13.x never do.
TEST(Dispatch, Sm12xTakesTheFamilyImage) {
  if (!built("sm_120f")) GTEST_SKIP() << "no SM12x target in this build: " << fp8kit_build_targets();
  for (int minor : {0, 1, 3, 9}) {
    fp8kit_path_choice c = FP8KIT_PATH_CHOICE_INIT;
    ASSERT_EQ(fp8kit_choose_path(12, minor, FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK, &c), FP8KIT_STATUS_SUCCESS);
    EXPECT_EQ(c.path, FP8KIT_PATH_SM120_MMA) << "12." << minor;
    EXPECT_STREQ(c.image, "sass sm_120f") << "12." << minor;
    EXPECT_EQ(c.tensor_cores, FP8KIT_TC_NATIVE);
  }
  for (auto [major, minor] : {std::pair{11, 0}, std::pair{13, 0}}) {
    fp8kit_path_choice c = FP8KIT_PATH_CHOICE_INIT;
    if (fp8kit_choose_path(major, minor, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, &c) == FP8KIT_STATUS_SUCCESS)
      EXPECT_NE(c.path, FP8KIT_PATH_SM120_MMA) << major << "." << minor;
  }
}

TEST(Dispatch, EveryCapabilityFrom75UpHasAPath) {
  // Whatever subset was built, a capability in the build's range gets a path
  // or a clear refusal; with the full build, every real GPU from 7.5 gets one.
  for (int major = 7; major <= 13; ++major) {
    for (int minor = 0; minor <= 9; ++minor) {
      if (major * 10 + minor < 75) continue;
      fp8kit_path_choice c = FP8KIT_PATH_CHOICE_INIT;
      const fp8kit_status s = fp8kit_choose_path(major, minor, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, &c);
      if (full_build()) {
        EXPECT_EQ(s, FP8KIT_STATUS_SUCCESS) << major << "." << minor << ": " << fp8kit_last_error();
        EXPECT_NE(c.path, FP8KIT_PATH_AUTO);
      } else {
        EXPECT_TRUE(s == FP8KIT_STATUS_SUCCESS || s == FP8KIT_STATUS_UNSUPPORTED);
      }
    }
  }
}

TEST(Dispatch, RefusesOldGpusClearly) {
  fp8kit_path_choice c = FP8KIT_PATH_CHOICE_INIT;
  EXPECT_EQ(fp8kit_choose_path(7, 0, FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE, &c), FP8KIT_STATUS_UNSUPPORTED);
  EXPECT_NE(std::string(fp8kit_last_error()).find("7.0"), std::string::npos) << fp8kit_last_error();
  EXPECT_NE(std::string(fp8kit_last_error()).find("7.5"), std::string::npos);
  EXPECT_EQ(fp8kit_choose_path(6, 1, FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE, &c), FP8KIT_STATUS_UNSUPPORTED);
}

TEST(Dispatch, RejectsBadQueries) {
  fp8kit_path_choice c = FP8KIT_PATH_CHOICE_INIT;
  EXPECT_EQ(fp8kit_choose_path(9, 0, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(fp8kit_choose_path(9, 12, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, &c), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(fp8kit_choose_path(9, 0, FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_TENSOR, &c), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(fp8kit_choose_path(9, 0, FP8KIT_SCALE_COL, FP8KIT_SCALE_TENSOR, &c), FP8KIT_STATUS_INVALID_ARGUMENT);
}

TEST(Dispatch, NamesAreStable) {
  EXPECT_STREQ(fp8kit_path_name(FP8KIT_PATH_SM90_WGMMA), "sm90_wgmma");
  EXPECT_STREQ(fp8kit_path_name(FP8KIT_PATH_SM89_MMA), "sm89_mma");
  EXPECT_STREQ(fp8kit_path_name(FP8KIT_PATH_SM75_HMMA), "sm75_hmma");
  EXPECT_STREQ(fp8kit_path_name(FP8KIT_PATH_SM120_MMA), "sm120_mma");
  EXPECT_STREQ(fp8kit_status_name(FP8KIT_STATUS_UNSUPPORTED), "unsupported");
  EXPECT_STREQ(fp8kit_dtype_name(FP8KIT_DTYPE_E5M2), "e5m2");
  EXPECT_STREQ(fp8kit_scale_mode_name(FP8KIT_SCALE_BLOCK), "block");
}
