#include "core/grouped_validate.hpp"

#include <cinttypes>

#include "core/enums.hpp"
#include "core/error.hpp"

namespace fp8kit {
namespace {

constexpr int64_t kMaxDim = INT32_MAX;
constexpr int kKMultiple = 16;
constexpr int kBaseAlign = 16;

bool is_fp8(int t) { return t == FP8KIT_DTYPE_E4M3 || t == FP8KIT_DTYPE_E5M2; }
bool is_wide(int t) { return t == FP8KIT_DTYPE_BF16 || t == FP8KIT_DTYPE_F16 || t == FP8KIT_DTYPE_F32; }
bool aligned(const void* p, int bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

constexpr fp8kit_status kInvalid = FP8KIT_STATUS_INVALID_ARGUMENT;

// [lo, hi) bytes; empty when bytes <= 0.
struct Span {
  const char* name;
  uintptr_t lo, hi;
};
Span span_of(const char* name, const void* p, int64_t bytes) {
  const auto lo = reinterpret_cast<uintptr_t>(p);
  return Span{name, lo, lo + static_cast<uintptr_t>(bytes > 0 && p ? bytes : 0)};
}

fp8kit_status check_scale(const char* side, int mode, const float* ptr, bool is_a) {
  const bool known = mode == FP8KIT_SCALE_NONE || mode == FP8KIT_SCALE_TENSOR || mode == FP8KIT_SCALE_BLOCK ||
                     (is_a ? mode == FP8KIT_SCALE_ROW : mode == FP8KIT_SCALE_COL);
  if (!known)
    return fail(kInvalid, "%s_scale_mode = %s: must be NONE, TENSOR, %s or BLOCK", side, scale_mode_text(mode).c_str(),
                   is_a ? "ROW" : "COL");
  if (mode == FP8KIT_SCALE_NONE && ptr) return fail(kInvalid, "%s_scale is not NULL but %s_scale_mode is NONE", side, side);
  if (mode != FP8KIT_SCALE_NONE && !ptr)
    return fail(kInvalid, "%s_scale is NULL but %s_scale_mode is %s", side, side, scale_mode_text(mode).c_str());
  if (ptr && !aligned(ptr, sizeof(float)))
    return fail(kInvalid, "%s_scale = %p: must be 4-byte aligned", side, static_cast<const void*>(ptr));
  return FP8KIT_STATUS_SUCCESS;
}

// Layout, sizes and the group array.
fp8kit_status check_shape(const fp8kit_grouped_gemm_desc* d) {
  const int layout = raw(d->layout);
  if (layout != FP8KIT_GROUPED_CONTIGUOUS && layout != FP8KIT_GROUPED_MASKED)
    return fail(kInvalid, "layout = %d: must be CONTIGUOUS or MASKED", layout);
  const bool masked = layout == FP8KIT_GROUPED_MASKED;
  if (d->experts < 1 || d->experts > kMaxDim)
    return fail(kInvalid, "experts = %" PRId64 ": must be in [1, 2^31 - 1]", d->experts);
  if (d->rows < 0 || d->rows > kMaxDim)
    return fail(kInvalid, "rows = %" PRId64 ": must be in [0, 2^31 - 1] (%s)", d->rows, masked ? "max_m" : "T");
  if (d->n < 1 || d->n > kMaxDim) return fail(kInvalid, "n = %" PRId64 ": must be in [1, 2^31 - 1]", d->n);
  if (d->k < kKMultiple || d->k > kMaxDim || d->k % kKMultiple != 0)
    return fail(kInvalid, "k = %" PRId64 ": must be a multiple of 16, at least 16", d->k);
  if (masked && d->experts * d->rows > kMaxDim)
    return fail(kInvalid, "experts * rows = %" PRId64 ": the masked rows E * max_m must be below 2^31", d->experts * d->rows);
  if (d->experts * d->n > kMaxDim)
    return fail(kInvalid, "experts * n = %" PRId64 ": must be below 2^31", d->experts * d->n);
  const char* want = masked ? "counts" : "offs";
  const char* other = masked ? "offs" : "counts";
  const int32_t* groups = masked ? d->counts : d->offs;
  if (!groups) return fail(kInvalid, "%s is NULL: the %s layout needs it", want, masked ? "MASKED" : "CONTIGUOUS");
  if ((masked ? d->offs : d->counts) != nullptr)
    return fail(kInvalid, "%s is not NULL: the %s layout takes %s only", other, masked ? "MASKED" : "CONTIGUOUS", want);
  if (!aligned(groups, sizeof(int32_t))) return fail(kInvalid, "%s = %p: must be 4-byte aligned", want, (const void*)groups);
  return FP8KIT_STATUS_SUCCESS;
}

// Dtypes, pointers, leading dimensions and alignment of A, B, D and bias.
fp8kit_status check_operands(const fp8kit_grouped_gemm_desc* d) {
  const int a_type = raw(d->a_type), b_type = raw(d->b_type), d_type = raw(d->d_type), bias_type = raw(d->bias_type);
  if (!is_fp8(a_type)) return fail(kInvalid, "a_type = %s: must be e4m3 or e5m2", dtype_text(a_type).c_str());
  if (!is_fp8(b_type)) return fail(kInvalid, "b_type = %s: must be e4m3 or e5m2", dtype_text(b_type).c_str());
  if (!is_wide(d_type)) return fail(kInvalid, "d_type = %s: must be bf16, f16 or f32", dtype_text(d_type).c_str());
  if (d->bias && !is_wide(bias_type))
    return fail(kInvalid, "bias_type = %s: must be bf16, f16 or f32", dtype_text(bias_type).c_str());
  if (!d->a) return fail(kInvalid, "a is NULL");
  if (!d->b) return fail(kInvalid, "b is NULL");
  if (!d->d) return fail(kInvalid, "d is NULL");
  if (d->lda < d->k || d->lda % kBaseAlign != 0)
    return fail(kInvalid, "lda = %" PRId64 ": must be >= k (%" PRId64 ") and a multiple of 16", d->lda, d->k);
  if (d->ldb < d->k || d->ldb % kBaseAlign != 0)
    return fail(kInvalid, "ldb = %" PRId64 ": must be >= k (%" PRId64 ") and a multiple of 16", d->ldb, d->k);
  const int d_bytes = wide_dtype_bytes(d_type);
  if (d->ldd < d->n || (d->ldd * d_bytes) % kBaseAlign != 0)
    return fail(kInvalid, "ldd = %" PRId64 ": must be >= n (%" PRId64 ") and ldd * %d bytes a multiple of 16", d->ldd, d->n,
                   d_bytes);
  if (!aligned(d->a, kBaseAlign)) return fail(kInvalid, "a = %p: must be 16-byte aligned", d->a);
  if (!aligned(d->b, kBaseAlign)) return fail(kInvalid, "b = %p: must be 16-byte aligned", d->b);
  if (!aligned(d->d, kBaseAlign)) return fail(kInvalid, "d = %p: must be 16-byte aligned", (const void*)d->d);
  if (d->bias && !aligned(d->bias, wide_dtype_bytes(bias_type)))
    return fail(kInvalid, "bias = %p: must be %d-byte aligned", d->bias, wide_dtype_bytes(bias_type));
  return FP8KIT_STATUS_SUCCESS;
}

// Scale counts per mode (fp8kit.h), R = the rows of A (T or E * max_m).
int64_t a_scales(const fp8kit_grouped_gemm_desc* d, int64_t rows) {
  switch (raw(d->a_scale_mode)) {
    case FP8KIT_SCALE_TENSOR: return d->experts;
    case FP8KIT_SCALE_ROW: return rows;
    case FP8KIT_SCALE_BLOCK: return ceil_div(d->k, kScaleBlock) * rows;
    default: return 0;
  }
}
int64_t b_scales(const fp8kit_grouped_gemm_desc* d) {
  switch (raw(d->b_scale_mode)) {
    case FP8KIT_SCALE_TENSOR: return d->experts;
    case FP8KIT_SCALE_COL: return d->experts * d->n;
    case FP8KIT_SCALE_BLOCK: return d->experts * b_scale_count(FP8KIT_SCALE_BLOCK, d->n, d->k);
    default: return 0;
  }
}

// D must not overlap anything the kernel reads.
fp8kit_status check_overlap(const fp8kit_grouped_gemm_desc* d, int64_t rows) {
  const int ob = wide_dtype_bytes(raw(d->d_type));
  const Span out = span_of("d", d->d, rows ? ((rows - 1) * d->ldd + d->n) * ob : 0);
  const int32_t* groups = d->offs ? d->offs : d->counts;
  const Span inputs[] = {
      span_of("a", d->a, rows ? (rows - 1) * d->lda + d->k : 0),
      span_of("b", d->b, (d->experts * d->n - 1) * d->ldb + d->k),
      span_of("a_scale", d->a_scale, a_scales(d, rows) * 4),
      span_of("b_scale", d->b_scale, b_scales(d) * 4),
      span_of("bias", d->bias, d->bias ? d->experts * d->n * wide_dtype_bytes(raw(d->bias_type)) : 0),
      span_of(d->offs ? "offs" : "counts", groups, d->experts * 4),
  };
  for (const Span& in : inputs)
    if (in.hi > in.lo && out.hi > out.lo && in.lo < out.hi && out.lo < in.hi)
      return fail(kInvalid, "d overlaps %s: the output must not alias an input", in.name);
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace

fp8kit_status validate_grouped(const fp8kit_grouped_gemm_desc* d, GroupedParams* g) {
  if (!d) return fail(kInvalid, "desc is NULL");
  fp8kit_status s = check_shape(d);
  if (s == FP8KIT_STATUS_SUCCESS) s = check_operands(d);
  if (s == FP8KIT_STATUS_SUCCESS) s = check_scale("a", raw(d->a_scale_mode), d->a_scale, true);
  if (s == FP8KIT_STATUS_SUCCESS) s = check_scale("b", raw(d->b_scale_mode), d->b_scale, false);
  if (s != FP8KIT_STATUS_SUCCESS) return s;
  const int a_mode = raw(d->a_scale_mode), b_mode = raw(d->b_scale_mode);
  if ((a_mode == FP8KIT_SCALE_BLOCK) != (b_mode == FP8KIT_SCALE_BLOCK))
    return fail(kInvalid, "a_scale_mode = %s, b_scale_mode = %s: BLOCK scaling must be used on both operands or neither",
                   scale_mode_text(a_mode).c_str(), scale_mode_text(b_mode).c_str());
  const bool masked = raw(d->layout) == FP8KIT_GROUPED_MASKED;
  const int64_t rows = masked ? d->experts * d->rows : d->rows;  // rows of A and D
  s = check_overlap(d, rows);
  if (s != FP8KIT_STATUS_SUCCESS) return s;

  *g = GroupedParams{};
  g->layout = d->layout;
  g->experts = static_cast<int>(d->experts);
  g->rows = static_cast<int>(d->rows);
  g->groups = masked ? d->counts : d->offs;
  g->b_expert_stride = d->n * d->ldb;
  GemmParams& p = g->dense;
  p.n = static_cast<int>(d->n);
  p.k = static_cast<int>(d->k);
  p.k_blocks = static_cast<int>(ceil_div(d->k, kScaleBlock));
  p.a = static_cast<const uint8_t*>(d->a);
  p.lda = d->lda;
  p.b = static_cast<const uint8_t*>(d->b);
  p.ldb = d->ldb;
  p.d = d->d;
  p.ldd = d->ldd;
  p.a_type = d->a_type;
  p.b_type = d->b_type;
  p.d_type = d->d_type;
  p.a_scale_mode = d->a_scale_mode;
  p.b_scale_mode = d->b_scale_mode;
  p.a_scale = d->a_scale;
  p.b_scale = d->b_scale;
  p.bias = d->bias;
  p.bias_type = d->bias_type;
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
