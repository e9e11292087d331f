// The checks of A, B, D, bias and the scales that every GEMM descriptor
// shares: fp8kit_gemm_desc and fp8kit_grouped_gemm_desc embed one
// fp8kit_gemm_operands, so each check is written once. Each names the
// offending argument.
#pragma once

#include <cinttypes>

#include "core/arg_checks.hpp"
#include "core/dtype.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "gemm/gemm_params.hpp"

namespace fp8kit {

// A and B FP8; D, and bias when given, bf16, f16 or f32.
fp8kit_status check_operand_dtypes(const fp8kit_gemm_operands& op);

// A, B and D present; leading dimensions at least the row (n, k) and
// 16-byte multiples; base pointers 16-byte aligned (dtypes checked).
fp8kit_status check_operand_layout(const fp8kit_gemm_operands& op, int64_t n, int64_t k);

// The scale modes (each one known for its operand, BLOCK on both operands or
// neither), then each scale pointer against its mode, 4-byte aligned, and
// the bias's alignment.
fp8kit_status check_scales_and_bias(const fp8kit_gemm_operands& op);

// The scale modes alone (raw values): shared with the offline path choice.
fp8kit_status check_scale_modes(int a_mode, int b_mode);

// The grouped layouts' shape (fp8kit.h): layout, experts, rows, n and the
// group array (offs or counts, as the layout takes); K is the caller's.
fp8kit_status check_grouped_shape(int layout, int64_t experts, int64_t rows, int64_t n, const int32_t* offs,
                                  const int32_t* counts);

// The checked operand fields as kernels take them; m (and anything else the
// descriptor has of its own) is the caller's.
GemmParams operand_params(const fp8kit_gemm_operands& op, int64_t n, int64_t k);

}  // namespace fp8kit
