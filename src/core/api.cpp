// The C entry points: validation, device discovery, path choice, launch.
// No exception leaves this file: every entry point catches everything.
#include <cuda_runtime_api.h>

#include <array>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "arch/config.hpp"
#include "core/device.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "fp8kit/fp8kit.h"
#include "fp8kit_build_config.hpp"
#include "gemm/dispatch.hpp"

namespace fp8kit {
namespace {

constexpr int64_t kMaxDim = INT32_MAX;
constexpr int kKMultiple = 16;
constexpr int kBaseAlign = 16;
constexpr int kMaxDevices = 64;

bool is_fp8(int t) { return t == FP8KIT_DTYPE_E4M3 || t == FP8KIT_DTYPE_E5M2; }
bool is_wide(int t) { return t == FP8KIT_DTYPE_BF16 || t == FP8KIT_DTYPE_F16 || t == FP8KIT_DTYPE_F32; }
int wide_bytes(int t) { return t == FP8KIT_DTYPE_F32 ? 4 : 2; }
bool aligned(const void* p, int bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

struct Span {
  const char* name;
  uintptr_t lo, hi;  // [lo, hi)
};

Span span_of(const char* name, const void* p, int64_t bytes) {
  const auto lo = reinterpret_cast<uintptr_t>(p);
  return Span{name, lo, lo + static_cast<uintptr_t>(bytes)};
}

bool overlaps(const Span& a, const Span& b) { return a.lo < b.hi && b.lo < a.hi; }

fp8kit_status check_scale_mode(const char* name, int mode, bool is_a) {
  const bool known = mode == FP8KIT_SCALE_NONE || mode == FP8KIT_SCALE_TENSOR || mode == FP8KIT_SCALE_BLOCK ||
                     (is_a ? mode == FP8KIT_SCALE_ROW : mode == FP8KIT_SCALE_COL);
  if (!known)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale_mode = %s: must be NONE, TENSOR, %s or BLOCK", name,
                scale_mode_text(mode).c_str(), is_a ? "ROW" : "COL");
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_scale(const char* name, int mode, const float* ptr, bool is_a) {
  const fp8kit_status s = check_scale_mode(name, mode, is_a);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  if (mode == FP8KIT_SCALE_NONE && ptr)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale is not NULL but %s_scale_mode is NONE", name, name);
  if (mode != FP8KIT_SCALE_NONE && !ptr)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale is NULL but %s_scale_mode is %s", name, name,
                scale_mode_text(mode).c_str());
  if (ptr && !aligned(ptr, sizeof(float)))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale = %p: must be 4-byte aligned", name,
                static_cast<const void*>(ptr));
  return FP8KIT_STATUS_SUCCESS;
}

// Every argument check, in the order a reader of fp8kit.h would expect.
fp8kit_status validate(const fp8kit_gemm_desc* d, GemmParams* p) {
  if (!d) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "desc is NULL");
  if (d->m < 1 || d->m > kMaxDim)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "m = %" PRId64 ": must be in [1, 2^31 - 1]", d->m);
  if (d->n < 1 || d->n > kMaxDim)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "n = %" PRId64 ": must be in [1, 2^31 - 1]", d->n);
  if (d->k < kKMultiple || d->k > kMaxDim || d->k % kKMultiple != 0)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "k = %" PRId64 ": must be a multiple of 16, at least 16", d->k);
  const int a_type = raw(d->a_type), b_type = raw(d->b_type), d_type = raw(d->d_type),
            bias_type = raw(d->bias_type), a_mode = raw(d->a_scale_mode), b_mode = raw(d->b_scale_mode);
  if (!is_fp8(a_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "a_type = %s: must be e4m3 or e5m2", dtype_text(a_type).c_str());
  if (!is_fp8(b_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "b_type = %s: must be e4m3 or e5m2", dtype_text(b_type).c_str());
  if (!is_wide(d_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "d_type = %s: must be bf16, f16 or f32", dtype_text(d_type).c_str());
  if (d->bias && !is_wide(bias_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "bias_type = %s: must be bf16, f16 or f32",
                dtype_text(bias_type).c_str());
  if (!d->a) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "a is NULL");
  if (!d->b) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "b is NULL");
  if (!d->d) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "d is NULL");
  if (d->lda < d->k || d->lda % kBaseAlign != 0)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "lda = %" PRId64 ": must be >= k (%" PRId64 ") and a multiple of 16",
                d->lda, d->k);
  if (d->ldb < d->k || d->ldb % kBaseAlign != 0)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "ldb = %" PRId64 ": must be >= k (%" PRId64 ") and a multiple of 16",
                d->ldb, d->k);
  const int d_bytes = wide_bytes(d_type);
  if (d->ldd < d->n || (d->ldd * d_bytes) % kBaseAlign != 0)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT,
                "ldd = %" PRId64 ": must be >= n (%" PRId64 ") and ldd * %d bytes a multiple of 16", d->ldd, d->n,
                d_bytes);
  if (!aligned(d->a, kBaseAlign)) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "a = %p: must be 16-byte aligned", d->a);
  if (!aligned(d->b, kBaseAlign)) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "b = %p: must be 16-byte aligned", d->b);
  if (!aligned(d->d, kBaseAlign)) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "d = %p: must be 16-byte aligned", d->d);
  fp8kit_status s = check_scale("a", a_mode, d->a_scale, true);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  s = check_scale("b", b_mode, d->b_scale, false);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  if ((a_mode == FP8KIT_SCALE_BLOCK) != (b_mode == FP8KIT_SCALE_BLOCK))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT,
                "a_scale_mode = %s, b_scale_mode = %s: BLOCK scaling must be used on both operands or neither",
                scale_mode_text(a_mode).c_str(), scale_mode_text(b_mode).c_str());
  if (d->bias && !aligned(d->bias, wide_bytes(bias_type)))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "bias = %p: must be %d-byte aligned", d->bias,
                wide_bytes(bias_type));

  // D must not overlap anything the kernel reads.
  const Span out = span_of("d", d->d, ((d->m - 1) * d->ldd + d->n) * d_bytes);
  const Span inputs[] = {
      span_of("a", d->a, (d->m - 1) * d->lda + d->k),
      span_of("b", d->b, (d->n - 1) * d->ldb + d->k),
      span_of("a_scale", d->a_scale, a_scale_count(d->a_scale_mode, d->m, d->k) * 4),
      span_of("b_scale", d->b_scale, b_scale_count(d->b_scale_mode, d->n, d->k) * 4),
      span_of("bias", d->bias, d->bias ? d->n * wide_bytes(bias_type) : 0),
  };
  for (const Span& in : inputs)
    if (in.hi > in.lo && overlaps(out, in))
      return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "d overlaps %s: the output must not alias an input", in.name);

  *p = GemmParams{};
  p->m = static_cast<int>(d->m);
  p->n = static_cast<int>(d->n);
  p->k = static_cast<int>(d->k);
  p->k_blocks = static_cast<int>(ceil_div(d->k, kScaleBlock));
  p->a = static_cast<const uint8_t*>(d->a);
  p->lda = d->lda;
  p->b = static_cast<const uint8_t*>(d->b);
  p->ldb = d->ldb;
  p->d = d->d;
  p->ldd = d->ldd;
  p->a_type = d->a_type;
  p->b_type = d->b_type;
  p->d_type = d->d_type;
  p->a_scale_mode = d->a_scale_mode;
  p->b_scale_mode = d->b_scale_mode;
  p->a_scale = d->a_scale;
  p->b_scale = d->b_scale;
  p->bias = d->bias;
  p->bias_type = d->bias_type;
  return FP8KIT_STATUS_SUCCESS;
}

