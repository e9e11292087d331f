#include "api/operand_checks.hpp"

namespace fp8kit {
namespace {

constexpr fp8kit_status kInvalid = FP8KIT_STATUS_INVALID_ARGUMENT;

fp8kit_status check_scale_mode(const char* operand, int mode) {
  const bool is_a = *operand == 'a';
  const bool known = mode == FP8KIT_SCALE_NONE || mode == FP8KIT_SCALE_TENSOR || mode == FP8KIT_SCALE_BLOCK ||
                     (is_a ? mode == FP8KIT_SCALE_ROW : mode == FP8KIT_SCALE_COL);
  if (!known)
    return fail(kInvalid, "%s_scale_mode = %s: must be NONE, TENSOR, %s or BLOCK", operand,
                scale_mode_text(mode).c_str(), is_a ? "ROW" : "COL");
  return FP8KIT_STATUS_SUCCESS;
}

// The scale pointer of operand "a" or "b" agrees with its (checked) mode and
// is 4-byte aligned.
fp8kit_status check_scale_pointer(const char* operand, int mode, const float* ptr) {
  if (mode == FP8KIT_SCALE_NONE && ptr)
    return fail(kInvalid, "%s_scale is not NULL but %s_scale_mode is NONE", operand, operand);
  if (mode != FP8KIT_SCALE_NONE && !ptr)
    return fail(kInvalid, "%s_scale is NULL but %s_scale_mode is %s", operand, operand,
                scale_mode_text(mode).c_str());
  if (ptr) return check_aligned(*operand == 'a' ? "a_scale" : "b_scale", ptr, sizeof(float));
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace

fp8kit_status check_operand_dtypes(const fp8kit_gemm_operands& op) {
  const int a_type = raw(op.a_type), b_type = raw(op.b_type), d_type = raw(op.d_type), bias_type = raw(op.bias_type);
  if (!is_fp8(a_type)) return fail(kInvalid, "a_type = %s: must be e4m3 or e5m2", dtype_text(a_type).c_str());
  if (!is_fp8(b_type)) return fail(kInvalid, "b_type = %s: must be e4m3 or e5m2", dtype_text(b_type).c_str());
  if (!is_wide(d_type)) return fail(kInvalid, "d_type = %s: must be bf16, f16 or f32", dtype_text(d_type).c_str());
  if (op.bias && !is_wide(bias_type))
    return fail(kInvalid, "bias_type = %s: must be bf16, f16 or f32", dtype_text(bias_type).c_str());
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_operand_layout(const fp8kit_gemm_operands& op, int64_t n, int64_t k) {
  FP8KIT_RETURN_IF_FAILED(check_not_null("a", op.a));
  FP8KIT_RETURN_IF_FAILED(check_not_null("b", op.b));
  FP8KIT_RETURN_IF_FAILED(check_not_null("d", op.d));
  if (op.lda < k || op.lda % kBaseAlign != 0)
    return fail(kInvalid, "lda = %" PRId64 ": must be >= k (%" PRId64 ") and a multiple of 16", op.lda, k);
  if (op.ldb < k || op.ldb % kBaseAlign != 0)
    return fail(kInvalid, "ldb = %" PRId64 ": must be >= k (%" PRId64 ") and a multiple of 16", op.ldb, k);
  const int d_bytes = dtype_bytes(op.d_type);
  if (op.ldd < n || (op.ldd * d_bytes) % kBaseAlign != 0)
    return fail(kInvalid, "ldd = %" PRId64 ": must be >= n (%" PRId64 ") and ldd * %d bytes a multiple of 16", op.ldd,
                n, d_bytes);
  FP8KIT_RETURN_IF_FAILED(check_aligned("a", op.a, kBaseAlign));
  FP8KIT_RETURN_IF_FAILED(check_aligned("b", op.b, kBaseAlign));
  return check_aligned("d", op.d, kBaseAlign);
}

fp8kit_status check_scale_modes(int a_mode, int b_mode) {
  FP8KIT_RETURN_IF_FAILED(check_scale_mode("a", a_mode));
  FP8KIT_RETURN_IF_FAILED(check_scale_mode("b", b_mode));
  if ((a_mode == FP8KIT_SCALE_BLOCK) != (b_mode == FP8KIT_SCALE_BLOCK))
    return fail(kInvalid,
                "a_scale_mode = %s, b_scale_mode = %s: BLOCK scaling must be used on both operands or neither",
                scale_mode_text(a_mode).c_str(), scale_mode_text(b_mode).c_str());
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_scales_and_bias(const fp8kit_gemm_operands& op) {
  const int a_mode = raw(op.a_scale_mode), b_mode = raw(op.b_scale_mode);
  FP8KIT_RETURN_IF_FAILED(check_scale_modes(a_mode, b_mode));
  FP8KIT_RETURN_IF_FAILED(check_scale_pointer("a", a_mode, op.a_scale));
  FP8KIT_RETURN_IF_FAILED(check_scale_pointer("b", b_mode, op.b_scale));
  if (op.bias) return check_aligned("bias", op.bias, dtype_bytes(op.bias_type));
  return FP8KIT_STATUS_SUCCESS;
}

GemmParams operand_params(const fp8kit_gemm_operands& op, int64_t n, int64_t k) {
  GemmParams p{};
  p.n = static_cast<int>(n);
  p.k = static_cast<int>(k);
  p.k_blocks = static_cast<int>(ceil_div(k, kScaleBlock));
  p.a = static_cast<const uint8_t*>(op.a);
  p.lda = op.lda;
  p.b = static_cast<const uint8_t*>(op.b);
  p.ldb = op.ldb;
  p.d = op.d;
  p.ldd = op.ldd;
  p.a_type = op.a_type;
  p.b_type = op.b_type;
  p.d_type = op.d_type;
  p.a_scale_mode = op.a_scale_mode;
  p.b_scale_mode = op.b_scale_mode;
  p.a_scale = op.a_scale;
  p.b_scale = op.b_scale;
  p.bias = op.bias;
  p.bias_type = op.bias_type;
  return p;
}

}  // namespace fp8kit
