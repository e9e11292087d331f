#include "api/gemm_call.hpp"

#include "api/launch.hpp"
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
  const LaunchEnv env = launch_env_of(call.options);
  return launch_path("fp8kit_gemm", env.checked, stream, call.path->name, [&](const char** kernel) {
    return call.path->launch(call.params, *call.device, env, stream, kernel);
  });
}

}  // namespace fp8kit
