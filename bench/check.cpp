#include "check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

#include <cuda_runtime_api.h>

#include "reference/fp8_codec.hpp"
#include "reference/gemm_reference.hpp"

namespace fp8bench {
namespace {

// Allowed error: rounding of D to its dtype (a little over half an ulp,
// relative) plus f32 accumulation error relative to sum |a b s|. The latter is
// sized for tensor-core FP8 accumulators that keep fewer than 23 mantissa bits
// between promotions (DeepSeek-V3 report, section 3.3.2): a few times the
// 2^-14 per-step error such an accumulator makes over random signs. A wrong
// index, scale or tile shows as errors of the size of |D| itself, far above.
constexpr double kAccumulationTolerance = 0x1p-11;
constexpr double kMinTolerance = 1e-30;
constexpr size_t kMaxReferenceThreads = 16;

double rounding_tolerance(fp8kit_dtype d_type) {
  switch (d_type) {
    case FP8KIT_DTYPE_BF16: return 0x1p-7;
    case FP8KIT_DTYPE_F16: return 0x1p-10;
    default: return 0x1p-20;
  }
}

}  // namespace

SampleSet draw_samples(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, const uint8_t* b,
                       int64_t ldb, int count, uint64_t seed) {
  SampleSet s;
  s.m = m;
  s.n = n;
  s.k = k;
  const std::pair<int64_t, int64_t> corners[] = {{0, 0}, {m - 1, n - 1}, {0, n - 1}, {m - 1, 0}};
  for (const auto& c : corners)
    if (static_cast<int>(s.entries.size()) < count &&
        std::find(s.entries.begin(), s.entries.end(), c) == s.entries.end())
      s.entries.push_back(c);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> pick_m(0, m - 1), pick_n(0, n - 1);
  while (static_cast<int>(s.entries.size()) < count) s.entries.emplace_back(pick_m(rng), pick_n(rng));

  for (const auto& [row, col] : s.entries) {
    if (!s.a_rows.count(row)) {
      auto& v = s.a_rows[row];
      v.resize(k);
      BENCH_CUDA(cudaMemcpy(v.data(), a + row * lda, k, cudaMemcpyDeviceToHost));
    }
    if (!s.b_rows.count(col)) {
      auto& v = s.b_rows[col];
      v.resize(k);
      BENCH_CUDA(cudaMemcpy(v.data(), b + col * ldb, k, cudaMemcpyDeviceToHost));
    }
  }
  return s;
}

Expected expected_values(const SampleSet& s, const HostOperands& ops, fp8kit_dtype d_type) {
  Expected e;
  const size_t count = s.entries.size();
  e.value.resize(count);
  e.tolerance.resize(count);
  const int64_t kb_count = ceil_div(s.k, kScaleBlock);
  // Entries are independent: split them over the host's cores.
  auto work = [&](size_t first, size_t step) {
    std::vector<float> a_block(kb_count);
    for (size_t i = first; i < count; i += step) {
      const auto [row, col] = s.entries[i];
      // A 1 x 1 problem over row `row` of A and row `col` of B, with the
      // scales of that entry gathered so the reference indexes them at (0, 0).
      fp8kit::ref::HostGemm g;
      g.m = 1;
      g.n = 1;
      g.k = s.k;
      g.a = s.a_rows.at(row).data();
      g.lda = s.k;
      g.b = s.b_rows.at(col).data();
      g.ldb = s.k;
      g.a_type = g.b_type = FP8KIT_DTYPE_E4M3;
      g.a_scale_mode = a_scale_mode(ops.mode);
      g.b_scale_mode = b_scale_mode(ops.mode);
      switch (ops.mode) {
        case Mode::Tensor:
          g.a_scale = ops.a_scale.data();
          g.b_scale = ops.b_scale.data();
          break;
        case Mode::TokenChannel:
          g.a_scale = &ops.a_scale[row];
          g.b_scale = &ops.b_scale[col];
          break;
        case Mode::Block:
          for (int64_t kb = 0; kb < kb_count; ++kb) a_block[kb] = ops.a_scale[kb * s.m + row];
          g.a_scale = a_block.data();
          g.b_scale = &ops.b_scale[(col / kScaleBlock) * kb_count];
          break;
      }
      if (!ops.bias.empty()) {
        g.bias = &ops.bias[col];
        g.bias_type = ops.bias_type;
      }
      const double value = fp8kit::ref::reference_element(g, 0, 0);
      const double magnitude = fp8kit::ref::reference_magnitude(g, 0, 0);
      e.value[i] = value;
      e.tolerance[i] =
          rounding_tolerance(d_type) * std::fabs(value) + kAccumulationTolerance * magnitude + kMinTolerance;
    }
  };
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, kMaxReferenceThreads);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work, t, threads);
  work(0, threads);
  for (auto& t : pool) t.join();
  return e;
}

CheckResult check_output(const SampleSet& s, const Expected& e, const void* d, int64_t ldd, fp8kit_dtype d_type) {
  CheckResult r;
  const int bytes = dtype_bytes(d_type);
  for (size_t i = 0; i < s.entries.size(); ++i) {
    const auto [row, col] = s.entries[i];
    uint32_t raw = 0;
    BENCH_CUDA(cudaMemcpy(&raw, static_cast<const char*>(d) + (row * ldd + col) * bytes, bytes,
                          cudaMemcpyDeviceToHost));
    const double got = fp8kit::ref::load_element(d_type, &raw, 0);
    const double err = std::fabs(got - e.value[i]);
    const double ratio = std::isfinite(got) ? err / e.tolerance[i] : INFINITY;
    r.worst = std::max(r.worst, ratio);
    if (!(ratio <= 1.0)) {
      if (r.pass) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "D[%lld,%lld] = %.6g, reference %.6g (allowed error %.3g)",
                      static_cast<long long>(row), static_cast<long long>(col), got, e.value[i], e.tolerance[i]);
        r.first_failure = msg;
      }
      r.pass = false;
      ++r.failures;
    }
  }
  return r;
}

}  // namespace fp8bench
