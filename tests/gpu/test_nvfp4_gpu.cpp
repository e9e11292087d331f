// GPU correctness of the NVFP4 paths: dense (W4A4 and W4A16, every output
// dtype, both scale layouts, ragged shapes, decode M), grouped (masked and
// contiguous, ragged and empty experts) and the quantiser (bit for bit
// against the host reference), against the float64 reference of the
// dequantised operands. Skipped without a GPU; the sm120_mma cases (named
// *Sm120*) skip themselves on GPUs outside the SM12x family.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/dtype.hpp"
#include "core/environment.hpp"
#include "core/nvfp4_layout.hpp"
#include "reference/fp8_codec.hpp"
#include "reference/nvfp4_check.hpp"
#include "test_expect.hpp"
#include "test_rng.hpp"

using fp8kit::ref::GemmOutcome;
using fp8kit::ref::Nvfp4Case;

namespace {

using fp8kit::test::rng;

using fp8kit::test::expect_nvfp4_correct;

constexpr fp8kit_dtype kATypes[] = {FP8KIT_DTYPE_NVFP4, FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16};
constexpr fp8kit_dtype kOuts[] = {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16, FP8KIT_DTYPE_F32};
struct Shape {
  int64_t m, n, k;
};
// Decode (M 1 .. 16: the decode tiles; on Hopper the wgmma decode kernel
// from 9 tokens, and below where it splits K little), ragged edges in every dimension, K with a half stage (K % 64 ==
// 32) and with a last decode chunk of one to three granules of 32 (K % 128
// != 0) after more chunks than a CTA's warps take at once, several M tiles;
// Hopper's wgmma tile (M >= 64: 256 tokens x 128 weights, 5 stages) with
// ragged token and weight tiles and more K blocks than stages.
constexpr Shape kShapes[] = {{1, 64, 32},     {3, 333, 96},   {16, 1000, 256}, {31, 130, 608},
                             {129, 257, 160}, {300, 64, 512}, {5, 250, 4128},  {9, 96, 2080},
                             {520, 136, 1056}, {64, 200, 2080}};
constexpr int kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]);

using DenseParam = std::tuple<fp8kit_path, int /*a*/, int /*out*/, int /*shape*/>;
class Nvfp4Dense : public ::testing::TestWithParam<DenseParam> {};

TEST_P(Nvfp4Dense, MatchesReference) {
  const auto [path, ai, oi, si] = GetParam();
  Nvfp4Case c{kShapes[si].m, kShapes[si].n, kShapes[si].k};
  c.a_type = kATypes[ai];
  c.d_type = kOuts[oi];
  c.bias = (si % 2) == 1;
  c.a_layout = (si % 3) == 2 ? FP8KIT_NVFP4_SCALES_LINEAR : FP8KIT_NVFP4_SCALES_SWIZZLED;
  c.b_layout = (si % 2) == 0 ? FP8KIT_NVFP4_SCALES_LINEAR : FP8KIT_NVFP4_SCALES_SWIZZLED;
  if (path == FP8KIT_PATH_SM120_MMA && c.a_type != FP8KIT_DTYPE_NVFP4) GTEST_SKIP() << "sm120_mma is W4A4 only";
  expect_nvfp4_correct(c, path);
}

