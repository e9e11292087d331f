// The grouped GEMM's C entry points: validation (grouped_validate.cpp),
// options, device, path choice over the grouped registry, launch. No
// exception leaves this file.
#include <cuda_runtime_api.h>

#include <string>

#include "api/grouped_validate.hpp"
#include "api/launch.hpp"
#include "api/options.hpp"
#include "arch/config.hpp"
#include "core/device.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "fp8kit_build_config.hpp"
#include "gemm/path_rule.hpp"

namespace fp8kit {
namespace {

const GroupedPath* find_grouped(fp8kit_path id) {
  for (const GroupedPath* p : grouped_paths())
    if (p->id == id) return p;
  return nullptr;
}

// AUTO (gemm/path_rule.hpp) over the grouped registry; a forced path must
// load and accept.
fp8kit_status choose_grouped(const GroupedParams& g, const DeviceInfo& dev, fp8kit_path want,
                             const GroupedPath** out) {
  const int major = dev.cap / 10, minor = dev.cap % 10;
  if (dev.cap < arch::kMinSupported)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "device %d (%s) has compute capability %d.%d; fp8kit needs 7.5 or newer",
                dev.device, dev.name, major, minor);
  std::string why;
  if (want != FP8KIT_PATH_AUTO) {
    const GroupedPath* path = find_grouped(want);
    if (!path)
      return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s has no grouped GEMM in this build (targets: %s)",
                  fp8kit_path_name(want), build::kTargets);
    if (!has_image(*path, dev))
      return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s has no image device %d (%s, capability %d.%d) can load",
                  path->name, dev.device, dev.name, major, minor);
    if (!path->accepts(g, dev, &why))
      return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s does not take this problem: %s", path->name, why.c_str());
    *out = path;
    return FP8KIT_STATUS_SUCCESS;
  }
  const GroupedPath* path = auto_path(
      grouped_paths(), dev.cap, [&](const GroupedPath& candidate, std::string* reason) {
        return has_image(candidate, dev) && candidate.accepts(g, dev, reason);
      },
      &why);
  if (path) {
    *out = path;
    return FP8KIT_STATUS_SUCCESS;
  }
  return fail(FP8KIT_STATUS_UNSUPPORTED, "no fp8kit grouped kernel can run on device %d (%s, capability %d.%d)%s%s",
              dev.device, dev.name, major, minor, why.empty() ? "" : ": ", why.c_str());
}

struct PreparedGroupedGemm {
  GroupedParams g;
  fp8kit_gemm_options opt;
  const DeviceInfo* dev = nullptr;
  const GroupedPath* path = nullptr;
};

fp8kit_status prepare_grouped_gemm(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                                   PreparedGroupedGemm* out) {
  FP8KIT_RETURN_IF_FAILED(validate_grouped(desc, &out->g));
  FP8KIT_RETURN_IF_FAILED(resolve_options(options, &out->opt));
  FP8KIT_RETURN_IF_FAILED(current_device(&out->dev));
  const GemmParams& p = out->g.dense;
  FP8KIT_RETURN_IF_FAILED(check_device_pointers({{desc->offs ? "offs" : "counts", out->g.groups},
                                                 {"a", p.a},
                                                 {"b", p.b},
                                                 {"d", p.d},
                                                 {"a_scale", p.a_scale},
                                                 {"b_scale", p.b_scale},
                                                 {"bias", p.bias}},
                                                out->dev->device));
  return choose_grouped(out->g, *out->dev, out->opt.path, &out->path);
}

fp8kit_status grouped_gemm(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                           cudaStream_t stream) {
  PreparedGroupedGemm call;
  FP8KIT_RETURN_IF_FAILED(prepare_grouped_gemm(desc, options, &call));
  const LaunchEnv env = launch_env_of(call.opt);
  return launch_path("fp8kit_grouped_gemm", env.checked, stream, call.path->name, [&](const char** kernel) {
    return call.path->launch(call.g, *call.dev, env, stream, kernel);
  });
}

}  // namespace
}  // namespace fp8kit

extern "C" {

fp8kit_status fp8kit_grouped_gemm(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                                  void* stream) {
  return fp8kit::guarded("fp8kit_grouped_gemm",
                         [&] { return fp8kit::grouped_gemm(desc, options, static_cast<cudaStream_t>(stream)); });
}

fp8kit_status fp8kit_grouped_gemm_select(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                                         fp8kit_path* path) {
  return fp8kit::guarded("fp8kit_grouped_gemm_select", [&] {
    if (!path) return fp8kit::fail(FP8KIT_STATUS_INVALID_ARGUMENT, "path is NULL");
    *path = FP8KIT_PATH_AUTO;
    fp8kit::PreparedGroupedGemm call;
    FP8KIT_RETURN_IF_FAILED(fp8kit::prepare_grouped_gemm(desc, options, &call));
    *path = call.path->id;
    fp8kit::clear_error();
    return FP8KIT_STATUS_SUCCESS;
  });
}

const char* fp8kit_grouped_layout_name(fp8kit_grouped_layout layout) {
  switch (fp8kit::raw(layout)) {
    case FP8KIT_GROUPED_CONTIGUOUS: return "contiguous";
    case FP8KIT_GROUPED_MASKED: return "masked";
  }
  return "unknown_layout";
}

}  // extern "C"
