#include "api/validate.hpp"

#include <cinttypes>

#include "core/arg_checks.hpp"
#include "core/dtype.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"

namespace fp8kit {
namespace {

enum class Operand { A, B };

fp8kit_status check_scale_mode(Operand op, int mode) {
  const bool is_a = op == Operand::A;
  const bool known = mode == FP8KIT_SCALE_NONE || mode == FP8KIT_SCALE_TENSOR || mode == FP8KIT_SCALE_BLOCK ||
                     (is_a ? mode == FP8KIT_SCALE_ROW : mode == FP8KIT_SCALE_COL);
  if (!known)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale_mode = %s: must be NONE, TENSOR, %s or BLOCK",
                is_a ? "a" : "b", scale_mode_text(mode).c_str(), is_a ? "ROW" : "COL");
  return FP8KIT_STATUS_SUCCESS;
}

// A scale pointer agrees with its (checked) mode.
fp8kit_status check_scale_pointer(Operand op, int mode, const float* ptr) {
  const char* name = op == Operand::A ? "a" : "b";
  if (mode == FP8KIT_SCALE_NONE && ptr)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale is not NULL but %s_scale_mode is NONE", name, name);
  if (mode != FP8KIT_SCALE_NONE && !ptr)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale is NULL but %s_scale_mode is %s", name, name,
                scale_mode_text(mode).c_str());
  if (ptr) return check_aligned(op == Operand::A ? "a_scale" : "b_scale", ptr, sizeof(float));
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_dtypes(const fp8kit_gemm_desc& d) {
  const int a_type = raw(d.a_type), b_type = raw(d.b_type), d_type = raw(d.d_type), bias_type = raw(d.bias_type);
  if (!is_fp8(a_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "a_type = %s: must be e4m3 or e5m2", dtype_text(a_type).c_str());
  if (!is_fp8(b_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "b_type = %s: must be e4m3 or e5m2", dtype_text(b_type).c_str());
  if (!is_wide(d_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "d_type = %s: must be bf16, f16 or f32", dtype_text(d_type).c_str());
  if (d.bias && !is_wide(bias_type))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "bias_type = %s: must be bf16, f16 or f32",
                dtype_text(bias_type).c_str());
  return FP8KIT_STATUS_SUCCESS;
}

// Leading dimensions and base alignment (dtypes checked).
fp8kit_status check_layout(const fp8kit_gemm_desc& d) {
  if (d.lda < d.k || d.lda % kBaseAlign != 0)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "lda = %" PRId64 ": must be >= k (%" PRId64 ") and a multiple of 16",
                d.lda, d.k);
  if (d.ldb < d.k || d.ldb % kBaseAlign != 0)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "ldb = %" PRId64 ": must be >= k (%" PRId64 ") and a multiple of 16",
                d.ldb, d.k);
  const int d_bytes = dtype_bytes(d.d_type);
  if (d.ldd < d.n || (d.ldd * d_bytes) % kBaseAlign != 0)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT,
                "ldd = %" PRId64 ": must be >= n (%" PRId64 ") and ldd * %d bytes a multiple of 16", d.ldd, d.n,
                d_bytes);
  FP8KIT_RETURN_IF_FAILED(check_aligned("a", d.a, kBaseAlign));
  FP8KIT_RETURN_IF_FAILED(check_aligned("b", d.b, kBaseAlign));
  return check_aligned("d", d.d, kBaseAlign);
}

fp8kit_status check_scales_and_bias(const fp8kit_gemm_desc& d) {
  const int a_mode = raw(d.a_scale_mode), b_mode = raw(d.b_scale_mode);
  FP8KIT_RETURN_IF_FAILED(check_scale_mode(Operand::A, a_mode));
  FP8KIT_RETURN_IF_FAILED(check_scale_pointer(Operand::A, a_mode, d.a_scale));
  FP8KIT_RETURN_IF_FAILED(check_scale_mode(Operand::B, b_mode));
  FP8KIT_RETURN_IF_FAILED(check_scale_pointer(Operand::B, b_mode, d.b_scale));
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

GemmParams params_of(const fp8kit_gemm_desc& d) {
  GemmParams p{};
  p.m = static_cast<int>(d.m);
  p.n = static_cast<int>(d.n);
  p.k = static_cast<int>(d.k);
  p.k_blocks = static_cast<int>(ceil_div(d.k, kScaleBlock));
  p.a = static_cast<const uint8_t*>(d.a);
  p.lda = d.lda;
  p.b = static_cast<const uint8_t*>(d.b);
  p.ldb = d.ldb;
  p.d = d.d;
  p.ldd = d.ldd;
  p.a_type = d.a_type;
  p.b_type = d.b_type;
  p.d_type = d.d_type;
  p.a_scale_mode = d.a_scale_mode;
  p.b_scale_mode = d.b_scale_mode;
  p.a_scale = d.a_scale;
  p.b_scale = d.b_scale;
  p.bias = d.bias;
  p.bias_type = d.bias_type;
  return p;
}

}  // namespace

fp8kit_status check_scale_modes(int a_mode, int b_mode) {
  FP8KIT_RETURN_IF_FAILED(check_scale_mode(Operand::A, a_mode));
  FP8KIT_RETURN_IF_FAILED(check_scale_mode(Operand::B, b_mode));
  if ((a_mode == FP8KIT_SCALE_BLOCK) != (b_mode == FP8KIT_SCALE_BLOCK))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT,
                "a_scale_mode = %s, b_scale_mode = %s: BLOCK scaling must be used on both operands or neither",
                scale_mode_text(a_mode).c_str(), scale_mode_text(b_mode).c_str());
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status validate_gemm(const fp8kit_gemm_desc* desc, GemmParams* params) {
  if (!desc) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "desc is NULL");
  const fp8kit_gemm_desc& d = *desc;
  FP8KIT_RETURN_IF_FAILED(check_extent("m", d.m));
  FP8KIT_RETURN_IF_FAILED(check_extent("n", d.n));
  FP8KIT_RETURN_IF_FAILED(check_k(d.k));
  FP8KIT_RETURN_IF_FAILED(check_dtypes(d));
  FP8KIT_RETURN_IF_FAILED(check_not_null("a", d.a));
  FP8KIT_RETURN_IF_FAILED(check_not_null("b", d.b));
  FP8KIT_RETURN_IF_FAILED(check_not_null("d", d.d));
  FP8KIT_RETURN_IF_FAILED(check_layout(d));
  FP8KIT_RETURN_IF_FAILED(check_scales_and_bias(d));
  FP8KIT_RETURN_IF_FAILED(check_output_alias(d));
  *params = params_of(d);
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
