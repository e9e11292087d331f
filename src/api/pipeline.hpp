// The one pipeline of every entry point, from the caller's descriptor to the
// launch: read and validate the descriptor (api/versioned.hpp and the
// problem's checks), resolve the options and the environment
// (api/options.hpp), find the device, check that every pointer is memory it
// can read, choose the path (api/path_choice.hpp), launch (api/launch.hpp).
//
// A problem kind plugs in through Op<Desc>: its kernel-side problem type
// `Problem`, the C entry's name `kEntry`, `kWhat` for messages, whether a
// forced path applies (`kTakesPath`), `validate` and `pointers`
// (api/ops.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include "api/launch.hpp"
#include "api/options.hpp"
#include "api/path_choice.hpp"
#include "core/device.hpp"
#include "core/error.hpp"

namespace fp8kit {

template <typename Desc>
struct Op;

// Everything decided before a launch: the validated problem, the options in
// force, the device and the chosen path.
template <typename Desc>
struct Prepared {
  using Problem = typename Op<Desc>::Problem;
  Problem problem{};
  fp8kit_gemm_options options{};
  const DeviceInfo* device = nullptr;
  const KernelPath<Problem>* path = nullptr;
};

// Validation, options, device, device pointers, path: no launch.
// `workspace_query`: choose the path as if the call lent every workspace a
// path could use (a workspace-size query).
template <typename Desc>
fp8kit_status prepare(const Desc* desc, const fp8kit_gemm_options* options, Prepared<Desc>* out,
                      bool workspace_query = false) {
  using O = Op<Desc>;
  if (!desc) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "desc is NULL");
  FP8KIT_RETURN_IF_FAILED(O::validate(*desc, &out->problem));
  FP8KIT_RETURN_IF_FAILED(resolve_options(options, &out->options));
  FP8KIT_RETURN_IF_FAILED(check_options(out->problem, out->options));
  bind_workspace(&out->problem, out->options, workspace_query);
  if constexpr (!O::kTakesPath) out->options.path = FP8KIT_PATH_AUTO;
  FP8KIT_RETURN_IF_FAILED(current_device(&out->device));
  FP8KIT_RETURN_IF_FAILED(check_device_pointers(O::pointers(out->problem, out->options), out->device->device));
  return choose_path(out->problem, *out->device, out->options.path, O::kWhat, &out->path);
}

// `*path` = the path a call of `desc` would run (no launch).
template <typename Desc>
fp8kit_status select_path(const Desc* desc, const fp8kit_gemm_options* options, fp8kit_path* path) {
  if (!path) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "path is NULL");
  *path = FP8KIT_PATH_AUTO;
  Prepared<Desc> call;
  FP8KIT_RETURN_IF_FAILED(prepare(desc, options, &call));
  *path = call.path->id;
  return FP8KIT_STATUS_SUCCESS;
}

// `*bytes` = the workspace the path a call of `desc` would run with every
// workspace lent uses for best speed (0: none).
template <typename Desc>
fp8kit_status workspace_size(const Desc* desc, const fp8kit_gemm_options* options, size_t* bytes) {
  if (!bytes) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "bytes is NULL");
  *bytes = 0;
  Prepared<Desc> call;
  FP8KIT_RETURN_IF_FAILED(prepare(desc, options, &call, true));
  if (call.path->workspace_size) *bytes = call.path->workspace_size(call.problem, *call.device);
  return FP8KIT_STATUS_SUCCESS;
}

// prepare, then the launch on `stream`.
template <typename Desc>
fp8kit_status run(const Desc* desc, const fp8kit_gemm_options* options, cudaStream_t stream) {
  Prepared<Desc> call;
  FP8KIT_RETURN_IF_FAILED(prepare(desc, options, &call));
  const LaunchEnv env = launch_env_of(call.options);
  return launch_path(Op<Desc>::kEntry, env.checked, stream, call.path->name(), [&](const char** kernel) {
    return call.path->launch(call.problem, *call.device, env, stream, kernel);
  });
}

}  // namespace fp8kit
