// The float64 reference on hand-checked cases.
#include <gtest/gtest.h>

#include <vector>

#include "reference/fp8_codec.hpp"
#include "reference/gemm_reference.hpp"

using namespace fp8kit::ref;

namespace {

struct Small {
  int64_t m, n, k;
  std::vector<uint8_t> a, b;
  HostGemm g;
  Small(int64_t m_, int64_t n_, int64_t k_, double av, double bv) : m(m_), n(n_), k(k_), a(m_ * k_), b(n_ * k_) {
    for (auto& x : a) x = encode_e4m3(av, false);
    for (auto& x : b) x = encode_e4m3(bv, false);
    g.m = m; g.n = n; g.k = k;
    g.a = a.data(); g.lda = k;
    g.b = b.data(); g.ldb = k;
  }
};

}  // namespace

TEST(Reference, UnscaledConstantProduct) {
  Small s(3, 5, 32, 1.5, -2.0);
  const auto d = reference_gemm(s.g);
  for (double v : d) EXPECT_EQ(v, 32 * 1.5 * -2.0);
}

TEST(Reference, TensorRowColScalesAndBias) {
  Small s(2, 3, 16, 1.0, 1.0);
  const float sa_t = 0.5f, sb_col[3] = {1.f, 2.f, 4.f}, sa_row[2] = {1.f, 3.f};
  const float bias[3] = {0.25f, 0.5f, 1.f};
  s.g.a_scale_mode = FP8KIT_SCALE_TENSOR; s.g.a_scale = &sa_t;
  s.g.b_scale_mode = FP8KIT_SCALE_COL; s.g.b_scale = sb_col;
  s.g.bias = bias; s.g.bias_type = FP8KIT_DTYPE_F32;
  EXPECT_EQ(reference_element(s.g, 1, 2), 16 * 0.5 * 4 + 1.0);
  s.g.a_scale_mode = FP8KIT_SCALE_ROW; s.g.a_scale = sa_row;
  EXPECT_EQ(reference_element(s.g, 1, 1), 16 * 3 * 2 + 0.5);
}

TEST(Reference, BlockScalesVaryAlongK) {
  // K = 272: three 128-blocks (the last one 16 deep); N = 130: two N blocks.
  Small s(2, 130, 272, 1.0, 1.0);
  const int64_t kb = 3;
  std::vector<float> sa(kb * 2), sb(2 * kb);
  for (int64_t i = 0; i < kb; ++i) {
    sa[i * 2 + 0] = 1.f + i;       // row 0
    sa[i * 2 + 1] = 10.f * (i + 1);  // row 1
    sb[0 * kb + i] = 1.f;          // n block 0
    sb[1 * kb + i] = 0.5f;         // n block 1
  }
  s.g.a_scale_mode = FP8KIT_SCALE_BLOCK; s.g.a_scale = sa.data();
  s.g.b_scale_mode = FP8KIT_SCALE_BLOCK; s.g.b_scale = sb.data();
  EXPECT_EQ(reference_element(s.g, 0, 0), 128 * 1 + 128 * 2 + 16 * 3);
  EXPECT_EQ(reference_element(s.g, 1, 129), 0.5 * (128 * 10 + 128 * 20 + 16 * 30));
  EXPECT_EQ(a_scale_count(FP8KIT_SCALE_BLOCK, 2, 272), 6);
  EXPECT_EQ(b_scale_count(FP8KIT_SCALE_BLOCK, 130, 272), 6);
}

TEST(Reference, MagnitudeIsSumOfAbsoluteTerms) {
  Small s(1, 1, 16, 1.0, 1.0);
  s.a[3] = encode_e4m3(-1.0, false);
  EXPECT_EQ(reference_element(s.g, 0, 0), 14.0);
  EXPECT_EQ(reference_magnitude(s.g, 0, 0), 16.0);
}
