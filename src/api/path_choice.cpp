#include "api/path_choice.hpp"

#include <string>

#include "api/validate.hpp"
#include "arch/config.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "fp8kit_build_config.hpp"
#include "gemm/path_rule.hpp"

namespace fp8kit {
namespace {

std::string images_text(const GemmPath& path) {
  std::string s;
  for (const arch::Image& im : path.images()) s += (s.empty() ? "" : " ") + im.name();
  return s.empty() ? "none" : s;
}

fp8kit_status check_forced_path(const GemmParams& p, const DeviceInfo& dev, fp8kit_path want, const GemmPath** out) {
  const GemmPath* path = find_path(want);
  if (!path)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s is not part of this build (targets: %s)", fp8kit_path_name(want),
                build::kTargets);
  if (!has_image(*path, dev))
    return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s has no image device %d (%s, capability %s) can load; it carries %s",
                path->name, dev.device, dev.name, capability_text(dev.cap).c_str(), images_text(*path).c_str());
  std::string why;
  if (!path->accepts(p, dev, &why))
    return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s does not take this problem: %s", path->name, why.c_str());
  *out = path;
  return FP8KIT_STATUS_SUCCESS;
}

// "sass sm_90a", "ptx compute_120 (JIT)": what fp8kit_path_choice.image says.
std::string choice_image_text(const arch::Image& im) {
  const bool sass = im.kind == arch::ImageKind::Sass;
  return (sass ? "sass " : "ptx ") + im.name() + (sass ? "" : " (JIT)");
}

}  // namespace

fp8kit_status choose_path(const GemmParams& p, const DeviceInfo& dev, fp8kit_path want, const GemmPath** out) {
  if (dev.cap < arch::kMinSupported)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "device %d (%s) has compute capability %s; fp8kit needs 7.5 or newer",
                dev.device, dev.name, capability_text(dev.cap).c_str());
  if (want != FP8KIT_PATH_AUTO) return check_forced_path(p, dev, want, out);
  std::string why;
  const GemmPath* path = auto_path(
      gemm_paths(), dev.cap, [&](const GemmPath& candidate, std::string* reason) {
        return has_image(candidate, dev) && candidate.accepts(p, dev, reason);
      },
      &why);
  if (!path)
    return fail(FP8KIT_STATUS_UNSUPPORTED,
                "no fp8kit kernel can run on device %d (%s, capability %s)%s%s; this build carries %s", dev.device,
                dev.name, capability_text(dev.cap).c_str(), why.empty() ? "" : ": ", why.c_str(),
                build::kTargets);
  *out = path;
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status choose_path_offline(int major, int minor, fp8kit_scale_mode a_mode, fp8kit_scale_mode b_mode,
                                  fp8kit_path_choice* choice) {
  if (!choice) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "choice is NULL");
  if (major < 0 || minor < 0 || minor > 9)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "capability %d.%d: not a compute capability", major, minor);
  FP8KIT_RETURN_IF_FAILED(check_scale_modes(raw(a_mode), raw(b_mode)));
  const int cap = arch::capability(major, minor);
  const arch::Family* family = arch::family_of(cap);
  *choice = fp8kit_path_choice{FP8KIT_PATH_AUTO, FP8KIT_TC_NONE, family ? family->name : "unknown", ""};
  if (cap < arch::kMinSupported)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "compute capability %d.%d: fp8kit needs 7.5 or newer", major, minor);
  // A path's `accepts` needs a problem and a device; without them the only
  // question is whether an image loads.
  const GemmPath* path = auto_path(
      gemm_paths(), cap,
      [&](const GemmPath& candidate, std::string*) { return arch::select_image(cap, candidate.images()) >= 0; },
      nullptr);
  if (!path)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "compute capability %d.%d: no image in this build (%s)", major, minor,
                build::kTargets);
  const auto& images = path->images();
  // fp8kit_path_choice.image points here: valid until this thread's next call.
  static thread_local std::string image;
  image = choice_image_text(images[arch::select_image(cap, images)]);
  choice->path = path->id;
  choice->tensor_cores = path->tensor_cores(cap);
  choice->image = image.c_str();
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