// Whether the running device can load an image of `path` (asked of CUDA once
// per path and device: the answer is what the loader really does).
bool has_image(const GemmPath& path, const DeviceInfo& dev) {
  constexpr int kMaxPaths = 8;
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

std::string images_text(const GemmPath& path) {
  std::string s;
  for (const arch::Image& im : path.images()) {
    if (!s.empty()) s += ' ';
    s += im.kind == arch::ImageKind::Sass ? "sm_" : "compute_";
    s += std::to_string(im.arch);
    if (im.variant == arch::Variant::ArchSpecific) s += 'a';
    if (im.variant == arch::Variant::FamilySpecific) s += 'f';
  }
  return s.empty() ? "none" : s;
}

int cap_major(int cap) { return cap / 10; }
int cap_minor(int cap) { return cap % 10; }

fp8kit_status choose(const GemmParams& p, const DeviceInfo& dev, fp8kit_path want, const GemmPath** out) {
  if (dev.cap < arch::kMinSupported)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "device %d (%s) has compute capability %d.%d; fp8kit needs 7.5 or newer",
                dev.device, dev.name, cap_major(dev.cap), cap_minor(dev.cap));
  std::string why;
  if (want != FP8KIT_PATH_AUTO) {
    const GemmPath* path = find_path(want);
    if (!path)
      return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s is not part of this build (targets: %s)", fp8kit_path_name(want),
                  build::kTargets);
    if (!has_image(*path, dev))
      return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s has no image device %d (%s, capability %d.%d) can load; it carries %s",
                  path->name, dev.device, dev.name, cap_major(dev.cap), cap_minor(dev.cap), images_text(*path).c_str());
    if (!path->accepts(p, dev, &why))
      return fail(FP8KIT_STATUS_UNSUPPORTED, "path %s does not take this problem: %s", path->name, why.c_str());
    *out = path;
    return FP8KIT_STATUS_SUCCESS;
  }
  for (const GemmPath* path : gemm_paths()) {
    if (path->preferred.contains(dev.cap) && has_image(*path, dev) && path->accepts(p, dev, nullptr)) {
      *out = path;
      return FP8KIT_STATUS_SUCCESS;
    }
  }
  // Nothing preferred here: take any path with a loadable image (a GPU newer
  // than this build, running JIT-compiled PTX).
  for (const GemmPath* path : gemm_paths()) {
    if (has_image(*path, dev) && path->accepts(p, dev, &why)) {
      *out = path;
      return FP8KIT_STATUS_SUCCESS;
    }
  }
  return fail(FP8KIT_STATUS_UNSUPPORTED,
              "no fp8kit kernel can run on device %d (%s, capability %d.%d)%s%s; this build carries %s", dev.device,
              dev.name, cap_major(dev.cap), cap_minor(dev.cap), why.empty() ? "" : ": ", why.c_str(), build::kTargets);
}

