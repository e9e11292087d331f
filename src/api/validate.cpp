#include "api/ops.hpp"

#include "api/operand_checks.hpp"

namespace fp8kit {
namespace {

// D must not overlap anything the kernel reads (everything else checked).
fp8kit_status check_output_alias(const fp8kit_gemm_desc& d) {
  constexpr int kScaleBytes = sizeof(float);
  const fp8kit_gemm_operands& op = d.op;
  const ByteSpan out = span_of("d", op.d, ((d.m - 1) * op.ldd + d.n) * dtype_bytes(op.d_type));
  const ByteSpan inputs[] = {
      span_of("a", op.a, (d.m - 1) * op.lda + d.k),
      span_of("b", op.b, (d.n - 1) * op.ldb + d.k),
      span_of("a_scale", op.a_scale, a_scale_count(op.a_scale_mode, d.m, d.k) * kScaleBytes),
      span_of("b_scale", op.b_scale, b_scale_count(op.b_scale_mode, d.n, d.k) * kScaleBytes),
      span_of("bias", op.bias, op.bias ? d.n * dtype_bytes(op.bias_type) : 0),
  };
  for (const ByteSpan& in : inputs)
    if (overlaps(out, in))
      return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "d overlaps %s: the output must not alias an input", in.name);
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace

fp8kit_status validate_gemm(const fp8kit_gemm_desc& d, GemmParams* params) {
  FP8KIT_RETURN_IF_FAILED(check_extent("m", d.m));
  FP8KIT_RETURN_IF_FAILED(check_extent("n", d.n));
  FP8KIT_RETURN_IF_FAILED(check_k(d.k));
  FP8KIT_RETURN_IF_FAILED(check_operand_dtypes(d.op));
  FP8KIT_RETURN_IF_FAILED(check_operand_layout(d.op, d.n, d.k));
  FP8KIT_RETURN_IF_FAILED(check_scales_and_bias(d.op));
  FP8KIT_RETURN_IF_FAILED(check_output_alias(d));
  *params = operand_params(d.op, d.n, d.k);
  params->m = static_cast<int>(d.m);
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
