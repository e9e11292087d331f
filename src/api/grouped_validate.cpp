#include "api/ops.hpp"

#include <cinttypes>

#include "api/operand_checks.hpp"

namespace fp8kit {
namespace {

constexpr fp8kit_status kInvalid = FP8KIT_STATUS_INVALID_ARGUMENT;
constexpr int kScaleBytes = sizeof(float);
constexpr int kGroupBytes = sizeof(int32_t);

bool is_masked(const fp8kit_grouped_gemm_desc& d) { return raw(d.layout) == FP8KIT_GROUPED_MASKED; }

// Rows of A and D: T, or E * max_m.
int64_t total_rows(const fp8kit_grouped_gemm_desc& d) { return is_masked(d) ? d.experts * d.rows : d.rows; }

// Layout, sizes and the group array.
fp8kit_status check_shape(const fp8kit_grouped_gemm_desc& d) {
  FP8KIT_RETURN_IF_FAILED(check_grouped_shape(raw(d.layout), d.experts, d.rows, d.n, d.offs, d.counts));
  return check_k(d.k);
}

// Dtypes, pointers, leading dimensions and alignment of A, B and D.
fp8kit_status check_operands(const fp8kit_grouped_gemm_desc& d) {
  FP8KIT_RETURN_IF_FAILED(check_operand_dtypes(d.op));
  return check_operand_layout(d.op, d.n, d.k);
}

// Scales each mode needs (fp8kit.h), over the layout's rows of A.
int64_t a_scales(const fp8kit_grouped_gemm_desc& d) {
  return raw(d.op.a_scale_mode) == FP8KIT_SCALE_TENSOR ? d.experts
                                                       : a_scale_count(d.op.a_scale_mode, total_rows(d), d.k);
}
int64_t b_scales(const fp8kit_grouped_gemm_desc& d) {
  return raw(d.op.b_scale_mode) == FP8KIT_SCALE_TENSOR ? d.experts
                                                       : d.experts * b_scale_count(d.op.b_scale_mode, d.n, d.k);
}

// D must not overlap anything the kernel reads.
fp8kit_status check_output_alias(const fp8kit_grouped_gemm_desc& d) {
  const int64_t rows = total_rows(d);
  const fp8kit_gemm_operands& op = d.op;
  const ByteSpan out = span_of("d", op.d, extent_bytes(rows, op.ldd, d.n, dtype_bytes(op.d_type)));
  const ByteSpan inputs[] = {
      span_of("a", op.a, extent_bytes(rows, op.lda, d.k, 1)),
      span_of("b", op.b, extent_bytes(d.experts * d.n, op.ldb, d.k, 1)),
      span_of("a_scale", op.a_scale, a_scales(d) * kScaleBytes),
      span_of("b_scale", op.b_scale, b_scales(d) * kScaleBytes),
      span_of("bias", op.bias, op.bias ? d.experts * d.n * dtype_bytes(op.bias_type) : 0),
      span_of(is_masked(d) ? "counts" : "offs", is_masked(d) ? d.counts : d.offs, d.experts * kGroupBytes),
  };
  for (const ByteSpan& in : inputs)
    if (overlaps(out, in)) return fail(kInvalid, "d overlaps %s: the output must not alias an input", in.name);
  return FP8KIT_STATUS_SUCCESS;
}

GroupedParams params_of(const fp8kit_grouped_gemm_desc& d) {
  GroupedParams g{};
  g.layout = d.layout;
  g.experts = static_cast<int>(d.experts);
  g.rows = static_cast<int>(d.rows);
  g.groups = is_masked(d) ? d.counts : d.offs;
  g.b_expert_stride = d.n * d.op.ldb;
  g.dense = operand_params(d.op, d.n, d.k);  // m stays 0: rows come from the group array
  return g;
}

}  // namespace

fp8kit_status check_grouped_shape(int layout, int64_t experts, int64_t rows, int64_t n, const int32_t* offs,
                                  const int32_t* counts) {
  if (layout != FP8KIT_GROUPED_CONTIGUOUS && layout != FP8KIT_GROUPED_MASKED)
    return fail(kInvalid, "layout = %d: must be CONTIGUOUS or MASKED", layout);
  const bool masked = layout == FP8KIT_GROUPED_MASKED;
  FP8KIT_RETURN_IF_FAILED(check_extent("experts", experts));
  if (rows < 0 || rows > kMaxExtent)
    return fail(kInvalid, "rows = %" PRId64 ": must be in [0, 2^31 - 1] (%s)", rows, masked ? "max_m" : "T");
  FP8KIT_RETURN_IF_FAILED(check_extent("n", n));
  if (masked && experts * rows > kMaxExtent)
    return fail(kInvalid, "experts * rows = %" PRId64 ": the masked rows E * max_m must be below 2^31",
                experts * rows);
  if (experts * n > kMaxExtent) return fail(kInvalid, "experts * n = %" PRId64 ": must be below 2^31", experts * n);
  const char* want = masked ? "counts" : "offs";
  const char* layout_name = masked ? "MASKED" : "CONTIGUOUS";
  const int32_t* groups = masked ? counts : offs;
  if (!groups) return fail(kInvalid, "%s is NULL: the %s layout needs it", want, layout_name);
  if ((masked ? offs : counts) != nullptr)
    return fail(kInvalid, "%s is not NULL: the %s layout takes %s only", masked ? "offs" : "counts", layout_name, want);
  return check_aligned(want, groups, static_cast<int>(sizeof(int32_t)));
}

fp8kit_status validate_grouped(const fp8kit_grouped_gemm_desc& d, GroupedParams* g) {
  FP8KIT_RETURN_IF_FAILED(check_shape(d));
  FP8KIT_RETURN_IF_FAILED(check_operands(d));
  FP8KIT_RETURN_IF_FAILED(check_scales_and_bias(d.op));
  FP8KIT_RETURN_IF_FAILED(check_output_alias(d));
  *g = params_of(d);
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
