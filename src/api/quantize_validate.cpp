// Argument checks of fp8kit_quantize (fp8kit.h lists the rules).
#include <cinttypes>

#include "api/ops.hpp"
#include "core/arg_checks.hpp"
#include "core/dtype.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"

namespace fp8kit {
namespace {

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

}  // namespace

fp8kit_status validate_quantize(const fp8kit_quantize_desc& d, QuantizeParams* out) {
  FP8KIT_RETURN_IF_FAILED(check_extent("m", d.m));
  FP8KIT_RETURN_IF_FAILED(check_k(d.k));
  FP8KIT_RETURN_IF_FAILED(check_types(d));
  FP8KIT_RETURN_IF_FAILED(check_buffers(d));
  quant::QuantParams& p = out->kernel;
  p.m = static_cast<int>(d.m);
  p.k = static_cast<int>(d.k);
  p.x = d.x;
  p.ldx = d.ldx;
  p.q = static_cast<uint8_t*>(d.q);
  p.ldq = d.ldq;
  p.scale = d.scale;
  p.rms_weight = d.rms_weight;
  p.eps = d.eps;
  p.fp8_max = d.q_type == FP8KIT_DTYPE_E5M2 ? kE5m2Max : kE4m3Max;
  out->x_type = d.x_type;
  out->q_type = d.q_type;
  out->mode = d.mode;
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
