// The native Hopper path's internals that developer tools reach (the
// harness in dev/sm90: configuration sweeps, forced tiles): the host plan
// and a launch of a given plan. Not part of the library's interface.
#pragma once

#include <cuda_runtime_api.h>

#include "gemm/dispatch.hpp"
#include "gemm/sm90/plan.hpp"

namespace fp8kit::sm90 {

// Launches plan `pl` (from make_plan, or from plan_for in a configuration
// sweep); the caller has validated `p` and the path has accepted it.
// The device's capacity for cluster splits (make_plan's `fit`), asked once per device.
ClusterFit cluster_fit(const DeviceInfo& dev);

cudaError_t launch_plan(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                        const Plan& pl, const char** kernel_name);

}  // namespace fp8kit::sm90
