// Argument checks of fp8kit_nvfp4_quantize and fp8kit_nvfp4_scale_size
// (fp8kit/nvfp4.h lists the rules).
#include <cinttypes>

#include "api/ops.hpp"
#include "core/arg_checks.hpp"
#include "core/dtype.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "core/nvfp4_layout.hpp"

namespace fp8kit {
namespace {

constexpr fp8kit_status kInvalid = FP8KIT_STATUS_INVALID_ARGUMENT;
constexpr int kQAlign = 8;  // bytes: the kernel stores 16 elements (8 bytes) at a time

fp8kit_status check_k16(int64_t k) {
  if (k < nvfp4::kQuantKGranule || k > kMaxExtent || k % nvfp4::kQuantKGranule != 0)
    return fail(kInvalid, "k = %" PRId64 ": must be a multiple of %d, at least %d (one NVFP4 scale block)", k,
                nvfp4::kQuantKGranule, nvfp4::kQuantKGranule);
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_types(const fp8kit_nvfp4_quantize_desc& d) {
  const int x = raw(d.x_type), q = raw(d.q_type), layout = raw(d.scale_layout);
  if (x != FP8KIT_DTYPE_BF16 && x != FP8KIT_DTYPE_F16)
    return fail(kInvalid, "x_type = %s: must be bf16 or f16", dtype_text(x).c_str());
  if (q != FP8KIT_DTYPE_NVFP4) return fail(kInvalid, "q_type = %s: must be nvfp4", dtype_text(q).c_str());
  if (!nvfp4::is_scale_layout(layout))
    return fail(kInvalid, "scale_layout = %d: must be SWIZZLED or LINEAR", layout);
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_buffers(const fp8kit_nvfp4_quantize_desc& d) {
  FP8KIT_RETURN_IF_FAILED(check_not_null("x", d.x));
  FP8KIT_RETURN_IF_FAILED(check_not_null("q", d.q));
  FP8KIT_RETURN_IF_FAILED(check_not_null("scale", d.scale));
  const int x_bytes = dtype_bytes(d.x_type);
  if (d.ldx < d.k || (d.ldx * x_bytes) % kBaseAlign)
    return fail(kInvalid, "ldx = %" PRId64 ": must be >= k and ldx * %d bytes a multiple of 16", d.ldx, x_bytes);
  if (d.ldq < d.k / 2 || d.ldq % kQAlign)
    return fail(kInvalid, "ldq = %" PRId64 ": must be >= k / 2 (%" PRId64 " bytes) and a multiple of %d", d.ldq,
                d.k / 2, kQAlign);
  FP8KIT_RETURN_IF_FAILED(check_aligned("x", d.x, kBaseAlign));
  FP8KIT_RETURN_IF_FAILED(check_aligned("q", d.q, kQAlign));
  FP8KIT_RETURN_IF_FAILED(check_aligned("scale", d.scale, nvfp4::scale_alignment(raw(d.scale_layout))));
  if (d.global_scale) FP8KIT_RETURN_IF_FAILED(check_aligned("global_scale", d.global_scale, sizeof(float)));
  if (d.rms_weight) FP8KIT_RETURN_IF_FAILED(check_aligned("rms_weight", d.rms_weight, x_bytes));
  if (d.rms_weight && !(d.eps >= 0.f)) return fail(kInvalid, "eps = %g: must be >= 0", static_cast<double>(d.eps));
  const ByteSpan q = span_of("q", d.q, extent_bytes(d.m, d.ldq, d.k / 2, 1));
  const ByteSpan s = span_of("scale", d.scale, nvfp4::scale_bytes(d.m, d.k, raw(d.scale_layout)));
  const ByteSpan inputs[] = {
      span_of("x", d.x, extent_bytes(d.m, d.ldx, d.k, x_bytes)),
      span_of("global_scale", d.global_scale, d.global_scale ? sizeof(float) : 0),
      span_of("rms_weight", d.rms_weight, d.rms_weight ? d.k * x_bytes : 0),
  };
  for (const ByteSpan* out : {&q, &s})
    for (const ByteSpan& in : inputs)
      if (overlaps(*out, in)) return fail(kInvalid, "%s overlaps %s: an output must not alias an input", out->name, in.name);
  if (overlaps(q, s)) return fail(kInvalid, "q overlaps scale: the two outputs must not alias");
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace

fp8kit_status validate_nvfp4_quantize(const fp8kit_nvfp4_quantize_desc& d, Nvfp4QuantizeParams* out) {
  FP8KIT_RETURN_IF_FAILED(check_extent("m", d.m));
  FP8KIT_RETURN_IF_FAILED(check_k16(d.k));
  FP8KIT_RETURN_IF_FAILED(check_types(d));
  FP8KIT_RETURN_IF_FAILED(check_buffers(d));
  quant::Nvfp4QuantParams& p = out->kernel;
  p.m = static_cast<int>(d.m);
  p.k = static_cast<int>(d.k);
  p.x = d.x;
  p.ldx = d.ldx;
  p.q = static_cast<uint8_t*>(d.q);
  p.ldq = d.ldq;
  p.scale = static_cast<uint8_t*>(d.scale);
  p.global_scale = d.global_scale;
  p.rms_weight = d.rms_weight;
  p.eps = d.eps;
  p.scale_layout = raw(d.scale_layout);
  out->x_type = d.x_type;
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status nvfp4_scale_size(int64_t rows, int64_t k, fp8kit_nvfp4_scale_layout layout, size_t* bytes) {
  if (!bytes) return fail(kInvalid, "bytes is NULL");
  *bytes = 0;
  FP8KIT_RETURN_IF_FAILED(check_extent("rows", rows));
  FP8KIT_RETURN_IF_FAILED(check_k16(k));
  if (!nvfp4::is_scale_layout(raw(layout))) return fail(kInvalid, "layout = %d: must be SWIZZLED or LINEAR", raw(layout));
  *bytes = static_cast<size_t>(nvfp4::scale_bytes(rows, k, raw(layout)));
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
