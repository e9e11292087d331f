#include "reference/grouped_reference.hpp"

#include <algorithm>
#include <cmath>

#include "core/scale_layout.hpp"
#include "reference/fp8_codec.hpp"

namespace fp8kit::ref {

std::vector<ExpertRows> expert_rows(fp8kit_grouped_layout layout, int64_t experts, int64_t rows,
                                    const int32_t* groups) {
  std::vector<ExpertRows> out(static_cast<size_t>(experts));
  int64_t end = 0;
  for (int64_t e = 0; e < experts; ++e) {
    if (layout == FP8KIT_GROUPED_MASKED) {
      out[e] = ExpertRows{e * rows, std::clamp<int64_t>(groups[e], 0, rows)};
    } else {
      const int64_t next = std::min<int64_t>(rows, std::max<int64_t>(end, groups[e]));
      out[e] = ExpertRows{end, next - end};
      end = next;
    }
  }
  return out;
}

int64_t grouped_total_rows(const HostGrouped& g) {
  return g.layout == FP8KIT_GROUPED_MASKED ? g.experts * g.rows : g.rows;
}

HostGemm expert_gemm(const HostGrouped& g, int64_t e, const ExpertRows& rows, std::vector<float>* a_block_scratch) {
  HostGemm h;
  h.m = rows.count;
  h.n = g.n;
  h.k = g.k;
  h.a = g.a + rows.first * g.lda;
  h.lda = g.lda;
  h.a_type = g.a_type;
  h.b = g.b + e * g.n * g.ldb;
  h.ldb = g.ldb;
  h.b_type = g.b_type;
  h.a_scale_mode = g.a_scale_mode;
  h.b_scale_mode = g.b_scale_mode;
  const int64_t kb = ceil_div(g.k, kScaleBlock);
  switch (g.a_scale_mode) {
    case FP8KIT_SCALE_TENSOR: h.a_scale = g.a_scale + e; break;
    case FP8KIT_SCALE_ROW: h.a_scale = g.a_scale + rows.first; break;
    case FP8KIT_SCALE_BLOCK: {
      // Contiguous: [kb, T] over all rows; masked: [E, kb, max_m].
      const bool masked = g.layout == FP8KIT_GROUPED_MASKED;
      const float* base = masked ? g.a_scale + e * kb * g.rows : g.a_scale + rows.first;
      const int64_t ld = g.rows;
      a_block_scratch->assign(static_cast<size_t>(kb * rows.count), 0.f);
      for (int64_t b = 0; b < kb; ++b)
        for (int64_t r = 0; r < rows.count; ++r) (*a_block_scratch)[b * rows.count + r] = base[b * ld + r];
      h.a_scale = a_block_scratch->data();
      break;
    }
    default: break;
  }
  switch (g.b_scale_mode) {
    case FP8KIT_SCALE_TENSOR: h.b_scale = g.b_scale + e; break;
    case FP8KIT_SCALE_COL: h.b_scale = g.b_scale + e * g.n; break;
    case FP8KIT_SCALE_BLOCK: h.b_scale = g.b_scale + e * ceil_div(g.n, kScaleBlock) * kb; break;
    default: break;
  }
  if (g.bias) h.bias = static_cast<const uint8_t*>(g.bias) + e * g.n * dtype_bytes(g.bias_type);
  h.bias_type = g.bias_type;
  return h;
}

std::vector<double> reference_grouped(const HostGrouped& g) {
  std::vector<double> d(static_cast<size_t>(grouped_total_rows(g) * g.n), std::nan(""));
  const std::vector<ExpertRows> rows = expert_rows(g.layout, g.experts, g.rows, g.groups);
  std::vector<float> scratch;
  for (int64_t e = 0; e < g.experts; ++e) {
    const HostGemm h = expert_gemm(g, e, rows[e], &scratch);
    for (int64_t m = 0; m < h.m; ++m)
      for (int64_t n = 0; n < g.n; ++n) d[(rows[e].first + m) * g.n + n] = reference_element(h, m, n);
  }
  return d;
}

}  // namespace fp8kit::ref
