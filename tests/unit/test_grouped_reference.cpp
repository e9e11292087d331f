// The grouped float64 reference on the CPU: the clamping rule of the group
// arrays, and that each expert's rows equal an independent dense computation
// from the exact FP8 values, for every layout and scale mode.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gemm/gemm_params.hpp"
#include "reference/fp8_codec.hpp"
#include "reference/grouped_reference.hpp"

namespace {

using fp8kit::ref::ExpertRows;

void expect_rows(const std::vector<ExpertRows>& got, const std::vector<ExpertRows>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t e = 0; e < got.size(); ++e) {
    EXPECT_EQ(got[e].first, want[e].first) << "expert " << e;
    EXPECT_EQ(got[e].count, want[e].count) << "expert " << e;
  }
}

TEST(GroupedRows, ContiguousInOrder) {
  const int32_t offs[] = {0, 3, 3, 10};
  expect_rows(fp8kit::ref::expert_rows(FP8KIT_GROUPED_CONTIGUOUS, 4, 12, offs), {{0, 0}, {0, 3}, {3, 0}, {3, 7}});
}

TEST(GroupedRows, ContiguousClampsOutOfOrderNegativeAndPastT) {
  // 5 then 2 (out of order: expert 1 gets nothing), -4 (nothing), 9 > T = 8.
  const int32_t offs[] = {5, 2, -4, 9, 7};
  expect_rows(fp8kit::ref::expert_rows(FP8KIT_GROUPED_CONTIGUOUS, 5, 8, offs),
              {{0, 5}, {5, 0}, {5, 0}, {5, 3}, {8, 0}});
}

TEST(GroupedRows, MaskedClampsToSlab) {
  const int32_t counts[] = {3, -1, 9, 4};
  expect_rows(fp8kit::ref::expert_rows(FP8KIT_GROUPED_MASKED, 4, 4, counts), {{0, 3}, {4, 0}, {8, 4}, {12, 4}});
}

// An independent computation of D[row, col]: per-element scale lookup written
// out from fp8kit.h's layouts, without the dense reference.
double direct(const fp8kit::ref::HostGrouped& g, int64_t e, int64_t row, int64_t col) {
  const bool masked = g.layout == FP8KIT_GROUPED_MASKED;
  const int64_t kb_n = fp8kit::ceil_div(g.k, 128);
  double total = 0;
  for (int64_t kb = 0; kb < kb_n; ++kb) {
    double part = 0;
    for (int64_t k = kb * 128; k < std::min(g.k, kb * 128 + 128); ++k)
      part += fp8kit::ref::decode_fp8(g.a_type, g.a[row * g.lda + k]) *
              fp8kit::ref::decode_fp8(g.b_type, g.b[(e * g.n + col) * g.ldb + k]);
    double sa = 1, sb = 1;
    if (g.a_scale_mode == FP8KIT_SCALE_TENSOR) sa = g.a_scale[e];
    if (g.a_scale_mode == FP8KIT_SCALE_ROW) sa = g.a_scale[row];
    if (g.a_scale_mode == FP8KIT_SCALE_BLOCK)
      sa = masked ? g.a_scale[(e * kb_n + kb) * g.rows + (row - e * g.rows)] : g.a_scale[kb * g.rows + row];
    if (g.b_scale_mode == FP8KIT_SCALE_TENSOR) sb = g.b_scale[e];
    if (g.b_scale_mode == FP8KIT_SCALE_COL) sb = g.b_scale[e * g.n + col];
    if (g.b_scale_mode == FP8KIT_SCALE_BLOCK) sb = g.b_scale[(e * fp8kit::ceil_div(g.n, 128) + col / 128) * kb_n + kb];
    total += part * sa * sb;
  }
  if (g.bias) total += fp8kit::ref::load_element(g.bias_type, g.bias, e * g.n + col);
  return total;
}

struct RefCase {
  fp8kit_grouped_layout layout;
  fp8kit_scale_mode a, b;
};

class GroupedReference : public ::testing::TestWithParam<RefCase> {};

