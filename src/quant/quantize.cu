// Entry point of fp8kit_quantize: validation, kernel choice, launch. Valid on
// every target from SM75 (plain CUDA cores; FP8 conversion in software below
// SM89), built for every shipped target.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
#error "quantize.cu is valid for SM75 and up only; its CMake range must exclude this target"
#endif

#include <cinttypes>

#include "core/arg_checks.hpp"
#include "core/device.hpp"
#include "core/dtype.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "quant/quantize.cuh"

namespace fp8kit {
namespace {

using quant::QuantParams;
using KernelFn = void (*)(QuantParams);

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

fp8kit_status check_types(const fp8kit_quantize_desc& d) {
  const int x_type = raw(d.x_type), q_type = raw(d.q_type), mode = raw(d.mode);
  if (!is_wide(x_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "x_type = %s: must be bf16, f16 or f32", dtype_text(x_type).c_str());
  if (!is_fp8(q_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "q_type = %s: must be e4m3 or e5m2", dtype_text(q_type).c_str());
  if (mode != FP8KIT_SCALE_TENSOR && mode != FP8KIT_SCALE_ROW && mode != FP8KIT_SCALE_BLOCK)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "mode = %s: must be TENSOR, ROW or BLOCK", scale_mode_text(mode).c_str());
  return FP8KIT_STATUS_SUCCESS;
}

// Pointers, pitches, alignment, eps and aliasing (types checked).
fp8kit_status check_buffers(const fp8kit_quantize_desc& d) {
  FP8KIT_RETURN_IF_FAILED(check_not_null("x", d.x));
  FP8KIT_RETURN_IF_FAILED(check_not_null("q", d.q));
  FP8KIT_RETURN_IF_FAILED(check_not_null("scale", d.scale));
  const int x_bytes = dtype_bytes(d.x_type);
  if (d.ldx < d.k || (d.ldx * x_bytes) % kBaseAlign)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "ldx = %" PRId64 ": must be >= k and ldx * %d bytes a multiple of 16",
                d.ldx, x_bytes);
  if (d.ldq < d.k || d.ldq % kBaseAlign)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "ldq = %" PRId64 ": must be >= k and a multiple of 16", d.ldq);
  FP8KIT_RETURN_IF_FAILED(check_aligned("x", d.x, kBaseAlign));
  FP8KIT_RETURN_IF_FAILED(check_aligned("q", d.q, kBaseAlign));
  FP8KIT_RETURN_IF_FAILED(check_aligned("scale", d.scale, sizeof(float)));
  if (d.rms_weight) FP8KIT_RETURN_IF_FAILED(check_aligned("rms_weight", d.rms_weight, x_bytes));
  if (d.rms_weight && !(d.eps >= 0.f))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "eps = %g: must be >= 0", static_cast<double>(d.eps));
  const ByteSpan q = span_of("q", d.q, (d.m - 1) * d.ldq + d.k);
  const ByteSpan x = span_of("x", d.x, ((d.m - 1) * d.ldx + d.k) * x_bytes);
  if (overlaps(q, x)) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "q overlaps x");
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status validate(const fp8kit_quantize_desc* d) {
  if (!d) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "desc is NULL");
  FP8KIT_RETURN_IF_FAILED(check_extent("m", d->m));
  FP8KIT_RETURN_IF_FAILED(check_k(d->k));
  FP8KIT_RETURN_IF_FAILED(check_types(*d));
  return check_buffers(*d);
}

fp8kit_status quantize(const fp8kit_quantize_desc* d, cudaStream_t stream) {
  FP8KIT_RETURN_IF_FAILED(validate(d));
  const DeviceInfo* dev = nullptr;
  FP8KIT_RETURN_IF_FAILED(current_device(&dev));
  FP8KIT_RETURN_IF_FAILED(check_device_pointers(
      {{"x", d->x}, {"q", d->q}, {"scale", d->scale}, {"rms_weight", d->rms_weight}}, dev->device));
  QuantParams p{};
  p.m = static_cast<int>(d->m);
  p.k = static_cast<int>(d->k);
  p.x = d->x;
  p.ldx = d->ldx;
  p.q = static_cast<uint8_t*>(d->q);
  p.ldq = d->ldq;
  p.scale = d->scale;
  p.rms_weight = d->rms_weight;
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
  return fp8kit::guarded("fp8kit_quantize",
                         [&] { return fp8kit::quantize(desc, static_cast<cudaStream_t>(stream)); });
}
