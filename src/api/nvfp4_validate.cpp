// Argument checks of fp8kit_nvfp4_gemm and fp8kit_nvfp4_grouped_gemm
// (fp8kit/nvfp4.h lists the rules). Both descriptors embed one
// fp8kit_nvfp4_operands, so its checks are written once here.
#include <cinttypes>

#include "api/operand_checks.hpp"
#include "api/ops.hpp"
#include "core/nvfp4_layout.hpp"

namespace fp8kit {
namespace {

constexpr fp8kit_status kInvalid = FP8KIT_STATUS_INVALID_ARGUMENT;
constexpr int kAlphaBytes = sizeof(float);
constexpr int kGroupBytes = sizeof(int32_t);
constexpr int kHalfBytes = 2;

bool a_is_fp4(const fp8kit_nvfp4_operands& op) { return raw(op.a_type) == FP8KIT_DTYPE_NVFP4; }

// Bytes of one row of A / the unit of lda.
int a_unit_bytes(const fp8kit_nvfp4_operands& op) { return a_is_fp4(op) ? 1 : kHalfBytes; }
// A row of K elements, in lda's units.
int64_t a_row(const fp8kit_nvfp4_operands& op, int64_t k) { return a_is_fp4(op) ? k / 2 : k; }

fp8kit_status check_k_granule(int64_t k) {
  if (k < nvfp4::kKGranule || k > kMaxExtent || k % nvfp4::kKGranule != 0)
    return fail(kInvalid, "k = %" PRId64 ": must be a multiple of %d, at least %d (16 bytes of a packed NVFP4 row)", k,
                nvfp4::kKGranule, nvfp4::kKGranule);
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_dtypes(const fp8kit_nvfp4_operands& op) {
  const int a = raw(op.a_type), b = raw(op.b_type), d = raw(op.d_type), bias = raw(op.bias_type);
  if (a != FP8KIT_DTYPE_NVFP4 && a != FP8KIT_DTYPE_BF16 && a != FP8KIT_DTYPE_F16)
    return fail(kInvalid, "a_type = %s: must be nvfp4 (W4A4), bf16 or f16 (W4A16)", dtype_text(a).c_str());
  if (b != FP8KIT_DTYPE_NVFP4) return fail(kInvalid, "b_type = %s: must be nvfp4", dtype_text(b).c_str());
  if (!is_wide(d)) return fail(kInvalid, "d_type = %s: must be bf16, f16 or f32", dtype_text(d).c_str());
  if (op.bias && !is_wide(bias))
    return fail(kInvalid, "bias_type = %s: must be bf16, f16 or f32", dtype_text(bias).c_str());
  if (!nvfp4::is_scale_layout(raw(op.b_scale_layout)))
    return fail(kInvalid, "b_scale_layout = %d: must be SWIZZLED or LINEAR", raw(op.b_scale_layout));
  if (a_is_fp4(op) && !nvfp4::is_scale_layout(raw(op.a_scale_layout)))
    return fail(kInvalid, "a_scale_layout = %d: must be SWIZZLED or LINEAR", raw(op.a_scale_layout));
  return FP8KIT_STATUS_SUCCESS;
}

// Pointers, leading dimensions and alignment (dtypes checked).
fp8kit_status check_layout(const fp8kit_nvfp4_operands& op, int64_t n, int64_t k) {
  FP8KIT_RETURN_IF_FAILED(check_not_null("a", op.a));
  FP8KIT_RETURN_IF_FAILED(check_not_null("b", op.b));
  FP8KIT_RETURN_IF_FAILED(check_not_null("b_scale", op.b_scale));
  FP8KIT_RETURN_IF_FAILED(check_not_null("d", op.d));
  if (a_is_fp4(op)) {
    FP8KIT_RETURN_IF_FAILED(check_not_null("a_scale", op.a_scale));
  } else if (op.a_scale) {
    return fail(kInvalid, "a_scale is not NULL but a_type is %s: only NVFP4 A has block scales",
                dtype_text(raw(op.a_type)).c_str());
  }
  const int a_bytes = a_unit_bytes(op);
  if (op.lda < a_row(op, k) || (op.lda * a_bytes) % kBaseAlign != 0)
    return fail(kInvalid, "lda = %" PRId64 ": must be >= %" PRId64 " (a row of A in %s) and lda * %d bytes a multiple of 16",
                op.lda, a_row(op, k), a_is_fp4(op) ? "bytes" : "elements", a_bytes);
  if (op.ldb < k / 2 || op.ldb % kBaseAlign != 0)
    return fail(kInvalid, "ldb = %" PRId64 ": must be >= k / 2 (%" PRId64 " bytes) and a multiple of 16", op.ldb, k / 2);
  const int d_bytes = dtype_bytes(op.d_type);
  if (op.ldd < n || (op.ldd * d_bytes) % kBaseAlign != 0)
    return fail(kInvalid, "ldd = %" PRId64 ": must be >= n (%" PRId64 ") and ldd * %d bytes a multiple of 16", op.ldd,
                n, d_bytes);
  FP8KIT_RETURN_IF_FAILED(check_aligned("a", op.a, kBaseAlign));
  FP8KIT_RETURN_IF_FAILED(check_aligned("b", op.b, kBaseAlign));
  FP8KIT_RETURN_IF_FAILED(check_aligned("d", op.d, kBaseAlign));
  FP8KIT_RETURN_IF_FAILED(check_aligned("b_scale", op.b_scale, nvfp4::scale_alignment(raw(op.b_scale_layout))));
  if (op.a_scale)
    FP8KIT_RETURN_IF_FAILED(check_aligned("a_scale", op.a_scale, nvfp4::scale_alignment(raw(op.a_scale_layout))));
  if (op.alpha) FP8KIT_RETURN_IF_FAILED(check_aligned("alpha", op.alpha, kAlphaBytes));
  if (op.bias) FP8KIT_RETURN_IF_FAILED(check_aligned("bias", op.bias, dtype_bytes(op.bias_type)));
  return FP8KIT_STATUS_SUCCESS;
}

// The extents the kernels read: A and D over `rows` rows, B over `b_rows`,
// the scales, alpha and bias over `experts` copies.
struct Extents {
  int64_t rows, b_rows, a_scale, b_scale, alpha, bias;
};

fp8kit_status check_alias(const fp8kit_nvfp4_operands& op, int64_t n, int64_t k, const Extents& e,
                          const ByteSpan& groups) {
  const ByteSpan out = span_of("d", op.d, extent_bytes(e.rows, op.ldd, n, dtype_bytes(op.d_type)));
  const ByteSpan inputs[] = {
      span_of("a", op.a, extent_bytes(e.rows, op.lda, a_row(op, k), a_unit_bytes(op))),
      span_of("b", op.b, extent_bytes(e.b_rows, op.ldb, k / 2, 1)),
      span_of("a_scale", op.a_scale, op.a_scale ? e.a_scale : 0),
      span_of("b_scale", op.b_scale, e.b_scale),
      span_of("alpha", op.alpha, op.alpha ? e.alpha : 0),
      span_of("bias", op.bias, op.bias ? e.bias : 0),
      groups,
  };
  for (const ByteSpan& in : inputs)
    if (overlaps(out, in)) return fail(kInvalid, "d overlaps %s: the output must not alias an input", in.name);
  return FP8KIT_STATUS_SUCCESS;
}

Nvfp4Params params_of(const fp8kit_nvfp4_operands& op, int64_t m, int64_t n, int64_t k) {
  Nvfp4Params p{};
  p.m = static_cast<int>(m);
  p.n = static_cast<int>(n);
  p.k = static_cast<int>(k);
  p.k_blocks = static_cast<int>(nvfp4::blocks_of(k));
  p.a = static_cast<const uint8_t*>(op.a);
  p.lda = op.lda;
  p.a_scale = static_cast<const uint8_t*>(op.a_scale);
  p.b = static_cast<const uint8_t*>(op.b);
  p.ldb = op.ldb;
  p.b_scale = static_cast<const uint8_t*>(op.b_scale);
  p.alpha = op.alpha;
  p.d = op.d;
  p.ldd = op.ldd;
  p.bias = op.bias;
  p.a_type = op.a_type;
  p.d_type = op.d_type;
  p.bias_type = op.bias_type;
  p.a_scale_layout = raw(op.a_scale_layout);
  p.b_scale_layout = raw(op.b_scale_layout);
  return p;
}

int64_t a_scale_bytes(const fp8kit_nvfp4_operands& op, int64_t rows, int64_t k) {
  return a_is_fp4(op) ? nvfp4::scale_bytes(rows, k, raw(op.a_scale_layout)) : 0;
}

}  // namespace

fp8kit_status validate_nvfp4_gemm(const fp8kit_nvfp4_gemm_desc& d, Nvfp4Params* params) {
  FP8KIT_RETURN_IF_FAILED(check_extent("m", d.m));
  FP8KIT_RETURN_IF_FAILED(check_extent("n", d.n));
  FP8KIT_RETURN_IF_FAILED(check_k_granule(d.k));
  FP8KIT_RETURN_IF_FAILED(check_dtypes(d.op));
  FP8KIT_RETURN_IF_FAILED(check_layout(d.op, d.n, d.k));
  const Extents e{d.m,
                  d.n,
                  a_scale_bytes(d.op, d.m, d.k),
                  nvfp4::scale_bytes(d.n, d.k, raw(d.op.b_scale_layout)),
                  kAlphaBytes,
                  d.op.bias ? d.n * dtype_bytes(d.op.bias_type) : 0};
  FP8KIT_RETURN_IF_FAILED(check_alias(d.op, d.n, d.k, e, ByteSpan{"groups", 0, 0}));
  *params = params_of(d.op, d.m, d.n, d.k);
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status validate_nvfp4_grouped(const fp8kit_nvfp4_grouped_gemm_desc& d, Nvfp4GroupedParams* g) {
  FP8KIT_RETURN_IF_FAILED(check_grouped_shape(raw(d.layout), d.experts, d.rows, d.n, d.offs, d.counts));
  FP8KIT_RETURN_IF_FAILED(check_k_granule(d.k));
  FP8KIT_RETURN_IF_FAILED(check_dtypes(d.op));
  FP8KIT_RETURN_IF_FAILED(check_layout(d.op, d.n, d.k));
  const bool masked = raw(d.layout) == FP8KIT_GROUPED_MASKED;
  const int64_t rows = masked ? d.experts * d.rows : d.rows;
  const int64_t b_scale_each = nvfp4::scale_bytes(d.n, d.k, raw(d.op.b_scale_layout));
  const int64_t a_scale_each = a_scale_bytes(d.op, d.rows, d.k);  // masked: one expert's; contiguous: all T rows
  const Extents e{rows,
                  d.experts * d.n,
                  masked ? d.experts * a_scale_each : a_scale_each,
                  d.experts * b_scale_each,
                  d.experts * kAlphaBytes,
                  d.op.bias ? d.experts * d.n * dtype_bytes(d.op.bias_type) : 0};
  const int32_t* groups = masked ? d.counts : d.offs;
  FP8KIT_RETURN_IF_FAILED(
      check_alias(d.op, d.n, d.k, e, span_of(masked ? "counts" : "offs", groups, d.experts * kGroupBytes)));
  g->layout = d.layout;
  g->experts = static_cast<int>(d.experts);
  g->rows = static_cast<int>(d.rows);
  g->groups = groups;
  g->dense = params_of(d.op, 0, d.n, d.k);
  g->b_expert_stride = d.n * d.op.ldb;
  g->b_scale_expert_stride = b_scale_each;
  g->a_scale_expert_stride = masked ? a_scale_each : 0;
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