// FP8KIT_PATH, if set: false when it names no path.
bool path_from_env(fp8kit_path* out) {
  const char* v = std::getenv("FP8KIT_PATH");
  if (!v || !*v) return true;
  for (fp8kit_path p : {FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA, FP8KIT_PATH_SM89_MMA, FP8KIT_PATH_SM75_HMMA}) {
    if (std::strcmp(v, fp8kit_path_name(p)) == 0) {
      *out = p;
      return true;
    }
  }
  return false;
}

fp8kit_status resolve_options(const fp8kit_gemm_options* in, fp8kit_gemm_options* out) {
  if (in) {
    *out = *in;
  } else {
    fp8kit_gemm_options_init(out);
  }
  fp8kit_path from_env = FP8KIT_PATH_AUTO;
  if (!path_from_env(&from_env))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "FP8KIT_PATH = '%s': must be auto, sm90_wgmma, sm89_mma or sm75_hmma",
                std::getenv("FP8KIT_PATH"));
  switch (raw(out->path)) {
    case FP8KIT_PATH_AUTO:
    case FP8KIT_PATH_SM90_WGMMA:
    case FP8KIT_PATH_SM89_MMA:
    case FP8KIT_PATH_SM75_HMMA: break;
    default:
      return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "options->path = %d: not a fp8kit_path", raw(out->path));
  }
  if (out->workspace_size && !out->workspace)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "options->workspace is NULL but workspace_size is %zu",
                out->workspace_size);
  return FP8KIT_STATUS_SUCCESS;
}

// Everything before a launch: validation, options, device, pointers, path.
struct Plan {
  GemmParams p;
  fp8kit_gemm_options opt;
  const DeviceInfo* dev = nullptr;
  const GemmPath* path = nullptr;
};

