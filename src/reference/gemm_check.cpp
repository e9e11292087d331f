#include "reference/gemm_check.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "core/arg_checks.hpp"
#include "reference/fp8_codec.hpp"
#include "reference/gemm_reference.hpp"

namespace fp8kit::ref {
namespace {

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

// Accumulation error per path, as a multiple of mag (see gemm_check.hpp).
// IEEE f32 chains: one rounding per step, K + 8 steps, doubled for tensor
// cores that truncate. Hopper's FP8 wgmma aligns the products of each k32
// step to the largest and keeps about 13 fraction bits (truncating), so next
// to an extreme product the small ones lose up to 2^-13 of it each; the sm90
// path promotes every 128-deep K block into f32. Measured worst on inputs
// with extremes: 1.3e-3 mag (2^-9.6). The bound 2^-8 mag keeps a 3x margin
// and stays far below the error of a wrong scale or a missing k32 slice
// (about mag / sqrt(K)). FAST accumulation keeps the whole K sum in the
// wgmma accumulator, so each 128-deep K block adds at most what one promoted
// block may: 2^-8 mag per block, ceil(K / 128) of them (a first bound, linear
// in K; docs/testing.md gives the worst measured against it). The portable
// paths sum in f32 whatever the option says.
double acc_error(fp8kit_path path, int64_t k, fp8kit_accumulation accumulation) {
  constexpr double kTruncation = 2.0;
  constexpr int64_t kPromotedBlock = 128;
  const double f32_chain = kTruncation * static_cast<double>(k + 8) * kU24;
  if (path != FP8KIT_PATH_SM90_WGMMA) return f32_chain;
  const double blocks =
      accumulation == FP8KIT_ACCUMULATION_FAST ? static_cast<double>((k + kPromotedBlock - 1) / kPromotedBlock) : 1.0;
  return blocks * std::ldexp(1.0, -8) + f32_chain;
}

// Where an output dtype overflows: its largest finite value plus half an ulp
// there (round to nearest even sends that tie, and anything above, to inf).
double overflow_edge(fp8kit_dtype t) {
  switch (t) {
    case FP8KIT_DTYPE_BF16: return 3.3895313892515355e38 + std::ldexp(1.0, 119);
    case FP8KIT_DTYPE_F16: return 65504.0 + 16.0;
    default: return 3.4028234663852886e38 + std::ldexp(1.0, 103);
  }
}

}  // namespace

// Inputs: mostly N(0,1) quantised, a few any-finite bytes of magnitude <= 448.
// Drawn from a per-dtype pool built once, since encoding per element would
// dominate the run time of large test shapes.
void fill_random_operands(fp8kit_dtype a_type, std::vector<uint8_t>* a, fp8kit_dtype b_type, std::vector<uint8_t>* b,
                          int64_t k, std::vector<float>* a_scale, std::vector<float>* b_scale, std::mt19937_64& rng) {
  constexpr double kScaleMin = 0.25, kScaleMax = 2.0;
  for (auto& x : *a) x = random_fp8(a_type, rng);
  for (auto& x : *b) x = random_fp8(b_type, rng);
  std::uniform_real_distribution<double> scale_dist(kScaleMin, kScaleMax);
  const double per_side = std::sqrt(1.0 / std::sqrt(static_cast<double>(k)));
  for (auto& x : *a_scale) x = static_cast<float>(scale_dist(rng) * per_side);
  for (auto& x : *b_scale) x = static_cast<float>(scale_dist(rng) * per_side);
}

uint8_t random_fp8(fp8kit_dtype t, std::mt19937_64& rng) {
  constexpr int kPool = 1 << 14;
  struct Pool {
    std::vector<uint8_t> bytes;
    explicit Pool(fp8kit_dtype type) : bytes(kPool) {
      std::mt19937_64 g(static_cast<uint64_t>(type) + 1);
      std::uniform_real_distribution<double> u(0, 1);
      std::normal_distribution<double> n(0, 1);
      for (auto& b : bytes) {
        if (u(g) < kWildFraction) {
          for (;;) {
            b = static_cast<uint8_t>(g());
            const double v = decode_fp8(type, b);
            if (std::isfinite(v) && std::fabs(v) <= kMaxInputMagnitude) break;
          }
        } else {
          b = encode_fp8(type, n(g), true);
        }
      }
    }
  };
  static const Pool e4m3(FP8KIT_DTYPE_E4M3), e5m2(FP8KIT_DTYPE_E5M2);
  const Pool& pool = t == FP8KIT_DTYPE_E5M2 ? e5m2 : e4m3;
  return pool.bytes[rng() % kPool];
}

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

double NormSums::relative() const { return ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2); }

