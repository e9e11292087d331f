#include "api/options.hpp"

#include <cstdlib>
#include <cstring>

#include "core/enums.hpp"
#include "core/error.hpp"

namespace fp8kit {
namespace {

// FP8KIT_PATH, if set: false when it names no path.
bool path_from_env(fp8kit_path* out) {
  const char* v = std::getenv("FP8KIT_PATH");
  if (!v || !*v) return true;
  for (fp8kit_path p : kAllPaths) {
    if (std::strcmp(v, fp8kit_path_name(p)) == 0) {
      *out = p;
      return true;
    }
  }
  return false;
}

}  // namespace

void default_options(fp8kit_gemm_options* options) {
  *options = fp8kit_gemm_options{};
  path_from_env(&options->path);
  const char* checked = std::getenv("FP8KIT_CHECKED");
  options->checked = checked && std::strcmp(checked, "1") == 0;
  const char* pdl = std::getenv("FP8KIT_PDL");
  options->programmatic_launch = pdl && std::strcmp(pdl, "1") == 0;
}

fp8kit_status resolve_options(const fp8kit_gemm_options* in, fp8kit_gemm_options* out) {
  if (in) {
    *out = *in;
  } else {
    default_options(out);
  }
  fp8kit_path from_env = FP8KIT_PATH_AUTO;
  if (!path_from_env(&from_env))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "FP8KIT_PATH = '%s': must be auto, sm90_wgmma, sm120_mma, sm89_mma or sm75_hmma",
                std::getenv("FP8KIT_PATH"));
  if (!is_path(raw(out->path)))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "options->path = %d: not a fp8kit_path", raw(out->path));
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
  return env;
}

}  // namespace fp8kit
