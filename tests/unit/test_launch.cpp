// launch_path's messages: a refused launch names the kernel it could not
// start; in checked mode a fault reported by a launch function (a family that
// synchronises between its kernels) names the kernel that faulted.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>

#include "api/launch.hpp"
#include "core/error.hpp"

namespace {

using fp8kit::launch_path;

// A launch function that names `name` and returns `status`.
auto returning(cudaError_t status, const char* name) {
  return [=](const char** kernel) {
    *kernel = name;
    return status;
  };
}

bool have_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

TEST(LaunchPath, ExecutionFaultsAreTold) {
  for (cudaError_t e : {cudaErrorIllegalAddress, cudaErrorMisalignedAddress, cudaErrorIllegalInstruction,
                        cudaErrorLaunchFailure, cudaErrorAssert})
    EXPECT_TRUE(fp8kit::is_execution_fault(e)) << cudaGetErrorName(e);
  for (cudaError_t e : {cudaSuccess, cudaErrorInvalidValue, cudaErrorInvalidConfiguration,
                        cudaErrorLaunchOutOfResources, cudaErrorNoKernelImageForDevice, cudaErrorNotReady})
    EXPECT_FALSE(fp8kit::is_execution_fault(e)) << cudaGetErrorName(e);
}

TEST(LaunchPath, RefusedLaunchNamesTheKernel) {
  const fp8kit_status s =
      launch_path("fp8kit_gemm", false, nullptr, "first", returning(cudaErrorInvalidConfiguration, "second"));
  EXPECT_EQ(s, FP8KIT_STATUS_CUDA_ERROR);
  const std::string msg = fp8kit::last_error();
  EXPECT_NE(msg.find("launching second failed"), std::string::npos) << msg;
}

// Unchecked, a fault seen at launch may be an earlier kernel's: not called this one's.
TEST(LaunchPath, UncheckedFaultIsNotBlamedOnTheKernel) {
  launch_path("fp8kit_gemm", false, nullptr, "first", returning(cudaErrorIllegalAddress, "widen"));
  const std::string msg = fp8kit::last_error();
  EXPECT_NE(msg.find("launching widen failed"), std::string::npos) << msg;
}

// Checked (needs a device for the clean stream it starts from).
TEST(LaunchPath, CheckedFaultNamesTheKernelThatFaulted) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const fp8kit_status s =
      launch_path("fp8kit_gemm", true, nullptr, "gemm", returning(cudaErrorIllegalAddress, "widen"));
  EXPECT_EQ(s, FP8KIT_STATUS_CUDA_ERROR);
  const std::string msg = fp8kit::last_error();
  EXPECT_NE(msg.find("kernel widen faulted"), std::string::npos) << msg;
}

}  // namespace
