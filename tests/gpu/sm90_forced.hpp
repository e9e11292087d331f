// Forced plans of the native Hopper path in GPU tests: a plan from the path's
// dev header (as dev/sm90's harness forces one), launched on fresh random
// inputs with D poisoned and checked against the float64 reference. Built
// where the sm90 family is (tests/CMakeLists.txt); skipped without a Hopper GPU.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>

#include "api/operand_checks.hpp"
#include "arch/config.hpp"
#include "core/device.hpp"
#include "gemm/sm90/dev_api.hpp"
#include "reference/gemm_check.hpp"
#include "test_rng.hpp"
#include "test_tables.hpp"

namespace fp8kit::test::sm90_forced {

// The current device when it is a Hopper GPU, else null (and the reason).
inline const DeviceInfo* hopper(std::string* why) {
  if (!ref::gpu_available()) {
    *why = "no CUDA GPU on this machine";
    return nullptr;
  }
  const DeviceInfo* dev = nullptr;
  if (current_device(&dev) != FP8KIT_STATUS_SUCCESS || !arch::kHopperWgmma.contains(dev->cap)) {
    *why = "sm90_wgmma runs on Hopper (sm_90a) only";
    return nullptr;
  }
  return dev;
}

inline void expect_correct(const ref::GemmCase& c, const ref::GemmOutcome& r, const std::string& how) {
  ASSERT_EQ(r.status, FP8KIT_STATUS_SUCCESS) << c.label() << " " << how << ": " << r.message;
  EXPECT_EQ(r.unwritten, 0) << c.label() << " " << how;
  EXPECT_EQ(r.clobbered, 0) << c.label() << " " << how << ": bytes written outside D[M, N]";
  EXPECT_EQ(r.failures, 0) << c.label() << " " << how << ": " << r.failures << " of " << r.checked
                           << " outside the bound; first " << r.first_failure;
}

// The vector scale pairs (A, B) of the forced cases, rotated through.
constexpr fp8kit_scale_mode kVectorModes[][2] = {{FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE},
                                                 {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR},
                                                 {FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL},
                                                 {FP8KIT_SCALE_ROW, FP8KIT_SCALE_TENSOR},
                                                 {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_COL}};
constexpr int kVectorModeCount = sizeof(kVectorModes) / sizeof(kVectorModes[0]);

// The K of `kb` K blocks whose last is 16 deep (a ragged K tail).
inline int64_t ragged_k(int kb) { return int64_t{kb - 1} * sm90::kBlockK + 16; }

// A case whose operand types, output, scale modes and bias rotate with `rot`;
// D's rows padded to 16 bytes.
inline ref::GemmCase rotated_case(int64_t m, int64_t n, int64_t k, bool block, int rot) {
  ref::GemmCase c{m, n, k};
  c.a_type = kPairs[rot % 4].first;
  c.b_type = kPairs[rot % 4].second;
  c.d_type = kOuts[rot % 3];
  c.a_mode = block ? FP8KIT_SCALE_BLOCK : kVectorModes[rot % kVectorModeCount][0];
  c.b_mode = block ? FP8KIT_SCALE_BLOCK : kVectorModes[rot % kVectorModeCount][1];
  c.bias = rot % 4 != 0;
  c.bias_type = kOuts[(rot / 4) % 3];
  c.align_d_rows();
  return c;
}

// Launches plan `pl` for case `c` under `env` and checks it; `how` names the
// plan in failures. The caller has skipped without a Hopper GPU.
inline void run_plan(const ref::GemmCase& c, const sm90::Plan& pl, const LaunchEnv& env, const std::string& how) {
  std::string why;
  const DeviceInfo* dev = hopper(&why);
  ASSERT_NE(dev, nullptr) << why;
  ref::Problem prob(c, rng());
  prob.poison();
  GemmParams p = operand_params(prob.desc().op, prob.desc().n, prob.desc().k);
  p.m = static_cast<int>(c.m);
  const char* kernel = "";
  ASSERT_EQ(sm90::launch_plan(p, *dev, env, nullptr, pl, &kernel), cudaSuccess) << c.label() << " " << how;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << c.label() << " " << how;
  expect_correct(c, prob.check(FP8KIT_PATH_SM90_WGMMA, rng()), std::string(kernel) + " " + how);
}

}  // namespace fp8kit::test::sm90_forced
