#include "reference/gemm_reference.hpp"

#include <algorithm>
#include <cmath>

#include "core/scale_layout.hpp"
#include "reference/fp8_codec.hpp"

namespace fp8kit::ref {
namespace {

constexpr int64_t kBlock = kScaleBlock;


double a_scale_at(const HostGemm& g, int64_t m, int64_t kb) {
  switch (g.a_scale_mode) {
    case FP8KIT_SCALE_TENSOR: return g.a_scale[0];
    case FP8KIT_SCALE_ROW: return g.a_scale[m];
    case FP8KIT_SCALE_BLOCK: return g.a_scale[kb * g.m + m];
    default: return 1.0;
  }
}

double b_scale_at(const HostGemm& g, int64_t n, int64_t kb) {
  switch (g.b_scale_mode) {
    case FP8KIT_SCALE_TENSOR: return g.b_scale[0];
    case FP8KIT_SCALE_COL: return g.b_scale[n];
    case FP8KIT_SCALE_BLOCK: return g.b_scale[(n / kBlock) * ceil_div(g.k, kBlock) + kb];
    default: return 1.0;
  }
}

template <bool kAbs>
double element(const HostGemm& g, int64_t m, int64_t n) {
  const uint8_t* a = g.a + m * g.lda;
  const uint8_t* b = g.b + n * g.ldb;
  double total = 0.0;
  for (int64_t kb = 0; kb * kBlock < g.k; ++kb) {
    double partial = 0.0;
    const int64_t kend = std::min(g.k, (kb + 1) * kBlock);
    for (int64_t k = kb * kBlock; k < kend; ++k) {
      const double p = decode_fp8(g.a_type, a[k]) * decode_fp8(g.b_type, b[k]);
      partial += kAbs ? std::fabs(p) : p;
    }
    const double s = a_scale_at(g, m, kb) * b_scale_at(g, n, kb);
    total += partial * (kAbs ? std::fabs(s) : s);
  }
  if (g.bias) {
    const double bv = load_element(g.bias_type, g.bias, n);
    total += kAbs ? std::fabs(bv) : bv;
  }
  return total;
}

}  // namespace

double reference_element(const HostGemm& g, int64_t m, int64_t n) { return element<false>(g, m, n); }
double reference_magnitude(const HostGemm& g, int64_t m, int64_t n) { return element<true>(g, m, n); }

std::vector<double> reference_gemm(const HostGemm& g) {
  std::vector<double> d(static_cast<size_t>(g.m * g.n));
  for (int64_t m = 0; m < g.m; ++m)
    for (int64_t n = 0; n < g.n; ++n) d[m * g.n + n] = reference_element(g, m, n);
  return d;
}

int64_t a_scale_count(fp8kit_scale_mode mode, int64_t m, int64_t k) { return fp8kit::a_scale_count(mode, m, k); }
int64_t b_scale_count(fp8kit_scale_mode mode, int64_t n, int64_t k) { return fp8kit::b_scale_count(mode, n, k); }

}  // namespace fp8kit::ref
