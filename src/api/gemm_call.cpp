#include "api/gemm_call.hpp"

#include "api/options.hpp"
#include "api/path_choice.hpp"
#include "api/validate.hpp"
#include "core/error.hpp"

namespace fp8kit {

fp8kit_status prepare_gemm(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, PreparedGemm* out) {
  FP8KIT_RETURN_IF_FAILED(validate_gemm(desc, &out->params));
  FP8KIT_RETURN_IF_FAILED(resolve_options(options, &out->options));
  FP8KIT_RETURN_IF_FAILED(current_device(&out->device));
  const GemmParams& p = out->params;
  FP8KIT_RETURN_IF_FAILED(check_device_pointers({{"a", p.a},
                                                 {"b", p.b},
                                                 {"d", p.d},
                                                 {"a_scale", p.a_scale},
                                                 {"b_scale", p.b_scale},
                                                 {"bias", p.bias},
                                                 {"options->workspace", out->options.workspace}},
                                                out->device->device));
  return choose_path(p, *out->device, out->options.path, &out->path);
}

fp8kit_status run_gemm(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, cudaStream_t stream) {
  PreparedGemm call;
  FP8KIT_RETURN_IF_FAILED(prepare_gemm(desc, options, &call));
  LaunchEnv env;
  env.checked = call.options.checked != 0;
  env.workspace = call.options.workspace;
  env.workspace_size = call.options.workspace_size;
  if (env.checked) {
    // An earlier fault on this stream is not fp8kit's: say so before launching.
    const cudaError_t before = cudaStreamSynchronize(stream);
    if (before != cudaSuccess)
      return fail(FP8KIT_STATUS_CUDA_ERROR, "an operation queued before fp8kit_gemm on this stream failed: %s (%s)",
                  cudaGetErrorName(before), cudaGetErrorString(before));
  }
  const char* kernel = call.path->name;
  cudaError_t err = call.path->launch(call.params, *call.device, env, stream, &kernel);
  if (err != cudaSuccess)
    return fail(FP8KIT_STATUS_CUDA_ERROR, "launching %s failed: %s (%s)", kernel, cudaGetErrorName(err),
                cudaGetErrorString(err));
  if (env.checked) {
    err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
      return fail(FP8KIT_STATUS_CUDA_ERROR, "kernel %s faulted: %s (%s)", kernel, cudaGetErrorName(err),
                  cudaGetErrorString(err));
  }
  clear_error();
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