TEST_P(GroupedReference, MatchesDirectComputation) {
  const RefCase rc = GetParam();
  std::mt19937_64 rng(std::random_device{}());
  const bool masked = rc.layout == FP8KIT_GROUPED_MASKED;
  const int64_t experts = 3, n = 130, k = 272, rows = masked ? 5 : 11;
  const std::vector<int32_t> groups = masked ? std::vector<int32_t>{2, 0, 5} : std::vector<int32_t>{4, 4, 9};
  const int64_t total = masked ? experts * rows : rows;
  std::vector<uint8_t> a(total * k), b(experts * n * k);
  std::uniform_int_distribution<int> byte(0, 255);
  auto finite = [&](fp8kit_dtype t) {
    for (;;) {
      const auto v = static_cast<uint8_t>(byte(rng));
      if (std::isfinite(fp8kit::ref::decode_fp8(t, v))) return v;
    }
  };
  for (auto& x : a) x = finite(FP8KIT_DTYPE_E4M3);
  for (auto& x : b) x = finite(FP8KIT_DTYPE_E5M2);
  const int64_t kb = fp8kit::ceil_div(k, 128);
  auto count = [&](fp8kit_scale_mode m, bool is_a) -> int64_t {
    if (m == FP8KIT_SCALE_TENSOR) return experts;
    if (m == FP8KIT_SCALE_ROW) return total;
    if (m == FP8KIT_SCALE_COL) return experts * n;
    if (m == FP8KIT_SCALE_BLOCK) return is_a ? kb * total : experts * fp8kit::ceil_div(n, 128) * kb;
    return 0;
  };
  std::uniform_real_distribution<float> s(0.5f, 2.0f);
  std::vector<float> sa(count(rc.a, true)), sb(count(rc.b, false)), bias(experts * n);
  for (auto& x : sa) x = s(rng);
  for (auto& x : sb) x = s(rng);
  for (auto& x : bias) x = s(rng);

  fp8kit::ref::HostGrouped g;
  g.layout = rc.layout;
  g.experts = experts; g.rows = rows; g.n = n; g.k = k;
  g.groups = groups.data();
  g.a = a.data(); g.lda = k; g.a_type = FP8KIT_DTYPE_E4M3;
  g.b = b.data(); g.ldb = k; g.b_type = FP8KIT_DTYPE_E5M2;
  g.a_scale_mode = rc.a; g.a_scale = sa.empty() ? nullptr : sa.data();
  g.b_scale_mode = rc.b; g.b_scale = sb.empty() ? nullptr : sb.data();
  g.bias = bias.data(); g.bias_type = FP8KIT_DTYPE_F32;
  const std::vector<double> d = fp8kit::ref::reference_grouped(g);
  const auto owned = fp8kit::ref::expert_rows(g.layout, experts, rows, groups.data());
  std::vector<int> owner(total, -1);
  for (int64_t e = 0; e < experts; ++e)
    for (int64_t m = 0; m < owned[e].count; ++m) owner[owned[e].first + m] = static_cast<int>(e);
  for (int64_t row = 0; row < total; ++row) {
    for (int64_t col = 0; col < n; ++col) {
      const double got = d[row * n + col];
      if (owner[row] < 0) {
        EXPECT_TRUE(std::isnan(got)) << "row " << row << " belongs to no expert";
        continue;
      }
      const double want = direct(g, owner[row], row, col);
      EXPECT_NEAR(got, want, 1e-9 * (1 + std::fabs(want))) << "D[" << row << "," << col << "]";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, GroupedReference,
    ::testing::Values(RefCase{FP8KIT_GROUPED_CONTIGUOUS, FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE},
                      RefCase{FP8KIT_GROUPED_CONTIGUOUS, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR},
                      RefCase{FP8KIT_GROUPED_CONTIGUOUS, FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL},
                      RefCase{FP8KIT_GROUPED_CONTIGUOUS, FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK},
                      RefCase{FP8KIT_GROUPED_MASKED, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_COL},
                      RefCase{FP8KIT_GROUPED_MASKED, FP8KIT_SCALE_ROW, FP8KIT_SCALE_TENSOR},
                      RefCase{FP8KIT_GROUPED_MASKED, FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK}),
    [](const auto& info) {
      return std::string(fp8kit_grouped_layout_name(info.param.layout)) + "_" +
             fp8kit_scale_mode_name(info.param.a) + "_" + fp8kit_scale_mode_name(info.param.b);
    });

}  // namespace
