#include "gpu_harness.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "reference/fp8_codec.hpp"
#include "reference/gemm_reference.hpp"

namespace fp8kit::test {
namespace {

constexpr uint8_t kPoisonByte = 0xff;          // NaN in bf16, f16 and f32 (all-ones)
constexpr size_t kGuardBytes = 256;            // canary after each output buffer
constexpr double kU24 = 1.0 / (1 << 24);       // f32 unit roundoff
constexpr double kMaxInputMagnitude = 448.0;   // keep e5m2 inputs in e4m3's range: no f16 overflow
constexpr double kWildFraction = 0.05;         // share of inputs drawn from the whole FP8 range

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

double out_unit(fp8kit_dtype t) {
  switch (t) {
    case FP8KIT_DTYPE_BF16: return 1.0 / 256;
    case FP8KIT_DTYPE_F16: return 1.0 / 2048;
    default: return kU24;
  }
}

double out_tiny(fp8kit_dtype t) {
  switch (t) {
    case FP8KIT_DTYPE_BF16: return std::ldexp(1.0, -133);
    case FP8KIT_DTYPE_F16: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -149);
  }
}

// Accumulation factor per path: how many f32 roundings one accumulation step
// may cost. IEEE f32 FMA chains: 1. Hopper's FP8 wgmma accumulates with
// reduced precision between promotions (DeepGEMM measured about 14 bits);
// its bound is widened accordingly.
double acc_factor(fp8kit_path path) { return path == FP8KIT_PATH_SM90_WGMMA ? 1024.0 : 2.0; }

uint8_t random_fp8(fp8kit_dtype t, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  if (u(rng) < kWildFraction) {
    // Any finite byte whose magnitude stays <= 448: subnormals, extremes.
    for (;;) {
      const auto b = static_cast<uint8_t>(rng());
      const double v = ref::decode_fp8(t, b);
      if (std::isfinite(v) && std::fabs(v) <= kMaxInputMagnitude) return b;
    }
  }
  std::normal_distribution<double> n(0, 1);
  return ref::encode_fp8(t, n(rng), true);
}

}  // namespace

bool gpu_available() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();
  return ok;
}

DeviceBuffer::DeviceBuffer(size_t bytes) { check_cuda(cudaMalloc(&ptr_, bytes ? bytes : 1), "cudaMalloc"); }
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}
void DeviceBuffer::upload(const void* src, size_t bytes) {
  check_cuda(cudaMemcpy(ptr_, src, bytes, cudaMemcpyHostToDevice), "upload");
}
void DeviceBuffer::download(void* dst, size_t bytes) const {
  check_cuda(cudaMemcpy(dst, ptr_, bytes, cudaMemcpyDeviceToHost), "download");
}

std::string GemmCase::label() const {
  std::ostringstream s;
  s << m << "x" << n << "x" << k << " " << fp8kit_dtype_name(a_type) << "*" << fp8kit_dtype_name(b_type) << "->"
    << fp8kit_dtype_name(d_type) << " scales " << fp8kit_scale_mode_name(a_mode) << "/" << fp8kit_scale_mode_name(b_mode)
    << (bias ? std::string(" bias ") + fp8kit_dtype_name(bias_type) : std::string());
  return s.str();
}