fp8kit_status plan(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, Plan* out) {
  fp8kit_status s = validate(desc, &out->p);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  s = resolve_options(options, &out->opt);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  s = current_device(&out->dev);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  const GemmParams& p = out->p;
  const struct {
    const char* name;
    const void* ptr;
  } pointers[] = {{"a", p.a}, {"b", p.b}, {"d", p.d}, {"a_scale", p.a_scale}, {"b_scale", p.b_scale},
                  {"bias", p.bias}, {"options->workspace", out->opt.workspace}};
  for (const auto& ptr : pointers) {
    s = check_device_pointer(ptr.name, ptr.ptr, out->dev->device);
    if (s != FP8KIT_STATUS_SUCCESS) return s;
  }
  return choose(p, *out->dev, out->opt.path, &out->path);
}

fp8kit_status gemm(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, cudaStream_t stream) {
  Plan pl;
  fp8kit_status s = plan(desc, options, &pl);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  const GemmParams& p = pl.p;
  const fp8kit_gemm_options& opt = pl.opt;
  const GemmPath* path = pl.path;
  const DeviceInfo* dev = pl.dev;

  LaunchEnv env;
  env.checked = opt.checked != 0;
  env.workspace = opt.workspace;
  env.workspace_size = opt.workspace_size;
  if (env.checked) {
    // An earlier fault on this stream is not fp8kit's: say so before launching.
    const cudaError_t before = cudaStreamSynchronize(stream);
    if (before != cudaSuccess)
      return fail(FP8KIT_STATUS_CUDA_ERROR, "an operation queued before fp8kit_gemm on this stream failed: %s (%s)",
                  cudaGetErrorName(before), cudaGetErrorString(before));
  }
  const char* kernel = path->name;
  cudaError_t err = path->launch(p, *dev, env, stream, &kernel);
  if (err != cudaSuccess)
    return fail(FP8KIT_STATUS_CUDA_ERROR, "launching %s failed: %s (%s)", kernel, cudaGetErrorName(err),
                cudaGetErrorString(err));
  if (env.checked) {
    err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
      return fail(FP8KIT_STATUS_CUDA_ERROR, "kernel %s faulted: %s (%s)", kernel, cudaGetErrorName(err),
                  cudaGetErrorString(err));
  }
  clear_error();
  return FP8KIT_STATUS_SUCCESS;
}

// Capability-only choice, from the images this build carries.
fp8kit_status choose_offline(int major, int minor, fp8kit_scale_mode a_mode, fp8kit_scale_mode b_mode,
                             fp8kit_path_choice* choice) {
  if (!choice) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "choice is NULL");
  if (major < 0 || minor < 0 || minor > 9)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "capability %d.%d: not a compute capability", major, minor);
  fp8kit_status s = check_scale_mode("a", raw(a_mode), true);
  if (s == FP8KIT_STATUS_SUCCESS) s = check_scale_mode("b", raw(b_mode), false);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  if ((raw(a_mode) == FP8KIT_SCALE_BLOCK) != (raw(b_mode) == FP8KIT_SCALE_BLOCK))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "BLOCK scaling must be used on both operands or neither");
  const int cap = arch::capability(major, minor);
  const arch::Family* fam = arch::family_of(cap);
  *choice = fp8kit_path_choice{FP8KIT_PATH_AUTO, FP8KIT_TC_NONE, fam ? fam->name : "unknown", ""};
  if (cap < arch::kMinSupported)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "compute capability %d.%d: fp8kit needs 7.5 or newer", major, minor);
  static thread_local std::string image;
  for (int pass = 0; pass < 2; ++pass) {
    for (const GemmPath* path : gemm_paths()) {
      if (pass == 0 && !path->preferred.contains(cap)) continue;
      const auto& images = path->images();
      const int idx = arch::select_image(cap, images);
      if (idx < 0) continue;
      const arch::Image& im = images[idx];
      image = (im.kind == arch::ImageKind::Sass ? "sass sm_" : "ptx compute_") + std::to_string(im.arch);
      if (im.variant == arch::Variant::ArchSpecific) image += 'a';
      if (im.kind == arch::ImageKind::Ptx) image += " (JIT)";
      choice->path = path->id;
      choice->tensor_cores = path->tensor_cores(cap);
      choice->image = image.c_str();
      return FP8KIT_STATUS_SUCCESS;
    }
  }
  return fail(FP8KIT_STATUS_UNSUPPORTED, "compute capability %d.%d: no image in this build (%s)", major, minor,
              build::kTargets);
}

}  // namespace

