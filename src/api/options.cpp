#include "api/options.hpp"

#include "api/versioned.hpp"
#include "core/enums.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"

namespace fp8kit {

fp8kit_status resolve_options(const fp8kit_gemm_options* in, fp8kit_gemm_options* out) {
  *out = fp8kit_gemm_options{};
  out->struct_size = sizeof *out;
  if (in) FP8KIT_RETURN_IF_FAILED(read_versioned(in, out));
  if (!is_path(raw(out->path)))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "options->path = %d: not a fp8kit_path (%s)", raw(out->path),
                path_name_list().c_str());
  const Environment& env = environment();
  if (!env.path_valid)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "FP8KIT_PATH = '%s': must be %s", env.path_text.c_str(),
                path_name_list().c_str());
  if (out->path == FP8KIT_PATH_AUTO) out->path = env.path;
  if (env.checked) out->checked = 1;
  if (env.programmatic_launch) out->programmatic_launch = 1;
  if (raw(out->accumulation) != FP8KIT_ACCUMULATION_PROMOTED && raw(out->accumulation) != FP8KIT_ACCUMULATION_FAST)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "options->accumulation = %d: must be PROMOTED (0) or FAST (1)",
                raw(out->accumulation));
  if (out->reserved != 0)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "options->reserved = %d: must be zero", out->reserved);
  if (out->workspace_size && !out->workspace)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "options->workspace is NULL but workspace_size is %zu",
                out->workspace_size);
  return FP8KIT_STATUS_SUCCESS;
}

LaunchEnv launch_env_of(const fp8kit_gemm_options& options) {
  LaunchEnv env;
  env.checked = options.checked != 0;
  env.programmatic_launch = options.programmatic_launch != 0;
  env.workspace = options.workspace;
  env.workspace_size = options.workspace_size;
  env.workspace_zeroed = options.workspace_zeroed != 0;
  env.fast_accumulation = options.accumulation == FP8KIT_ACCUMULATION_FAST;
  return env;
}

}  // namespace fp8kit