std::string dense_name(const ::testing::TestParamInfo<DenseParam>& info) {
  const auto [path, ai, oi, si] = info.param;
  const char* p = path == FP8KIT_PATH_SM120_MMA   ? "Sm120"
                  : path == FP8KIT_PATH_SM75_HMMA  ? "Hmma"
                  : path == FP8KIT_PATH_SM90_WGMMA ? "Wgmma"
                                                   : "Auto";
  const Shape& s = kShapes[si];
  return std::string(p) + "_" + fp8kit_dtype_name(kATypes[ai]) + "_" + fp8kit_dtype_name(kOuts[oi]) + "_" +
         std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

INSTANTIATE_TEST_SUITE_P(Paths, Nvfp4Dense,
                         ::testing::Combine(::testing::Values(FP8KIT_PATH_AUTO, FP8KIT_PATH_SM120_MMA,
                                                              FP8KIT_PATH_SM75_HMMA, FP8KIT_PATH_SM90_WGMMA),
                                            ::testing::Range(0, 3), ::testing::Range(0, 3), ::testing::Range(0, kShapeCount)),
                         dense_name);

TEST(Nvfp4Dense, PaddedLeadingDimensionsAndNoAlpha) {
  Nvfp4Case c{17, 200, 128};
  c.lda_pad = 16, c.ldb_pad = 48, c.ldd_pad = 8, c.alpha = false;
  expect_nvfp4_correct(c, FP8KIT_PATH_AUTO);
  c.a_type = FP8KIT_DTYPE_BF16, c.lda_pad = 8;
  expect_nvfp4_correct(c, FP8KIT_PATH_AUTO);
}

// Hopper's wgmma tile with padded rows (TMA strides past the row) and N
// ending inside a 16-byte piece of D (element stores at the edge).
TEST(Nvfp4Dense, WgmmaPaddedRows) {
  for (fp8kit_dtype a : {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16}) {
    Nvfp4Case c{100, 203, 128};
    c.a_type = a, c.lda_pad = 8, c.ldb_pad = 16, c.ldd_pad = 5, c.bias = true;
    expect_nvfp4_correct(c, FP8KIT_PATH_SM90_WGMMA);
    c.b_layout = FP8KIT_NVFP4_SCALES_LINEAR;
    expect_nvfp4_correct(c, FP8KIT_PATH_SM90_WGMMA);
  }
}

// Hopper's NVFP4 A beyond decode: widened to bf16 in the lent (poisoned)
// workspace, then the W4A16 kernels; ragged rows and weights, padded A rows,
// both A scale layouts, every output type, a bias, both token tiles' sizes.
TEST(Nvfp4Dense, WgmmaWidensW4a4BeyondDecode) {
  const Shape shapes[] = {{64, 200, 2080}, {129, 257, 160}, {300, 64, 512}, {1000, 520, 1056}};
  for (int i = 0; i < 4; ++i) {
    Nvfp4Case c{shapes[i].m, shapes[i].n, shapes[i].k};
    c.a_layout = i % 2 ? FP8KIT_NVFP4_SCALES_LINEAR : FP8KIT_NVFP4_SCALES_SWIZZLED;
    c.lda_pad = i % 2 ? 0 : 32;
    c.d_type = kOuts[i % 3];
    c.bias = i % 2 == 0;
    SCOPED_TRACE(c.label());
    expect_nvfp4_correct(c, FP8KIT_PATH_SM90_WGMMA);
  }
}

// The workspace rule of that widening: M x K x 2 bytes asked, 0 at decode
// sizes and for 16-bit A; without enough (or with a zeroed one, kept for
// split-K counters) AUTO runs sm75_hmma and a forced sm90_wgmma is refused
// naming the workspace; with it AUTO runs sm90_wgmma.
TEST(Nvfp4Dense, WgmmaW4a4WorkspaceRule) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  const Nvfp4Case c{129, 256, 512};
  const fp8kit::ref::Nvfp4Problem problem(c, rng());
  fp8kit_gemm_options o = FP8KIT_GEMM_OPTIONS_INIT;
  size_t bytes = 1;
  ASSERT_EQ(fp8kit_nvfp4_gemm_workspace_size(&problem.desc(), &o, &bytes), FP8KIT_STATUS_SUCCESS);
  auto chosen = [&](fp8kit_path path, fp8kit_status* status) {
    o.path = path;
    fp8kit_path out = FP8KIT_PATH_AUTO;
    *status = fp8kit_nvfp4_gemm_select(&problem.desc(), &o, &out);
    return out;
  };
  fp8kit_status s = FP8KIT_STATUS_SUCCESS;
  if (bytes == 0) {
    EXPECT_NE(chosen(FP8KIT_PATH_AUTO, &s), FP8KIT_PATH_SM90_WGMMA);
    GTEST_SKIP() << "sm90_wgmma does not run on this GPU";
  }
  EXPECT_EQ(bytes, size_t{129} * 512 * 2);
  EXPECT_EQ(chosen(FP8KIT_PATH_AUTO, &s), FP8KIT_PATH_SM75_HMMA);
  chosen(FP8KIT_PATH_SM90_WGMMA, &s);
  EXPECT_EQ(s, FP8KIT_STATUS_UNSUPPORTED);
  EXPECT_NE(std::string(fp8kit_last_error()).find("workspace"), std::string::npos) << fp8kit_last_error();
  fp8kit::ref::DeviceBuffer w(bytes);
  o.workspace = w.get(), o.workspace_size = bytes - 1;
  chosen(FP8KIT_PATH_SM90_WGMMA, &s);
  EXPECT_EQ(s, FP8KIT_STATUS_UNSUPPORTED) << "one byte short";
  o.workspace_size = bytes;
  EXPECT_EQ(chosen(FP8KIT_PATH_AUTO, &s), FP8KIT_PATH_SM90_WGMMA);
  o.workspace_zeroed = 1;
  EXPECT_EQ(chosen(FP8KIT_PATH_AUTO, &s), FP8KIT_PATH_SM75_HMMA) << "a zeroed workspace is never widened into";
  o.workspace_zeroed = 0, o.path = FP8KIT_PATH_AUTO;
  for (const Nvfp4Case& none : {Nvfp4Case{16, 256, 512}, Nvfp4Case{129, 256, 512, FP8KIT_DTYPE_BF16}}) {
    const fp8kit::ref::Nvfp4Problem p(none, rng());
    ASSERT_EQ(fp8kit_nvfp4_gemm_workspace_size(&p.desc(), &o, &bytes), FP8KIT_STATUS_SUCCESS);
    EXPECT_EQ(bytes, 0u) << none.label();
  }
}

