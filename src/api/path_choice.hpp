// Which registered path runs a call: on the current device for the calls,
// from a capability alone for fp8kit_choose_path. Both apply the one AUTO
// rule, core/registry.hpp's auto_path.
#pragma once

#include <string>

#include "arch/config.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/text.hpp"
#include "fp8kit/fp8kit.h"
#include "fp8kit_build_config.hpp"

namespace fp8kit {

// `want` (a checked fp8kit_path): AUTO, or the path the caller forces, which
// is refused with a message when it cannot run here. `what` names the kind
// of problem in messages ("GEMM", "grouped GEMM", "quantisation").
template <typename Problem>
fp8kit_status choose_path(const Problem& p, const DeviceInfo& dev, fp8kit_path want, const char* what,
                          const KernelPath<Problem>** out) {
  if (dev.cap < arch::kMinSupported)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "device %d (%s) has compute capability %s; fp8kit needs 7.5 or newer",
                dev.device, dev.name, capability_text(dev.cap).c_str());
  std::string why;
  if (want != FP8KIT_PATH_AUTO) {
    const KernelPath<Problem>* path = find_path<Problem>(want);
    if (!path)
      return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s has no %s kernels in this build (targets: %s)", path_name(want),
                  what, build::kTargets);
    if (!has_image(*path, dev))
      return fail(FP8KIT_STATUS_UNSUPPORTED,
                  "path %s has no %s image device %d (%s, capability %s) can load; it carries %s", path->name(), what,
                  dev.device, dev.name, capability_text(dev.cap).c_str(), images_text(*path).c_str());
    if (!path->accepts(p, dev, &why))
      return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s does not take this %s: %s", path->name(), what, why.c_str());
    *out = path;
    return FP8KIT_STATUS_SUCCESS;
  }
  const KernelPath<Problem>* path = auto_path(
      registry<Problem>(), dev.cap,
      [&](const KernelPath<Problem>& candidate, std::string* reason) {
        return has_image(candidate, dev) && candidate.accepts(p, dev, reason);
      },
      &why);
  if (!path)
    return fail(FP8KIT_STATUS_UNSUPPORTED,
                "no fp8kit %s kernel can run on device %d (%s, capability %s)%s%s; this build carries %s", what,
                dev.device, dev.name, capability_text(dev.cap).c_str(), why.empty() ? "" : ": ", why.c_str(),
                build::kTargets);
  *out = path;
  return FP8KIT_STATUS_SUCCESS;
}

// fp8kit_choose_path: the path AUTO would take on capability major.minor, from
// the images this build carries and the driver's loading rule; `*choice` is
// the caller's struct (struct_size set), written either way.
fp8kit_status choose_path_offline(int major, int minor, fp8kit_scale_mode a_mode, fp8kit_scale_mode b_mode,
                                  fp8kit_path_choice* choice);

}  // namespace fp8kit
