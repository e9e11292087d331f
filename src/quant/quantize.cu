// Entry point of fp8kit_quantize: validation, kernel choice, launch. Valid on
// every target from SM75 (plain CUDA cores; FP8 conversion in software below
// SM89), built for every shipped target.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
#error "quantize.cu is valid for SM75 and up only; its CMake range must exclude this target"
#endif

#include <cinttypes>

#include "core/device.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "quant/quantize.cuh"

namespace fp8kit {
namespace {

using quant::QuantParams;
using KernelFn = void (*)(QuantParams);

constexpr int kKMultiple = 16;
constexpr int kAlign = 16;
constexpr float kE4m3Max = 448.f, kE5m2Max = 57344.f;

template <fp8kit_dtype TX, fp8kit_dtype TQ>
KernelFn pick_mode(fp8kit_scale_mode m) {
  switch (m) {
    case FP8KIT_SCALE_ROW: return &quant::quantize_kernel<TX, TQ, FP8KIT_SCALE_ROW>;
    case FP8KIT_SCALE_BLOCK: return &quant::quantize_kernel<TX, TQ, FP8KIT_SCALE_BLOCK>;
    default: return &quant::quantize_kernel<TX, TQ, FP8KIT_SCALE_TENSOR>;
  }
}

template <fp8kit_dtype TX>
KernelFn pick_q(fp8kit_dtype q, fp8kit_scale_mode m) {
  return q == FP8KIT_DTYPE_E5M2 ? pick_mode<TX, FP8KIT_DTYPE_E5M2>(m) : pick_mode<TX, FP8KIT_DTYPE_E4M3>(m);
}

KernelFn pick(fp8kit_dtype x, fp8kit_dtype q, fp8kit_scale_mode m) {
  switch (x) {
    case FP8KIT_DTYPE_BF16: return pick_q<FP8KIT_DTYPE_BF16>(q, m);
    case FP8KIT_DTYPE_F16: return pick_q<FP8KIT_DTYPE_F16>(q, m);
    default: return pick_q<FP8KIT_DTYPE_F32>(q, m);
  }
}

bool aligned(const void* p, int bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

fp8kit_status validate(const fp8kit_quantize_desc* d) {
  if (!d) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "desc is NULL");
  if (d->m < 1 || d->m > INT32_MAX)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "m = %" PRId64 ": must be in [1, 2^31 - 1]", d->m);
  if (d->k < kKMultiple || d->k > INT32_MAX || d->k % kKMultiple)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "k = %" PRId64 ": must be a multiple of 16, at least 16", d->k);
  const int x_type = raw(d->x_type), q_type = raw(d->q_type), mode = raw(d->mode);
  if (x_type != FP8KIT_DTYPE_BF16 && x_type != FP8KIT_DTYPE_F16 && x_type != FP8KIT_DTYPE_F32)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "x_type = %s: must be bf16, f16 or f32", dtype_text(x_type).c_str());
  if (q_type != FP8KIT_DTYPE_E4M3 && q_type != FP8KIT_DTYPE_E5M2)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "q_type = %s: must be e4m3 or e5m2", dtype_text(q_type).c_str());
  if (mode != FP8KIT_SCALE_TENSOR && mode != FP8KIT_SCALE_ROW && mode != FP8KIT_SCALE_BLOCK)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "mode = %s: must be TENSOR, ROW or BLOCK", scale_mode_text(mode).c_str());
  if (!d->x) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "x is NULL");
  if (!d->q) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "q is NULL");
  if (!d->scale) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "scale is NULL");
  const int xb = x_type == FP8KIT_DTYPE_F32 ? 4 : 2;
  if (d->ldx < d->k || (d->ldx * xb) % kAlign)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "ldx = %" PRId64 ": must be >= k and ldx * %d bytes a multiple of 16",
                d->ldx, xb);
  if (d->ldq < d->k || d->ldq % kAlign)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "ldq = %" PRId64 ": must be >= k and a multiple of 16", d->ldq);
  if (!aligned(d->x, kAlign)) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "x = %p: must be 16-byte aligned", d->x);
  if (!aligned(d->q, kAlign)) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "q = %p: must be 16-byte aligned", d->q);
  if (!aligned(d->scale, sizeof(float)))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "scale = %p: must be 4-byte aligned", static_cast<void*>(d->scale));
  if (d->rms_weight && !aligned(d->rms_weight, xb))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "rms_weight = %p: must be %d-byte aligned", d->rms_weight, xb);
  if (d->rms_weight && !(d->eps >= 0.f))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "eps = %g: must be >= 0", static_cast<double>(d->eps));
  const auto lo = reinterpret_cast<uintptr_t>(d->q);
  const uintptr_t hi = lo + static_cast<uintptr_t>((d->m - 1) * d->ldq + d->k);
  const auto xlo = reinterpret_cast<uintptr_t>(d->x);
  const uintptr_t xhi = xlo + static_cast<uintptr_t>(((d->m - 1) * d->ldx + d->k) * xb);
  if (lo < xhi && xlo < hi) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "q overlaps x");
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status quantize(const fp8kit_quantize_desc* d, cudaStream_t stream) {
  fp8kit_status s = validate(d);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  const DeviceInfo* dev = nullptr;
  s = current_device(&dev);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  const struct {
    const char* name;
    const void* ptr;
  } pointers[] = {{"x", d->x}, {"q", d->q}, {"scale", d->scale}, {"rms_weight", d->rms_weight}};
  for (const auto& p : pointers) {
    s = check_device_pointer(p.name, p.ptr, dev->device);
    if (s != FP8KIT_STATUS_SUCCESS) return s;
  }
  QuantParams p{};
  p.m = static_cast<int>(d->m);
  p.k = static_cast<int>(d->k);
  p.x = d->x;
  p.ldx = d->ldx;
  p.q = static_cast<uint8_t*>(d->q);
  p.ldq = d->ldq;
  p.scale = d->scale;
  p.w = d->rms_weight;
  p.eps = d->eps;
  p.fp8_max = d->q_type == FP8KIT_DTYPE_E5M2 ? kE5m2Max : kE4m3Max;
  const KernelFn fn = pick(d->x_type, d->q_type, d->mode);
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, fn) != cudaSuccess) {
    cudaGetLastError();
    return fail(FP8KIT_STATUS_UNSUPPORTED, "quantize has no image device %d (%s) can load", dev->device, dev->name);
  }
  fn<<<p.m, quant::kThreads, 0, stream>>>(p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return fail(FP8KIT_STATUS_CUDA_ERROR, "launching quantize_kernel<%s,%s,%s> failed: %s",
                fp8kit_dtype_name(d->x_type), fp8kit_dtype_name(d->q_type), fp8kit_scale_mode_name(d->mode),
                cudaGetErrorString(err));
  clear_error();
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace
}  // namespace fp8kit

extern "C" fp8kit_status fp8kit_quantize(const fp8kit_quantize_desc* desc, void* stream) {
  try {
    return fp8kit::quantize(desc, static_cast<cudaStream_t>(stream));
  } catch (...) {
    return fp8kit::fail(FP8KIT_STATUS_INTERNAL_ERROR, "unexpected exception in fp8kit_quantize");
  }
}
