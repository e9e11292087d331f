// Argument checks of fp8kit_grouped_gemm: everything the host can know,
// before anything touches the device (fp8kit.h lists the rules).
#pragma once

#include "fp8kit/fp8kit.h"
#include "gemm/grouped/grouped_params.hpp"

namespace fp8kit {

// Checks every field of `d`; on success fills `g`. The message names the
// first offending argument.
fp8kit_status validate_grouped(const fp8kit_grouped_gemm_desc* d, GroupedParams* g);

}  // namespace fp8kit