GemmOutcome run_case(const GemmCase& c, fp8kit_path path, std::mt19937_64& rng, int64_t full_check_limit,
                     int samples) {
  GemmOutcome out;
  const int ob = ref::dtype_bytes(c.d_type);
  const int64_t lda = c.k + c.lda_pad, ldb = c.k + c.ldb_pad, ldd = c.n + c.ldd_pad;
  std::vector<uint8_t> a(static_cast<size_t>(c.m * lda)), b(static_cast<size_t>(c.n * ldb));
  for (auto& x : a) x = random_fp8(c.a_type, rng);
  for (auto& x : b) x = random_fp8(c.b_type, rng);
  std::uniform_real_distribution<double> scale_dist(0.25, 2.0);
  std::vector<float> sa(static_cast<size_t>(ref::a_scale_count(c.a_mode, c.m, c.k)));
  std::vector<float> sb(static_cast<size_t>(ref::b_scale_count(c.b_mode, c.n, c.k)));
  // Scales near 1/sqrt(K) keep outputs O(1) for every output dtype.
  const double norm = 1.0 / std::sqrt(static_cast<double>(c.k));
  for (auto& x : sa) x = static_cast<float>(scale_dist(rng) * std::sqrt(norm));
  for (auto& x : sb) x = static_cast<float>(scale_dist(rng) * std::sqrt(norm));
  const int bias_bytes = ref::dtype_bytes(c.bias_type);
  std::vector<uint8_t> bias(c.bias ? static_cast<size_t>(c.n * bias_bytes) : 0);
  std::normal_distribution<double> nd(0, 1);
  for (int64_t i = 0; c.bias && i < c.n; ++i) ref::store_element(c.bias_type, bias.data(), i, nd(rng));

  const size_t d_bytes = static_cast<size_t>(c.m * ldd * ob);
  DeviceBuffer da(a.size()), db(b.size()), dd(d_bytes + kGuardBytes), dsa(sa.size() * 4), dsb(sb.size() * 4),
      dbias(bias.size());
  da.upload(a.data(), a.size());
  db.upload(b.data(), b.size());
  if (!sa.empty()) dsa.upload(sa.data(), sa.size() * 4);
  if (!sb.empty()) dsb.upload(sb.data(), sb.size() * 4);
  if (!bias.empty()) dbias.upload(bias.data(), bias.size());
  check_cuda(cudaMemset(dd.get(), kPoisonByte, d_bytes + kGuardBytes), "poison d");

  fp8kit_gemm_desc d{};
  d.m = c.m; d.n = c.n; d.k = c.k;
  d.a = da.get(); d.lda = lda; d.a_type = c.a_type;
  d.b = db.get(); d.ldb = ldb; d.b_type = c.b_type;
  d.d = dd.get(); d.ldd = ldd; d.d_type = c.d_type;
  d.a_scale_mode = c.a_mode; d.a_scale = sa.empty() ? nullptr : static_cast<const float*>(dsa.get());
  d.b_scale_mode = c.b_mode; d.b_scale = sb.empty() ? nullptr : static_cast<const float*>(dsb.get());
  d.bias = c.bias ? dbias.get() : nullptr; d.bias_type = c.bias_type;
  fp8kit_gemm_options opt;
  fp8kit_gemm_options_init(&opt);
  opt.path = path;
  opt.checked = 1;
  out.status = fp8kit_gemm(&d, &opt, nullptr);
  out.message = fp8kit_last_error();
  if (out.status != FP8KIT_STATUS_SUCCESS) return out;
  check_cuda(cudaDeviceSynchronize(), "sync");

  std::vector<uint8_t> host(d_bytes + kGuardBytes);
  dd.download(host.data(), host.size());
  // Padding columns [n, ldd) and the guard must still hold the poison.
  for (int64_t row = 0; row < c.m; ++row)
    for (int64_t byte = c.n * ob; byte < ldd * ob; ++byte)
      out.clobbered += host[static_cast<size_t>(row * ldd * ob + byte)] != kPoisonByte;
  for (size_t i = d_bytes; i < host.size(); ++i) out.clobbered += host[i] != kPoisonByte;

  ref::HostGemm g;
  g.m = c.m; g.n = c.n; g.k = c.k;
  g.a = a.data(); g.lda = lda; g.a_type = c.a_type;
  g.b = b.data(); g.ldb = ldb; g.b_type = c.b_type;
  g.a_scale_mode = c.a_mode; g.a_scale = sa.data();
  g.b_scale_mode = c.b_mode; g.b_scale = sb.data();
  g.bias = c.bias ? bias.data() : nullptr; g.bias_type = c.bias_type;

  // Every element must have been written: inputs are bounded, so a correct
  // result is always finite and the all-ones poison (NaN) never survives.
  for (int64_t row = 0; row < c.m; ++row)
    for (int64_t col = 0; col < c.n; ++col)
      out.unwritten += !std::isfinite(ref::load_element(c.d_type, host.data(), row * ldd + col));

  const double u = out_unit(c.d_type), tiny = out_tiny(c.d_type), fac = acc_factor(path);
  double err2 = 0, ref2 = 0;
  auto check = [&](int64_t row, int64_t col) {
    const double r = ref::reference_element(g, row, col);
    const double mag = ref::reference_magnitude(g, row, col);
    const double got = ref::load_element(c.d_type, host.data(), row * ldd + col);
    const double acc_err = fac * static_cast<double>(c.k + 8) * kU24 * mag;
    const double bound = u * std::fabs(r) + (1 + u) * acc_err + tiny;
    const double err = std::fabs(got - r);
    ++out.checked;
    err2 += err * err;
    ref2 += r * r;
    const double ratio = std::isfinite(err) ? err / bound : INFINITY;
    if (ratio > out.worst_ratio) out.worst_ratio = ratio;
    if (!(err <= bound)) {
      if (out.failures++ == 0) {
        std::ostringstream s;
        s << "D[" << row << "," << col << "] = " << got << ", reference " << r << ", bound " << bound;
        out.first_failure = s.str();
      }
    }
  };
  if (c.m * c.n <= full_check_limit) {
    for (int64_t row = 0; row < c.m; ++row)
      for (int64_t col = 0; col < c.n; ++col) check(row, col);
  } else {
    // Edges (where tiles are ragged) in full, then random interior samples.
    for (int64_t col = 0; col < c.n; ++col) {
      check(0, col);
      check(c.m - 1, col);
    }
    for (int64_t row = 1; row + 1 < c.m; ++row) {
      check(row, 0);
      check(row, c.n - 1);
    }
    std::uniform_int_distribution<int64_t> rm(0, c.m - 1), rn(0, c.n - 1);
    for (int s = 0; s < samples; ++s) check(rm(rng), rn(rng));
  }
  out.rel_norm_err = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  return out;
}

}  // namespace fp8kit::test