void check_element(const HostGemm& g, fp8kit_dtype d_type, fp8kit_path path, int64_t row, int64_t col, double got,
                   GemmOutcome* out, NormSums* sums, fp8kit_accumulation accumulation) {
  check_value(reference_element(g, row, col), reference_magnitude(g, row, col), g.k, d_type, path, row, col, got, out,
              sums, accumulation);
}

void check_value(double r, double mag, int64_t k, fp8kit_dtype d_type, fp8kit_path path, int64_t row, int64_t col,
                 double got, GemmOutcome* out, NormSums* sums, fp8kit_accumulation accumulation) {
  const double u = out_unit(d_type), tiny = out_tiny(d_type), acc_rel = acc_error(path, k, accumulation);
  const double acc_err = acc_rel * mag;
  const double bound = u * std::fabs(r) + (1 + u) * acc_err + tiny;
  ++out->checked;
  // Beyond the output type's range (plus half an ulp) the answer is an
  // infinity of the reference's sign; within acc_err of that edge, either.
  const double edge = overflow_edge(d_type);
  const bool right_inf = std::isinf(got) && (got > 0) == (r > 0);
  if (std::fabs(r) - acc_err >= edge || (std::fabs(r) + acc_err >= edge && right_inf)) {
    if (!right_inf && out->failures++ == 0) {
      std::ostringstream s;
      s << "D[" << row << "," << col << "] = " << got << ", reference " << r << " overflows the output type";
      out->first_failure = s.str();
    }
    return;
  }
  const double err = std::fabs(got - r);
  sums->err2 += err * err;
  sums->ref2 += r * r;
  const double ratio = std::isfinite(err) ? err / bound : INFINITY;
  if (ratio > out->worst_ratio) out->worst_ratio = ratio;
  // The part of the error beyond D's own rounding, relative to mag.
  const double beyond_rounding = std::fmax(0.0, err - u * std::fabs(r) - tiny) / mag;
  if (mag > 0 && beyond_rounding > out->worst_acc_error) out->worst_acc_error = beyond_rounding;
  if (!(err <= bound)) {
    if (out->failures++ == 0) {
      std::ostringstream s;
      s << "D[" << row << "," << col << "] = " << got << ", reference " << r << ", bound " << bound;
      out->first_failure = s.str();
    }
  }
}

std::string GemmCase::label() const {
  std::ostringstream s;
  s << m << "x" << n << "x" << k << " " << fp8kit_dtype_name(a_type) << "*" << fp8kit_dtype_name(b_type) << "->"
    << fp8kit_dtype_name(d_type) << " scales " << fp8kit_scale_mode_name(a_mode) << "/" << fp8kit_scale_mode_name(b_mode)
    << (bias ? std::string(" bias ") + fp8kit_dtype_name(bias_type) : std::string())
    << (accumulation == FP8KIT_ACCUMULATION_FAST ? " fast" : "");
  return s.str();
}

void GemmCase::align_d_rows() {
  while ((n + ldd_pad) * dtype_bytes(d_type) % kBaseAlign) ++ldd_pad;
}

Problem::Problem(const GemmCase& c, std::mt19937_64& rng)
    : c_(c),
      lda_(c.k + c.lda_pad),
      ldb_(c.k + c.ldb_pad),
      ldd_(c.n + c.ldd_pad),
      a_(static_cast<size_t>(c.m * lda_)),
      b_(static_cast<size_t>(c.n * ldb_)),
      bias_(c.bias ? static_cast<size_t>(c.n * dtype_bytes(c.bias_type)) : 0),
      sa_(static_cast<size_t>(a_scale_count(c.a_mode, c.m, c.k))),
      sb_(static_cast<size_t>(b_scale_count(c.b_mode, c.n, c.k))),
      d_bytes_(static_cast<size_t>(c.m * ldd_ * dtype_bytes(c.d_type))),
      da_(a_.size()),
      db_(b_.size()),
      dd_(d_bytes_ + kGuardBytes),
      dsa_(sa_.size() * sizeof(float)),
      dsb_(sb_.size() * sizeof(float)),
      dbias_(bias_.size()) {
  fill_random_operands(c.a_type, &a_, c.b_type, &b_, c.k, &sa_, &sb_, rng);
  std::normal_distribution<double> nd(0, 1);
  for (int64_t i = 0; c.bias && i < c.n; ++i) store_element(c.bias_type, bias_.data(), i, nd(rng));
  da_.upload(a_.data(), a_.size());
  db_.upload(b_.data(), b_.size());
  if (!sa_.empty()) dsa_.upload(sa_.data(), sa_.size() * sizeof(float));
  if (!sb_.empty()) dsb_.upload(sb_.data(), sb_.size() * sizeof(float));
  if (!bias_.empty()) dbias_.upload(bias_.data(), bias_.size());

  desc_.m = c.m; desc_.n = c.n; desc_.k = c.k;
  desc_.op.a = da_.get(); desc_.op.lda = lda_; desc_.op.a_type = c.a_type;
  desc_.op.b = db_.get(); desc_.op.ldb = ldb_; desc_.op.b_type = c.b_type;
  desc_.op.d = dd_.get(); desc_.op.ldd = ldd_; desc_.op.d_type = c.d_type;
  desc_.op.a_scale_mode = c.a_mode; desc_.op.a_scale = sa_.empty() ? nullptr : static_cast<const float*>(dsa_.get());
  desc_.op.b_scale_mode = c.b_mode; desc_.op.b_scale = sb_.empty() ? nullptr : static_cast<const float*>(dsb_.get());
  desc_.op.bias = c.bias ? dbias_.get() : nullptr; desc_.op.bias_type = c.bias_type;
}

