// The checks of A, B, D, bias and the scales that every GEMM descriptor
// shares: fp8kit_gemm_desc and fp8kit_grouped_gemm_desc spell these fields
// the same (a, lda, a_type, ..., bias, bias_type), so each check is written
// once, as a template over the descriptor. Each names the offending argument.
#pragma once

#include <cinttypes>

#include "core/arg_checks.hpp"
#include "core/dtype.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "gemm/gemm_params.hpp"

namespace fp8kit {

// A and B FP8; D, and bias when given, bf16, f16 or f32.
template <typename Desc>
fp8kit_status check_operand_dtypes(const Desc& d) {
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

// A, B and D present; leading dimensions at least the row and 16-byte
// multiples; base pointers 16-byte aligned (dtypes checked).
template <typename Desc>
fp8kit_status check_operand_layout(const Desc& d) {
  FP8KIT_RETURN_IF_FAILED(check_not_null("a", d.a));
  FP8KIT_RETURN_IF_FAILED(check_not_null("b", d.b));
  FP8KIT_RETURN_IF_FAILED(check_not_null("d", d.d));
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

// The scale mode of operand "a" or "b" is one fp8kit.h names for it.
fp8kit_status check_scale_mode(const char* operand, int mode);

// The scale pointer of operand "a" or "b" agrees with its (checked) mode and
// is 4-byte aligned.
fp8kit_status check_scale_pointer(const char* operand, int mode, const float* ptr);

// The scale modes alone (raw values): each one known for its operand, and
// BLOCK on both operands or neither. Shared with the offline path choice.
fp8kit_status check_scale_modes(int a_mode, int b_mode);

// The checked operand fields as kernels take them; m (and anything else the
// descriptor has of its own) is the caller's.
template <typename Desc>
GemmParams operand_params(const Desc& d) {
  GemmParams p{};
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

}  // namespace fp8kit
