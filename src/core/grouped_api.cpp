// The grouped GEMM's C entry points: validation (grouped_validate.cpp),
// options, device, path choice over the grouped registry, launch. No
// exception leaves this file.
#include <cuda_runtime_api.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "core/device.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "core/grouped_validate.hpp"
#include "fp8kit_build_config.hpp"

namespace fp8kit {
namespace {

constexpr int kMaxDevices = 64;
constexpr int kMaxPaths = 8;

// Options as fp8kit_gemm reads them (FP8KIT_PATH / FP8KIT_CHECKED through
// fp8kit_gemm_options_init); a workspace is accepted and not used.
fp8kit_status resolve_grouped_options(const fp8kit_gemm_options* in, fp8kit_gemm_options* out) {
  if (in) {
    *out = *in;
  } else {
    fp8kit_gemm_options_init(out);
  }
  if (const char* env = std::getenv("FP8KIT_PATH"); env && *env) {
    bool known = false;
    for (fp8kit_path p : {FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA, FP8KIT_PATH_SM89_MMA, FP8KIT_PATH_SM75_HMMA})
      known = known || std::strcmp(env, fp8kit_path_name(p)) == 0;
    if (!known)
      return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "FP8KIT_PATH = '%s': must be auto, sm90_wgmma, sm89_mma or sm75_hmma",
                  env);
  }
  switch (raw(out->path)) {
    case FP8KIT_PATH_AUTO:
    case FP8KIT_PATH_SM90_WGMMA:
    case FP8KIT_PATH_SM89_MMA:
    case FP8KIT_PATH_SM75_HMMA: return FP8KIT_STATUS_SUCCESS;
    default: return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "options->path = %d: not a fp8kit_path", raw(out->path));
  }
}

// Whether the device can load an image of `path` (asked of CUDA once).
bool has_image(const GroupedPath& path, const DeviceInfo& dev) {
  static std::array<std::array<std::once_flag, kMaxPaths>, kMaxDevices> once;
  static std::array<std::array<bool, kMaxPaths>, kMaxDevices> ok{};
  const int idx = static_cast<int>(path.id) % kMaxPaths;
  std::call_once(once[dev.device][idx], [&] {
    cudaFuncAttributes attr{};
    ok[dev.device][idx] = cudaFuncGetAttributes(&attr, path.probe_kernel()) == cudaSuccess;
    cudaGetLastError();
  });
  return ok[dev.device][idx];
}

const GroupedPath* find_grouped(fp8kit_path id) {
  for (const GroupedPath* p : grouped_paths())
    if (p->id == id) return p;
  return nullptr;
}

// AUTO: the first path preferred here that loads and accepts, then any that
// does (a GPU newer than the build). A forced path must load and accept.
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
  for (int pass = 0; pass < 2; ++pass) {
    for (const GroupedPath* path : grouped_paths()) {
      if ((pass == 1 || path->preferred.contains(dev.cap)) && has_image(*path, dev) && path->accepts(g, dev, &why)) {
        *out = path;
        return FP8KIT_STATUS_SUCCESS;
      }
    }
  }
  return fail(FP8KIT_STATUS_UNSUPPORTED, "no fp8kit grouped kernel can run on device %d (%s, capability %d.%d)%s%s",
              dev.device, dev.name, major, minor, why.empty() ? "" : ": ", why.c_str());
}

struct GroupedPlan {
  GroupedParams g;
  fp8kit_gemm_options opt;
  const DeviceInfo* dev = nullptr;
  const GroupedPath* path = nullptr;
};

fp8kit_status plan(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options, GroupedPlan* out) {
  fp8kit_status s = validate_grouped(desc, &out->g);
  if (s == FP8KIT_STATUS_SUCCESS) s = resolve_grouped_options(options, &out->opt);
  if (s == FP8KIT_STATUS_SUCCESS) s = current_device(&out->dev);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  const GemmParams& p = out->g.dense;
  const struct {
    const char* name;
    const void* ptr;
  } pointers[] = {{desc->offs ? "offs" : "counts", out->g.groups},
                  {"a", p.a},
                  {"b", p.b},
                  {"d", p.d},
                  {"a_scale", p.a_scale},
                  {"b_scale", p.b_scale},
                  {"bias", p.bias}};
  for (const auto& ptr : pointers) {
    s = check_device_pointer(ptr.name, ptr.ptr, out->dev->device);
    if (s != FP8KIT_STATUS_SUCCESS) return s;
  }
  return choose_grouped(out->g, *out->dev, out->opt.path, &out->path);
}

fp8kit_status grouped_gemm(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                           cudaStream_t stream) {
  GroupedPlan pl;
  fp8kit_status s = plan(desc, options, &pl);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  const bool checked = pl.opt.checked != 0;
  if (checked) {
    const cudaError_t before = cudaStreamSynchronize(stream);
    if (before != cudaSuccess)
      return fail(FP8KIT_STATUS_CUDA_ERROR,
                  "an operation queued before fp8kit_grouped_gemm on this stream failed: %s (%s)",
                  cudaGetErrorName(before), cudaGetErrorString(before));
  }
  const char* kernel = pl.path->name;
  cudaError_t err = pl.path->launch(pl.g, stream, &kernel);
  if (err != cudaSuccess)
    return fail(FP8KIT_STATUS_CUDA_ERROR, "launching %s failed: %s (%s)", kernel, cudaGetErrorName(err),
                cudaGetErrorString(err));
  if (checked) {
    err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
      return fail(FP8KIT_STATUS_CUDA_ERROR, "kernel %s faulted: %s (%s)", kernel, cudaGetErrorName(err),
                  cudaGetErrorString(err));
  }
  clear_error();
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace
}  // namespace fp8kit

extern "C" {

fp8kit_status fp8kit_grouped_gemm(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                                  void* stream) {
  try {
    return fp8kit::grouped_gemm(desc, options, static_cast<cudaStream_t>(stream));
  } catch (...) {
    return fp8kit::fail(FP8KIT_STATUS_INTERNAL_ERROR, "unexpected exception in fp8kit_grouped_gemm");
  }
}

fp8kit_status fp8kit_grouped_gemm_select(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                                         fp8kit_path* path) {
  try {
    if (!path) return fp8kit::fail(FP8KIT_STATUS_INVALID_ARGUMENT, "path is NULL");
    *path = FP8KIT_PATH_AUTO;
    fp8kit::GroupedPlan pl;
    const fp8kit_status s = fp8kit::plan(desc, options, &pl);
    if (s != FP8KIT_STATUS_SUCCESS) return s;
    *path = pl.path->id;
    fp8kit::clear_error();
    return FP8KIT_STATUS_SUCCESS;
  } catch (...) {
    return fp8kit::fail(FP8KIT_STATUS_INTERNAL_ERROR, "unexpected exception in fp8kit_grouped_gemm_select");
  }
}

const char* fp8kit_grouped_layout_name(fp8kit_grouped_layout layout) {
  switch (fp8kit::raw(layout)) {
    case FP8KIT_GROUPED_CONTIGUOUS: return "contiguous";
    case FP8KIT_GROUPED_MASKED: return "masked";
  }
  return "unknown_layout";
}

}  // extern "C"