// A pointer the kernel will dereference must be device-visible memory of the
// current device (device, managed, or mapped host memory); a plain host
// pointer would fault inside the kernel and poison the context.
fp8kit_status check_device_pointer(const char* name, const void* ptr, int device) {
  if (!ptr) return FP8KIT_STATUS_SUCCESS;
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s = %p: not a pointer CUDA knows (%s)", name, ptr,
                cudaGetErrorString(err));
  }
  switch (attr.type) {
    case cudaMemoryTypeDevice:
      if (attr.device != device)
        return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s = %p: memory of device %d, but the current device is %d", name,
                    ptr, attr.device, device);
      return FP8KIT_STATUS_SUCCESS;
    case cudaMemoryTypeManaged: return FP8KIT_STATUS_SUCCESS;
    case cudaMemoryTypeHost:
      if (attr.devicePointer) return FP8KIT_STATUS_SUCCESS;
      [[fallthrough]];
    default:
      return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s = %p: host memory the GPU cannot read; pass device memory",
                  name, ptr);
  }
}

// ---- Devices ---------------------------------------------------------------

namespace {
struct DeviceSlot {
  std::once_flag once;
  cudaError_t err = cudaSuccess;
  DeviceInfo info;
};
std::array<DeviceSlot, kMaxDevices> g_devices;
}  // namespace

fp8kit_status current_device(const DeviceInfo** out) {
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fail(FP8KIT_STATUS_UNSUPPORTED, "no usable CUDA device: %s", cudaGetErrorString(err));
  }
  if (dev < 0 || dev >= kMaxDevices)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "device %d: fp8kit handles device ordinals below %d", dev, kMaxDevices);
  DeviceSlot& slot = g_devices[dev];
  std::call_once(slot.once, [&] {
    cudaDeviceProp prop{};
    slot.err = cudaGetDeviceProperties(&prop, dev);
    if (slot.err != cudaSuccess) return;
    DeviceInfo& d = slot.info;
    d.device = dev;
    d.cap = arch::capability(prop.major, prop.minor);
    d.sm_count = prop.multiProcessorCount;
    d.smem_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
    d.smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
    d.l2_bytes = prop.l2CacheSize;
    std::snprintf(d.name, sizeof d.name, "%s", prop.name);
  });
  if (slot.err != cudaSuccess)
    return fail(FP8KIT_STATUS_CUDA_ERROR, "cudaGetDeviceProperties(%d): %s", dev, cudaGetErrorString(slot.err));
  *out = &slot.info;
  return FP8KIT_STATUS_SUCCESS;
}

std::string dtype_text(int v) {
  switch (v) {
    case FP8KIT_DTYPE_E4M3:
    case FP8KIT_DTYPE_E5M2:
    case FP8KIT_DTYPE_BF16:
    case FP8KIT_DTYPE_F16:
    case FP8KIT_DTYPE_F32: return fp8kit_dtype_name(static_cast<fp8kit_dtype>(v));
    default: return std::to_string(v);
  }
}

std::string scale_mode_text(int v) {
  switch (v) {
    case FP8KIT_SCALE_NONE:
    case FP8KIT_SCALE_TENSOR:
    case FP8KIT_SCALE_ROW:
    case FP8KIT_SCALE_COL:
    case FP8KIT_SCALE_BLOCK: return fp8kit_scale_mode_name(static_cast<fp8kit_scale_mode>(v));
    default: return std::to_string(v);
  }
}

}  // namespace fp8kit

