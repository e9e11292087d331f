// The GPU tests' one check of a dense GEMM case (FP8, NVFP4): runs it against
// the float64 reference and turns the outcome into assertions; skips when the
// forced path is absent from this build or cannot run on this GPU.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "reference/gemm_check.hpp"
#include "reference/nvfp4_check.hpp"
#include "test_rng.hpp"

namespace fp8kit::test {

// An outcome as assertions: skipped where the forced `path` cannot run here.
inline void expect_outcome(const ref::GemmOutcome& r, const std::string& label, fp8kit_path path) {
  if (r.status == FP8KIT_STATUS_UNSUPPORTED && path != FP8KIT_PATH_AUTO)
    GTEST_SKIP() << fp8kit_path_name(path) << " cannot run here: " << r.message;
  ASSERT_EQ(r.status, FP8KIT_STATUS_SUCCESS) << label << ": " << r.message;
  EXPECT_EQ(r.unwritten, 0) << label;
  EXPECT_EQ(r.clobbered, 0) << label << ": bytes written outside D[M, N]";
  EXPECT_EQ(r.failures, 0) << label << ": " << r.failures << " of " << r.checked << " outside the bound; first "
                           << r.first_failure;
  ::testing::Test::RecordProperty("worst_error_over_bound", std::to_string(r.worst_ratio));
}

// `ws`: the workspace lent (default: the size the plan asks for).
inline void expect_correct(const ref::GemmCase& c, fp8kit_path path, const ref::LentWorkspace& ws = {}) {
  if (!ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  const ref::GemmOutcome r = ref::run_case(c, path, rng(), ref::kFullCheckLimit, ref::kCheckSamples, ws);
  expect_outcome(r, c.label(), path);
  ::testing::Test::RecordProperty("relative_norm_error", std::to_string(r.rel_norm_err));
  ::testing::Test::RecordProperty("worst_accumulation_error", std::to_string(r.worst_acc_error));
}

inline void expect_nvfp4_correct(const ref::Nvfp4Case& c, fp8kit_path path) {
  if (!ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  expect_outcome(ref::run_nvfp4_case(c, path, rng()), c.label(), path);
}

}  // namespace fp8kit::test
