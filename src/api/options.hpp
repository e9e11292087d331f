// fp8kit_gemm_options and the environment variables that set its defaults
// (FP8KIT_PATH, FP8KIT_CHECKED; README "Environment").
#pragma once

#include "core/launch_env.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit {

// fp8kit_gemm_options_init: zeroes, then applies the environment. An
// unparsable FP8KIT_PATH leaves AUTO here; resolve_options then refuses it.
void default_options(fp8kit_gemm_options* options);

// The options a call runs with: `in`, or the defaults when `in` is NULL;
// refuses an unknown path, an unparsable FP8KIT_PATH and a workspace size
// without a workspace.
fp8kit_status resolve_options(const fp8kit_gemm_options* in, fp8kit_gemm_options* out);

// The launch settings a kernel path receives from resolved options.
LaunchEnv launch_env_of(const fp8kit_gemm_options& options);

}  // namespace fp8kit
