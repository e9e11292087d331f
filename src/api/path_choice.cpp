#include "api/path_choice.hpp"

#include "api/operand_checks.hpp"
#include "api/versioned.hpp"
#include "core/enums.hpp"
#include "gemm/dispatch.hpp"

namespace fp8kit {
namespace {

// What AUTO takes on `cap` (checked), into `*c`; the status of the answer.
fp8kit_status choose_offline(int major, int minor, fp8kit_path_choice* c) {
  const int cap = arch::capability(major, minor);
  const arch::Family* family = arch::family_of(cap);
  c->family = family ? family->name : "unknown";
  if (cap < arch::kMinSupported)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "compute capability %d.%d: fp8kit needs 7.5 or newer", major, minor);
  // A path's `accepts` needs a problem and a device; without them the only
  // question is whether an image loads.
  const GemmPath* path = auto_path(
      registry<GemmParams>(), cap,
      [&](const GemmPath& candidate, std::string*) { return arch::select_image(cap, candidate.images()) >= 0; },
      nullptr);
  if (!path)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "compute capability %d.%d: no image in this build (%s)", major, minor,
                build::kTargets);
  const auto& images = path->images();
  // fp8kit_path_choice.image points here: valid until this thread's next call.
  static thread_local std::string image;
  image = arch::image_text(images[arch::select_image(cap, images)]);
  c->path = path->id;
  c->tensor_cores = path->tensor_cores(cap);
  c->image = image.c_str();
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace

fp8kit_status choose_path_offline(int major, int minor, fp8kit_scale_mode a_mode, fp8kit_scale_mode b_mode,
                                  fp8kit_path_choice* choice) {
  if (!choice) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "choice is NULL");
  fp8kit_path_choice c{};
  c.struct_size = sizeof c;
  c.family = "unknown";
  c.image = "";
  // The caller's struct_size is checked before anything is written to it.
  FP8KIT_RETURN_IF_FAILED(write_versioned(c, choice));
  if (major < 0 || minor < 0 || minor > 9)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "capability %d.%d: not a compute capability", major, minor);
  FP8KIT_RETURN_IF_FAILED(check_scale_modes(raw(a_mode), raw(b_mode)));
  const fp8kit_status s = choose_offline(major, minor, &c);
  FP8KIT_RETURN_IF_FAILED(write_versioned(c, choice));
  return s;
}

}  // namespace fp8kit
