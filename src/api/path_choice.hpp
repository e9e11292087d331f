// Which registered path runs a call: on the current device for fp8kit_gemm,
// from a capability alone for fp8kit_choose_path. Both apply the one AUTO
// rule, gemm/path_rule.hpp's auto_path.
#pragma once

#include "fp8kit/fp8kit.h"
#include "gemm/dispatch.hpp"

namespace fp8kit {

// `want` (a checked fp8kit_path): AUTO, or the path the caller forces, which
// is refused with a message when it cannot run here.
fp8kit_status choose_path(const GemmParams& params, const DeviceInfo& dev, fp8kit_path want, const GemmPath** out);

// fp8kit_choose_path: the path AUTO would take on capability major.minor, from
// the images this build carries and the driver's loading rule.
fp8kit_status choose_path_offline(int major, int minor, fp8kit_scale_mode a_mode, fp8kit_scale_mode b_mode,
                                  fp8kit_path_choice* choice);

}  // namespace fp8kit