// ---- Grouped --------------------------------------------------------------

struct GroupedRun {
  fp8kit_grouped_layout layout;
  fp8kit_dtype a_type;
  fp8kit_path path;
  fp8kit_dtype d_type = FP8KIT_DTYPE_BF16;
  fp8kit_nvfp4_scale_layout scales = FP8KIT_NVFP4_SCALES_SWIZZLED;
  bool bias = false;  // a bf16 bias [E, N]
  bool workspace = true;  // lend what fp8kit_nvfp4_grouped_gemm_workspace_size asks for, poisoned
};

// E experts with the given row counts (masked: counts up to max_m; contiguous:
// ends), every output checked against its expert's reference.
void run_grouped(const GroupedRun& run, const std::vector<int>& rows, int64_t n, int64_t k) {
  using namespace fp8kit;
  if (!ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  const bool masked = run.layout == FP8KIT_GROUPED_MASKED;
  const bool a4 = run.a_type == FP8KIT_DTYPE_NVFP4;
  const int64_t e_count = static_cast<int64_t>(rows.size());
  const int64_t max_m = std::max<int64_t>(1, *std::max_element(rows.begin(), rows.end()));
  int64_t total = 0;
  for (int r : rows) total += r;
  const int64_t t_rows = masked ? e_count * max_m : total;
  const int64_t lda = a4 ? k / 2 : k, ldb = k / 2, ldd = n;
  const auto layout = run.scales;
  const int64_t d_bytes_each = fp8kit::dtype_bytes(run.d_type);
  // A as one [t_rows, k] operand (contiguous) or E of [max_m, k] (masked).
  std::vector<uint8_t> a, sa, b, sb;
  if (a4) {
    if (masked) {
      for (int64_t e = 0; e < e_count; ++e) {
        std::vector<uint8_t> ae, se;
        ref::fill_random_nvfp4(max_m, k, lda, layout, rng(), &ae, &se);
        a.insert(a.end(), ae.begin(), ae.end());
        sa.insert(sa.end(), se.begin(), se.end());
      }
    } else {
      ref::fill_random_nvfp4(std::max<int64_t>(t_rows, 1), k, lda, layout, rng(), &a, &sa);
    }
  } else {
    a.assign(static_cast<size_t>(std::max<int64_t>(t_rows, 1) * lda * 2), 0);
    std::normal_distribution<double> nd(0, 1);
    for (int64_t i = 0; i < t_rows * k; ++i) ref::store_element(run.a_type, a.data(), i, nd(rng()));
  }
  for (int64_t e = 0; e < e_count; ++e) {
    std::vector<uint8_t> be, se;
    ref::fill_random_nvfp4(n, k, ldb, layout, rng(), &be, &se);
    b.insert(b.end(), be.begin(), be.end());
    sb.insert(sb.end(), se.begin(), se.end());
  }
  std::vector<float> alpha(static_cast<size_t>(e_count));
  for (int64_t e = 0; e < e_count; ++e) alpha[e] = static_cast<float>((1.0 + 0.25 * e) / std::sqrt(double(k)));
  std::vector<uint16_t> bias(run.bias ? static_cast<size_t>(e_count * n) : 0);
  {
    std::normal_distribution<double> nd(0, 1);
    for (size_t i = 0; i < bias.size(); ++i) ref::store_element(FP8KIT_DTYPE_BF16, bias.data(), int64_t(i), nd(rng()));
  }
  std::vector<int32_t> groups(static_cast<size_t>(e_count));
  int32_t end = 0;
  for (int64_t e = 0; e < e_count; ++e) groups[e] = masked ? rows[e] : (end += rows[e]);
  const size_t d_bytes = static_cast<size_t>(std::max<int64_t>(t_rows, 1) * ldd * d_bytes_each);
  ref::DeviceBuffer da(a.size()), dsa(std::max<size_t>(sa.size(), 1)), db(b.size()), dsb(sb.size()),
      dalpha(alpha.size() * 4), dg(groups.size() * 4), dd(d_bytes), dbias(std::max<size_t>(bias.size() * 2, 1));
  if (run.bias) dbias.upload(bias.data(), bias.size() * 2);
  da.upload(a.data(), a.size());
  if (!sa.empty()) dsa.upload(sa.data(), sa.size());
  db.upload(b.data(), b.size());
  dsb.upload(sb.data(), sb.size());
  dalpha.upload(alpha.data(), alpha.size() * 4);
  dg.upload(groups.data(), groups.size() * 4);
  cudaMemset(dd.get(), ref::kPoisonByte, d_bytes);

  fp8kit_nvfp4_grouped_gemm_desc d = FP8KIT_NVFP4_GROUPED_GEMM_DESC_INIT;
  d.layout = run.layout, d.experts = e_count, d.rows = masked ? max_m : t_rows, d.n = n, d.k = k;
  (masked ? d.counts : d.offs) = static_cast<const int32_t*>(dg.get());
  d.op.a = da.get(), d.op.lda = lda, d.op.a_type = run.a_type;
  d.op.a_scale = a4 ? dsa.get() : nullptr, d.op.a_scale_layout = layout;
  d.op.b = db.get(), d.op.ldb = ldb, d.op.b_type = FP8KIT_DTYPE_NVFP4;
  d.op.b_scale = dsb.get(), d.op.b_scale_layout = layout;
  d.op.alpha = static_cast<const float*>(dalpha.get());
  d.op.d = dd.get(), d.op.ldd = ldd, d.op.d_type = run.d_type;
  if (run.bias) d.op.bias = dbias.get(), d.op.bias_type = FP8KIT_DTYPE_BF16;
  fp8kit_gemm_options o = FP8KIT_GEMM_OPTIONS_INIT;
  o.path = run.path;
  o.checked = 1;
  size_t lent = 0;
  fp8kit_status s = run.workspace ? fp8kit_nvfp4_grouped_gemm_workspace_size(&d, &o, &lent) : FP8KIT_STATUS_SUCCESS;
  ref::DeviceBuffer workspace(std::max<size_t>(lent, 1));
  if (lent) {
    cudaMemset(workspace.get(), ref::kPoisonByte, lent);
    o.workspace = workspace.get(), o.workspace_size = lent;
  }
  if (s == FP8KIT_STATUS_SUCCESS) s = fp8kit_nvfp4_grouped_gemm(&d, &o, nullptr);
  if (s == FP8KIT_STATUS_UNSUPPORTED && run.path != FP8KIT_PATH_AUTO)
    GTEST_SKIP() << fp8kit_path_name(run.path) << " cannot run here: " << fp8kit_last_error();
  ASSERT_EQ(s, FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
  std::vector<uint8_t> out(d_bytes);
  dd.download(out.data(), d_bytes);

  const int64_t b_scale_each = nvfp4::scale_bytes(n, k, layout);
  const int64_t a_scale_each = nvfp4::scale_bytes(max_m, k, layout);
  GemmOutcome r;
  ref::NormSums sums;
  int64_t row0 = 0;
  for (int64_t e = 0; e < e_count; ++e) {
    ref::HostNvfp4Gemm g;
    g.m = rows[e], g.n = n, g.k = k, g.alpha = alpha[e];
    const int64_t first = masked ? e * max_m : row0;
    if (a4) {
      // Masked: expert e's own scale matrix; contiguous: rows of the whole one.
      g.a = masked ? ref::HostNvfp4Operand{run.a_type, a.data() + first * lda, lda, sa.data() + e * a_scale_each, layout}
                   : ref::HostNvfp4Operand{run.a_type, a.data(), lda, sa.data(), layout};
    } else {
      g.a = ref::HostNvfp4Operand{run.a_type, a.data() + first * lda * 2, lda, nullptr, layout};
    }
    g.b = ref::HostNvfp4Operand{FP8KIT_DTYPE_NVFP4, b.data() + e * n * ldb, ldb, sb.data() + e * b_scale_each, layout};
    const int64_t a_row_base = (a4 && !masked) ? first : 0;  // contiguous NVFP4 A indexes the whole matrix
    for (int64_t m = 0; m < rows[e]; ++m)
      for (int64_t col = 0; col < n; ++col) {
        const double got = ref::load_element(run.d_type, out.data(), (first + m) * ldd + col);
        const int64_t am = a_row_base + m;
        double v = 0, mag = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          const double p = g.a.at(am, kk, k) * g.b.at(col, kk, k);
          v += p, mag += std::fabs(p);
        }
        const double bv = run.bias ? ref::load_element(FP8KIT_DTYPE_BF16, bias.data(), e * n + col) : 0.0;
        ref::check_value(v * g.alpha + bv, mag * g.alpha + std::fabs(bv), k, run.d_type, run.path, first + m, col, got,
                         &r, &sums);
      }
    row0 += rows[e];
  }
  EXPECT_EQ(r.failures, 0) << r.failures << " of " << r.checked << "; first " << r.first_failure;
  EXPECT_GT(r.checked, 0);
}

using GroupedParam = std::tuple<fp8kit_path, int /*layout*/, int /*a*/>;
class Nvfp4Grouped : public ::testing::TestWithParam<GroupedParam> {};

TEST_P(Nvfp4Grouped, RaggedAndEmptyExperts) {
  const auto [path, li, ai] = GetParam();
  const GroupedRun run{li ? FP8KIT_GROUPED_MASKED : FP8KIT_GROUPED_CONTIGUOUS, kATypes[ai], path};
  if (path == FP8KIT_PATH_SM120_MMA && run.a_type != FP8KIT_DTYPE_NVFP4) GTEST_SKIP() << "sm120_mma is W4A4 only";
  run_grouped(run, {5, 0, 1, 37, 16}, 136, 96);   // decode-sized experts, one empty
  run_grouped(run, {3, 0, 8, 1}, 200, 1088);      // decode tiles only (<= 8 rows per expert)
  run_grouped(run, {130, 0, 64}, 72, 256);         // prefill-sized experts
}

// Hopper's grouped kernel (sm90_wgmma: prefill-sized experts, W4A16): tiny,
// empty and tile-straddling experts among large ones, a weight tile past N
// (its boxes reach the next expert's rows), a K tail of half a stage, both
// token tiles (forced through FP8KIT_NVFP4_SM90_TOKENS), every output type,
// linear scales and a bias.
TEST(Nvfp4Grouped, WgmmaPrefillExperts) {
  const std::vector<int> rows{300, 0, 1, 77, 129, 256, 64};
  for (const char* tokens : {"128", "256"}) {
    setenv("FP8KIT_NVFP4_SM90_TOKENS", tokens, 1);
    fp8kit::reload_environment();
    SCOPED_TRACE(std::string(tokens) + "-token tiles");
    for (int layout = 0; layout < 2; ++layout)
      for (fp8kit_dtype a : {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16}) {
        const auto l = layout ? FP8KIT_GROUPED_MASKED : FP8KIT_GROUPED_CONTIGUOUS;
        run_grouped({l, a, FP8KIT_PATH_SM90_WGMMA}, rows, 200, 1056);
        run_grouped({l, a, FP8KIT_PATH_SM90_WGMMA, FP8KIT_DTYPE_F32, FP8KIT_NVFP4_SCALES_LINEAR, true}, rows, 136,
                    320);
        run_grouped({l, a, FP8KIT_PATH_SM90_WGMMA, FP8KIT_DTYPE_F16, FP8KIT_NVFP4_SCALES_SWIZZLED, true}, {512, 700},
                    384, 256);
      }
  }
  unsetenv("FP8KIT_NVFP4_SM90_TOKENS");
  fp8kit::reload_environment();
}

// Hopper's grouped NVFP4 A (W4A4) widened to bf16 in the lent workspace:
// every row of A (contiguous T; masked E slabs, each its own scale matrix),
// then the grouped W4A16 kernel; ragged, empty and tile-straddling experts,
// linear scales, f32 out and a bias.
TEST(Nvfp4Grouped, WgmmaWidensW4a4Experts) {
  const std::vector<int> rows{300, 0, 1, 77, 129, 256, 64};
  for (int layout = 0; layout < 2; ++layout) {
    const auto l = layout ? FP8KIT_GROUPED_MASKED : FP8KIT_GROUPED_CONTIGUOUS;
    SCOPED_TRACE(layout ? "masked" : "contiguous");
    run_grouped({l, FP8KIT_DTYPE_NVFP4, FP8KIT_PATH_SM90_WGMMA}, rows, 200, 1056);
    run_grouped({l, FP8KIT_DTYPE_NVFP4, FP8KIT_PATH_SM90_WGMMA, FP8KIT_DTYPE_F32, FP8KIT_NVFP4_SCALES_LINEAR, true},
                rows, 136, 320);
  }
}

std::string grouped_name(const ::testing::TestParamInfo<GroupedParam>& info) {
  const fp8kit_path path = std::get<0>(info.param);
  const char* p = path == FP8KIT_PATH_SM120_MMA   ? "Sm120"
                  : path == FP8KIT_PATH_SM75_HMMA  ? "Hmma"
                  : path == FP8KIT_PATH_SM90_WGMMA ? "Wgmma"
                                                   : "Auto";
  return std::string(p) + (std::get<1>(info.param) ? "_masked_" : "_contiguous_") +
         fp8kit_dtype_name(kATypes[std::get<2>(info.param)]);
}

INSTANTIATE_TEST_SUITE_P(Paths, Nvfp4Grouped,
                         ::testing::Combine(::testing::Values(FP8KIT_PATH_AUTO, FP8KIT_PATH_SM120_MMA,
                                                              FP8KIT_PATH_SM75_HMMA, FP8KIT_PATH_SM90_WGMMA),
                                            ::testing::Range(0, 2), ::testing::Range(0, 3)),
                         grouped_name);

// ---- Quantiser --------------------------------------------------------------

void run_quantize(int64_t m, int64_t k, fp8kit_dtype x_type, fp8kit_nvfp4_scale_layout layout, bool rms) {
  using namespace fp8kit;
  if (!ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  std::normal_distribution<double> nd(0, 2);
  std::vector<uint16_t> xh(static_cast<size_t>(m * k)), wh(static_cast<size_t>(k));
  std::vector<float> x(xh.size()), w;
  for (size_t i = 0; i < xh.size(); ++i) {
    ref::store_element(x_type, xh.data(), static_cast<int64_t>(i), nd(rng()));
    x[i] = static_cast<float>(ref::load_element(x_type, xh.data(), static_cast<int64_t>(i)));
  }
  if (rms) {
    w.resize(static_cast<size_t>(k));
    for (int64_t i = 0; i < k; ++i) {
      ref::store_element(x_type, wh.data(), i, 1.0 + 0.1 * nd(rng()));
      w[i] = static_cast<float>(ref::load_element(x_type, wh.data(), i));
    }
  }
  const float g = 448.f * 6.f / 8.f;
  std::vector<uint8_t> want_q, want_s;
  ref::nvfp4_quantize_reference(x, m, k, g, w, 1e-6f, layout, &want_q, &want_s);
  ref::DeviceBuffer dx(xh.size() * 2), dw(wh.size() * 2), dq(want_q.size()), ds(want_s.size()), dg(4);
  dx.upload(xh.data(), xh.size() * 2);
  dw.upload(wh.data(), wh.size() * 2);
  dg.upload(&g, 4);
  cudaMemset(ds.get(), 0xff, want_s.size());
  fp8kit_nvfp4_quantize_desc d = FP8KIT_NVFP4_QUANTIZE_DESC_INIT;
  d.m = m, d.k = k, d.x = dx.get(), d.ldx = k, d.x_type = x_type;
  d.q = dq.get(), d.ldq = k / 2, d.q_type = FP8KIT_DTYPE_NVFP4;
  d.scale = ds.get(), d.scale_layout = layout, d.global_scale = static_cast<const float*>(dg.get());
  d.rms_weight = rms ? dw.get() : nullptr, d.eps = 1e-6f;
  ASSERT_EQ(fp8kit_nvfp4_quantize(&d, nullptr), FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
  std::vector<uint8_t> q(want_q.size()), s(want_s.size());
  dq.download(q.data(), q.size());
  ds.download(s.data(), s.size());
  if (!rms) {
    EXPECT_EQ(q, want_q) << "packed values differ from the host reference";
    EXPECT_EQ(s, want_s) << "scales (with the swizzled padding) differ from the host reference";
    return;
  }
  // RMSNorm: the row's 1/rms differs in its last bits (the device's reduction
  // order, rsqrtf): codes may differ by one step where a value sits on a
  // rounding edge, scales by one E4M3 step.
  int64_t far = 0;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t kb = 0; kb < k / 16; ++kb) {
      const int a = ref::scale_byte(s.data(), layout, r, kb, k), b = ref::scale_byte(want_s.data(), layout, r, kb, k);
      far += std::abs(a - b) > 1;
    }
  EXPECT_EQ(far, 0);
}

TEST(Nvfp4Quantize, MatchesTheHostReference) {
  for (auto x : {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16})
    for (auto layout : {FP8KIT_NVFP4_SCALES_SWIZZLED, FP8KIT_NVFP4_SCALES_LINEAR}) {
      run_quantize(1, 16, x, layout, false);
      run_quantize(130, 80, x, layout, false);
      run_quantize(7, 4096, x, layout, false);
      run_quantize(33, 272, x, layout, true);
    }
}

}  // namespace