void Problem::poison() const {
  check_cuda(cudaMemset(dd_.get(), kPoisonByte, d_bytes_ + kGuardBytes), "poison d");
}

GemmOutcome Problem::check(fp8kit_path path, std::mt19937_64& rng, int64_t full_check_limit, int samples) const {
  GemmOutcome out;
  const GemmCase& c = c_;
  const int64_t ldd = ldd_;
  const int ob = dtype_bytes(c.d_type);
  const size_t d_bytes = d_bytes_;
  std::vector<uint8_t> host(d_bytes + kGuardBytes);
  dd_.download(host.data(), host.size());
  // Padding columns [n, ldd) and the guard must still hold the poison.
  for (int64_t row = 0; row < c.m; ++row)
    for (int64_t byte = c.n * ob; byte < ldd * ob; ++byte)
      out.clobbered += host[static_cast<size_t>(row * ldd * ob + byte)] != kPoisonByte;
  for (size_t i = d_bytes; i < host.size(); ++i) out.clobbered += host[i] != kPoisonByte;

  HostGemm g;
  g.m = c.m; g.n = c.n; g.k = c.k;
  g.a = a_.data(); g.lda = lda_; g.a_type = c.a_type;
  g.b = b_.data(); g.ldb = ldb_; g.b_type = c.b_type;
  g.a_scale_mode = c.a_mode; g.a_scale = sa_.data();
  g.b_scale_mode = c.b_mode; g.b_scale = sb_.data();
  g.bias = c.bias ? bias_.data() : nullptr; g.bias_type = c.bias_type;
  // Every element must have been written: inputs hold no NaN, so a correct
  // result is never NaN and the all-ones poison (NaN) never survives.
  for (int64_t row = 0; row < c.m; ++row)
    for (int64_t col = 0; col < c.n; ++col)
      out.unwritten += std::isnan(load_element(c.d_type, host.data(), row * ldd + col));

  NormSums sums;
  auto check = [&](int64_t row, int64_t col) {
    check_element(g, c.d_type, path, row, col, load_element(c.d_type, host.data(), row * ldd + col), &out, &sums,
                  c.accumulation);
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
  out.rel_norm_err = sums.relative();
  return out;
}

GemmOutcome run_case(const GemmCase& c, fp8kit_path path, std::mt19937_64& rng, int64_t full_check_limit,
                     int samples, const LentWorkspace& ws, int runs) {
  const Problem problem(c, rng);
  fp8kit_gemm_options opt;
  fp8kit_gemm_options_init(&opt);
  opt.path = path;
  opt.checked = 1;
  opt.accumulation = c.accumulation;
  GemmOutcome out;
  fp8kit_path chosen = path;
  out.status = fp8kit_gemm_select(&problem.desc(), &opt, &chosen);
  size_t bytes = ws.bytes;
  if (out.status == FP8KIT_STATUS_SUCCESS && !ws.ptr)
    out.status = fp8kit_gemm_workspace_size(&problem.desc(), &opt, &bytes);
  const DeviceBuffer own(ws.ptr ? 0 : bytes);
  if (ws.ptr) {
    opt.workspace = ws.ptr;
    opt.workspace_zeroed = ws.zeroed;
  } else {
    check_cuda(cudaMemset(own.get(), kPoisonByte, bytes), "poison workspace");
    opt.workspace = bytes ? own.get() : nullptr;
  }
  opt.workspace_size = opt.workspace ? bytes : 0;
  for (int i = 0; i < runs && out.status == FP8KIT_STATUS_SUCCESS; ++i) {
    problem.poison();
    out.status = fp8kit_gemm(&problem.desc(), &opt, nullptr);
  }
  out.message = fp8kit_last_error();
  if (out.status != FP8KIT_STATUS_SUCCESS) return out;
  check_cuda(cudaDeviceSynchronize(), "sync");
  GemmOutcome checked = problem.check(chosen, rng, full_check_limit, samples);
  checked.status = out.status;
  return checked;
}

}  // namespace fp8kit::ref
