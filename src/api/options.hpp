// fp8kit_gemm_options as a call runs with them: the caller's struct (any
// version, api/versioned.hpp) or the defaults, with the environment's
// overrides (core/environment.hpp) applied in this one place.
#pragma once

#include "core/launch_env.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit {

// The options of a call: `in` (NULL: the defaults) read as this library
// knows it, then FP8KIT_PATH where the path is AUTO, FP8KIT_CHECKED and
// FP8KIT_PDL. Refuses a bad struct_size, an unknown path, an unparsable
// FP8KIT_PATH and a workspace size without a workspace.
fp8kit_status resolve_options(const fp8kit_gemm_options* in, fp8kit_gemm_options* out);

// The launch settings a kernel path receives from resolved options.
LaunchEnv launch_env_of(const fp8kit_gemm_options& options);

}  // namespace fp8kit
