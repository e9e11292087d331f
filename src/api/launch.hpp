// One path launch as every entry point does it. In checked mode the stream is
// synchronised before the launch (an earlier fault is reported as not
// fp8kit's) and after it (the fault is this kernel's, by name).
#pragma once

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace fp8kit {

// Errors of a kernel's execution (a fault of device code), as opposed to a
// refused launch (configuration, resources, no image). A launch status
// reports one when a kernel queued earlier faulted, or, in checked mode,
// when a family that queues two kernels synchronised between them.
constexpr bool is_execution_fault(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

// `launch(&kernel)` starts the kernels and returns CUDA's launch status,
// setting `kernel` to the launched kernel's name; `entry` is the C function
// ("fp8kit_gemm") the messages name.
template <typename Launch>
fp8kit_status launch_path(const char* entry, bool checked, cudaStream_t stream, const char* kernel,
                          Launch&& launch) {
  if (checked) {
    const cudaError_t before = cudaStreamSynchronize(stream);
    if (before != cudaSuccess)
      return fail(FP8KIT_STATUS_CUDA_ERROR, "an operation queued before %s on this stream failed: %s (%s)", entry,
                  cudaGetErrorName(before), cudaGetErrorString(before));
  }
  cudaError_t err = launch(&kernel);
  // Checked, the stream was clean before the call: a fault is this call's,
  // in `kernel` (the one the launch function last named).
  if (err != cudaSuccess && checked && is_execution_fault(err))
    return fail(FP8KIT_STATUS_CUDA_ERROR, "kernel %s faulted: %s (%s)", kernel, cudaGetErrorName(err),
                cudaGetErrorString(err));
  if (err != cudaSuccess)
    return fail(FP8KIT_STATUS_CUDA_ERROR, "launching %s failed: %s (%s)", kernel, cudaGetErrorName(err),
                cudaGetErrorString(err));
  if (checked) {
    err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
      return fail(FP8KIT_STATUS_CUDA_ERROR, "kernel %s faulted: %s (%s)", kernel, cudaGetErrorName(err),
                  cudaGetErrorString(err));
  }
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
