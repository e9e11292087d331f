#include "api/validate.hpp"

#include <cinttypes>

#include "api/operand_checks.hpp"

namespace fp8kit {
namespace {

fp8kit_status check_scales_and_bias(const fp8kit_gemm_desc& d) {
  const int a_mode = raw(d.a_scale_mode), b_mode = raw(d.b_scale_mode);
  FP8KIT_RETURN_IF_FAILED(check_scale_mode("a", a_mode));
  FP8KIT_RETURN_IF_FAILED(check_scale_pointer("a", a_mode, d.a_scale));
  FP8KIT_RETURN_IF_FAILED(check_scale_mode("b", b_mode));
  FP8KIT_RETURN_IF_FAILED(check_scale_pointer("b", b_mode, d.b_scale));
  FP8KIT_RETURN_IF_FAILED(check_scale_modes(a_mode, b_mode));
  if (d.bias) return check_aligned("bias", d.bias, dtype_bytes(d.bias_type));
  return FP8KIT_STATUS_SUCCESS;
}

// D must not overlap anything the kernel reads (everything else checked).
fp8kit_status check_output_alias(const fp8kit_gemm_desc& d) {
  constexpr int kScaleBytes = sizeof(float);
  const ByteSpan out = span_of("d", d.d, ((d.m - 1) * d.ldd + d.n) * dtype_bytes(d.d_type));
  const ByteSpan inputs[] = {
      span_of("a", d.a, (d.m - 1) * d.lda + d.k),
      span_of("b", d.b, (d.n - 1) * d.ldb + d.k),
      span_of("a_scale", d.a_scale, a_scale_count(d.a_scale_mode, d.m, d.k) * kScaleBytes),
      span_of("b_scale", d.b_scale, b_scale_count(d.b_scale_mode, d.n, d.k) * kScaleBytes),
      span_of("bias", d.bias, d.bias ? d.n * dtype_bytes(d.bias_type) : 0),
  };
  for (const ByteSpan& in : inputs)
    if (overlaps(out, in))
      return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "d overlaps %s: the output must not alias an input", in.name);
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace

fp8kit_status validate_gemm(const fp8kit_gemm_desc* desc, GemmParams* params) {
  if (!desc) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "desc is NULL");
  const fp8kit_gemm_desc& d = *desc;
  FP8KIT_RETURN_IF_FAILED(check_extent("m", d.m));
  FP8KIT_RETURN_IF_FAILED(check_extent("n", d.n));
  FP8KIT_RETURN_IF_FAILED(check_k(d.k));
  FP8KIT_RETURN_IF_FAILED(check_operand_dtypes(d));
  FP8KIT_RETURN_IF_FAILED(check_operand_layout(d));
  FP8KIT_RETURN_IF_FAILED(check_scales_and_bias(d));
  FP8KIT_RETURN_IF_FAILED(check_output_alias(d));
  *params = operand_params(d);
  params->m = static_cast<int>(d.m);
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
