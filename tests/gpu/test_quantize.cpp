// fp8kit_quantize: argument checks (CPU) and, on a GPU, every mode x input
// dtype x FP8 type, with and without the fused RMSNorm, against a float64
// host computation of the same formulas.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "fp8kit/fp8kit.h"
#include "reference/fp8_codec.hpp"
#include "reference/gemm_check.hpp"

namespace {

using fp8kit::ref::DeviceBuffer;

uintptr_t fake(uintptr_t slot) { return 0x7e0000000000ull + slot * 0x100000000ull; }

fp8kit_quantize_desc valid_desc() {
  fp8kit_quantize_desc d = FP8KIT_QUANTIZE_DESC_INIT;
  d.m = 4; d.k = 256;
  d.x = reinterpret_cast<const void*>(fake(1)); d.ldx = 256; d.x_type = FP8KIT_DTYPE_BF16;
  d.q = reinterpret_cast<void*>(fake(2)); d.ldq = 256; d.q_type = FP8KIT_DTYPE_E4M3;
  d.mode = FP8KIT_SCALE_ROW;
  d.scale = reinterpret_cast<float*>(fake(3));
  return d;
}

void expect_rejected(fp8kit_quantize_desc d, const char* needle) {
  EXPECT_EQ(fp8kit_quantize(&d, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT) << fp8kit_last_error();
  EXPECT_NE(std::string(fp8kit_last_error()).find(needle), std::string::npos) << fp8kit_last_error();
}

TEST(QuantizeValidation, RejectsEachBadArgument) {
  EXPECT_EQ(fp8kit_quantize(nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  auto d = valid_desc(); d.m = 0; expect_rejected(d, "m = 0");
  d = valid_desc(); d.k = 24; expect_rejected(d, "k = 24");
  d = valid_desc(); d.x_type = FP8KIT_DTYPE_E4M3; expect_rejected(d, "x_type = e4m3");
  d = valid_desc(); d.q_type = FP8KIT_DTYPE_BF16; expect_rejected(d, "q_type = bf16");
  d = valid_desc(); d.mode = FP8KIT_SCALE_COL; expect_rejected(d, "mode = col");
  d = valid_desc(); d.x = nullptr; expect_rejected(d, "x is NULL");
  d = valid_desc(); d.q = nullptr; expect_rejected(d, "q is NULL");
  d = valid_desc(); d.scale = nullptr; expect_rejected(d, "scale is NULL");
  d = valid_desc(); d.ldx = 200; expect_rejected(d, "ldx = 200");
  d = valid_desc(); d.ldq = 260; expect_rejected(d, "ldq = 260");
  d = valid_desc(); d.x = reinterpret_cast<const void*>(fake(1) + 8); expect_rejected(d, "x = ");
  d = valid_desc(); d.rms_weight = reinterpret_cast<const void*>(fake(4) + 1); expect_rejected(d, "rms_weight = ");
  d = valid_desc(); d.rms_weight = reinterpret_cast<const void*>(fake(4)); d.eps = -1.f; expect_rejected(d, "eps = ");
  d = valid_desc(); d.q = reinterpret_cast<void*>(fake(1) + 512); expect_rejected(d, "q overlaps x");
}

using Param = std::tuple<int /*mode*/, fp8kit_dtype /*x*/, fp8kit_dtype /*q*/, bool /*rms*/>;
class QuantizeGpu : public ::testing::TestWithParam<Param> {};

const fp8kit_scale_mode kModes[] = {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_ROW, FP8KIT_SCALE_BLOCK};

TEST_P(QuantizeGpu, MatchesHostFormula) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    GTEST_SKIP() << "no CUDA GPU on this machine";
  }
  const auto [mi, xt, qt, rms] = GetParam();
  const fp8kit_scale_mode mode = kModes[mi];
  std::mt19937_64 rng{std::random_device{}()};
  std::normal_distribution<double> nd(0, 3);
  const int64_t m = 37, k = 7168 + 16 * 3;  // K not a multiple of 128: a partial last group
  const int xb = fp8kit::ref::dtype_bytes(xt);
  std::vector<uint8_t> x(static_cast<size_t>(m * k * xb)), w(static_cast<size_t>(k * xb));
  for (int64_t i = 0; i < m * k; ++i) fp8kit::ref::store_element(xt, x.data(), i, nd(rng));
  for (int64_t i = 0; i < k; ++i) fp8kit::ref::store_element(xt, w.data(), i, 1.0 + 0.2 * nd(rng));
  // Row 5 all zero: its scales must be 1 and its values 0.
  for (int64_t i = 5 * k; i < 6 * k; ++i) fp8kit::ref::store_element(xt, x.data(), i, 0.0);
  const double fp8_max = qt == FP8KIT_DTYPE_E4M3 ? 448.0 : 57344.0;
  const int64_t groups = (k + 127) / 128;
  const int64_t n_scales = mode == FP8KIT_SCALE_ROW ? m : mode == FP8KIT_SCALE_BLOCK ? groups * m : 1;
  std::vector<float> scale(static_cast<size_t>(n_scales), 0.25f);
  DeviceBuffer dx(x.size()), dw(w.size()), dq(static_cast<size_t>(m * k)), ds(scale.size() * 4);
  dx.upload(x.data(), x.size());
  dw.upload(w.data(), w.size());
  ds.upload(scale.data(), scale.size() * 4);
  cudaMemset(dq.get(), 0x7f, static_cast<size_t>(m * k));  // NaN poison in both FP8 types
  fp8kit_quantize_desc d = FP8KIT_QUANTIZE_DESC_INIT;
  d.m = m; d.k = k;
  d.x = dx.get(); d.ldx = k; d.x_type = xt;
  d.q = dq.get(); d.ldq = k; d.q_type = qt;
  d.mode = mode; d.scale = static_cast<float*>(ds.get());
  d.rms_weight = rms ? dw.get() : nullptr; d.eps = 1e-6f;
  ASSERT_EQ(fp8kit_quantize(&d, nullptr), FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<uint8_t> q(static_cast<size_t>(m * k));
  dq.download(q.data(), q.size());
  ds.download(scale.data(), scale.size() * 4);

  // Host formula in double. The device computes in f32 (and rsqrtf), so a
  // value may land one FP8 step away at a rounding boundary: the bound is one
  // full FP8 ulp of the value plus half the smallest subnormal step.
  const double ulp = qt == FP8KIT_DTYPE_E4M3 ? 1.0 / 8 : 1.0 / 4;
  const double sub = qt == FP8KIT_DTYPE_E4M3 ? std::ldexp(1.0, -9) : std::ldexp(1.0, -16);
  int64_t bad = 0, bad_scales = 0;
  for (int64_t r = 0; r < m; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < k; ++c) ss += std::pow(fp8kit::ref::load_element(xt, x.data(), r * k + c), 2);
    const double inv_rms = rms ? 1.0 / std::sqrt(ss / k + 1e-6) : 1.0;
    std::vector<double> y(static_cast<size_t>(k));
    double amax = 0;
    for (int64_t c = 0; c < k; ++c) {
      y[c] = fp8kit::ref::load_element(xt, x.data(), r * k + c) * inv_rms *
             (rms ? fp8kit::ref::load_element(xt, w.data(), c) : 1.0);
      amax = std::max(amax, std::fabs(y[c]));
    }
    for (int64_t c = 0; c < k; ++c) {
      double s_ref;
      float s_dev;
      if (mode == FP8KIT_SCALE_TENSOR) {
        s_ref = 0.25, s_dev = scale[0];
      } else if (mode == FP8KIT_SCALE_ROW) {
        s_ref = amax > 0 ? amax / fp8_max : 1.0, s_dev = scale[r];
      } else {
        double g = 0;
        const int64_t g0 = (c / 128) * 128;
        for (int64_t i = g0; i < std::min(k, g0 + 128); ++i) g = std::max(g, std::fabs(y[i]));
        s_ref = g > 0 ? g / fp8_max : 1.0, s_dev = scale[(c / 128) * m + r];
      }
      if (std::fabs(s_dev - s_ref) > 1e-4 * s_ref) ++bad_scales;
      const double expect = std::min(std::fabs(y[c] / s_ref), fp8_max);
      const double got = std::fabs(fp8kit::ref::decode_fp8(qt, q[r * k + c]));
      if (!(std::fabs(got - expect) <= ulp * expect + sub)) ++bad;
      if (std::signbit(fp8kit::ref::decode_fp8(qt, q[r * k + c])) != std::signbit(y[c]) && got != 0) ++bad;
    }
  }
  EXPECT_EQ(bad_scales, 0);
  EXPECT_EQ(bad, 0) << "of " << m * k;
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  static const char* kNames[] = {"tensor", "row", "block"};
  return std::string(kNames[std::get<0>(info.param)]) + "_" + fp8kit_dtype_name(std::get<1>(info.param)) + "_" +
         fp8kit_dtype_name(std::get<2>(info.param)) + (std::get<3>(info.param) ? "_rmsnorm" : "");
}

INSTANTIATE_TEST_SUITE_P(All, QuantizeGpu,
                         ::testing::Combine(::testing::Range(0, 3),
                                            ::testing::Values(FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16, FP8KIT_DTYPE_F32),
                                            ::testing::Values(FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E5M2), ::testing::Bool()),
                         param_name);

}  // namespace

TEST(QuantizeValidation, GarbageEnumsAreNumbers) {
  auto d = valid_desc();
  int bad = 77;
  std::memcpy(&d.x_type, &bad, sizeof bad);
  expect_rejected(d, "x_type = 77");
}