extern "C" {

void fp8kit_gemm_options_init(fp8kit_gemm_options* options) {
  if (!options) return;
  *options = fp8kit_gemm_options{};
  // An unparsable FP8KIT_PATH leaves AUTO here; fp8kit_gemm then refuses it.
  fp8kit::path_from_env(&options->path);
  const char* checked = std::getenv("FP8KIT_CHECKED");
  options->checked = checked && std::strcmp(checked, "1") == 0;
}

fp8kit_status fp8kit_gemm(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, void* stream) {
  try {
    return fp8kit::gemm(desc, options, static_cast<cudaStream_t>(stream));
  } catch (...) {
    return fp8kit::fail(FP8KIT_STATUS_INTERNAL_ERROR, "unexpected exception in fp8kit_gemm");
  }
}

fp8kit_status fp8kit_gemm_workspace_size(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options,
                                         size_t* bytes) {
  try {
    if (!bytes) return fp8kit::fail(FP8KIT_STATUS_INVALID_ARGUMENT, "bytes is NULL");
    *bytes = 0;
    fp8kit::Plan pl;
    const fp8kit_status s = fp8kit::plan(desc, options, &pl);
    if (s != FP8KIT_STATUS_SUCCESS) return s;
    *bytes = pl.path->workspace_size ? pl.path->workspace_size(pl.p, *pl.dev) : 0;
    fp8kit::clear_error();
    return FP8KIT_STATUS_SUCCESS;
  } catch (...) {
    return fp8kit::fail(FP8KIT_STATUS_INTERNAL_ERROR, "unexpected exception in fp8kit_gemm_workspace_size");
  }
}

fp8kit_status fp8kit_gemm_select(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options,
                                 fp8kit_path* path) {
  try {
    if (!path) return fp8kit::fail(FP8KIT_STATUS_INVALID_ARGUMENT, "path is NULL");
    *path = FP8KIT_PATH_AUTO;
    fp8kit::Plan pl;
    const fp8kit_status s = fp8kit::plan(desc, options, &pl);
    if (s != FP8KIT_STATUS_SUCCESS) return s;
    *path = pl.path->id;
    fp8kit::clear_error();
    return FP8KIT_STATUS_SUCCESS;
  } catch (...) {
    return fp8kit::fail(FP8KIT_STATUS_INTERNAL_ERROR, "unexpected exception in fp8kit_gemm_select");
  }
}

fp8kit_status fp8kit_choose_path(int major, int minor, fp8kit_scale_mode a_mode, fp8kit_scale_mode b_mode,
                                 fp8kit_path_choice* choice) {
  try {
    const fp8kit_status s = fp8kit::choose_offline(major, minor, a_mode, b_mode, choice);
    if (s == FP8KIT_STATUS_SUCCESS) fp8kit::clear_error();
    return s;
  } catch (...) {
    return fp8kit::fail(FP8KIT_STATUS_INTERNAL_ERROR, "unexpected exception in fp8kit_choose_path");
  }
}

const char* fp8kit_build_targets(void) { return fp8kit::build::kTargets; }

const char* fp8kit_status_name(fp8kit_status s) {
  switch (fp8kit::raw(s)) {
    case FP8KIT_STATUS_SUCCESS: return "success";
    case FP8KIT_STATUS_INVALID_ARGUMENT: return "invalid_argument";
    case FP8KIT_STATUS_UNSUPPORTED: return "unsupported";
    case FP8KIT_STATUS_CUDA_ERROR: return "cuda_error";
    case FP8KIT_STATUS_INTERNAL_ERROR: return "internal_error";
  }
  return "unknown_status";
}

const char* fp8kit_dtype_name(fp8kit_dtype t) {
  switch (fp8kit::raw(t)) {
    case FP8KIT_DTYPE_E4M3: return "e4m3";
    case FP8KIT_DTYPE_E5M2: return "e5m2";
    case FP8KIT_DTYPE_BF16: return "bf16";
    case FP8KIT_DTYPE_F16: return "f16";
    case FP8KIT_DTYPE_F32: return "f32";
  }
  return "unknown_dtype";
}

const char* fp8kit_scale_mode_name(fp8kit_scale_mode m) {
  switch (fp8kit::raw(m)) {
    case FP8KIT_SCALE_NONE: return "none";
    case FP8KIT_SCALE_TENSOR: return "tensor";
    case FP8KIT_SCALE_ROW: return "row";
    case FP8KIT_SCALE_COL: return "col";
    case FP8KIT_SCALE_BLOCK: return "block";
  }
  return "unknown_scale_mode";
}

const char* fp8kit_path_name(fp8kit_path p) {
  switch (fp8kit::raw(p)) {
    case FP8KIT_PATH_AUTO: return "auto";
    case FP8KIT_PATH_SM90_WGMMA: return "sm90_wgmma";
    case FP8KIT_PATH_SM89_MMA: return "sm89_mma";
    case FP8KIT_PATH_SM75_HMMA: return "sm75_hmma";
  }
  return "unknown_path";
}

}  // extern "C"
