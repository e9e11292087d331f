#include "reference/nvfp4_check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/arg_checks.hpp"
#include "core/math.hpp"
#include "core/nvfp4_layout.hpp"
#include "reference/fp8_codec.hpp"

namespace fp8kit::ref {
namespace {

constexpr uint8_t kScaleLo = 0x28, kScaleHi = 0x40;  // E4M3 0.25 .. 2: outputs O(1) with alpha 1/sqrt(K)
constexpr uint8_t kSubnormalScaleHi = 0x08;          // E4M3 subnormals 2^-9 .. 7 * 2^-9
constexpr double kSubnormalFraction = 0.03;
constexpr int kNibbleCodes = 16;

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

std::string Nvfp4Case::label() const {
  std::ostringstream s;
  s << m << "x" << n << "x" << k << " " << fp8kit_dtype_name(a_type) << "*nvfp4->" << fp8kit_dtype_name(d_type)
    << " scales " << fp8kit_nvfp4_scale_layout_name(a_layout) << "/" << fp8kit_nvfp4_scale_layout_name(b_layout)
    << (bias ? std::string(" bias ") + fp8kit_dtype_name(bias_type) : std::string()) << (alpha ? "" : " no-alpha");
  return s.str();
}

void fill_random_nvfp4(int64_t rows, int64_t k, int64_t ld, fp8kit_nvfp4_scale_layout layout, std::mt19937_64& rng,
                       std::vector<uint8_t>* data, std::vector<uint8_t>* scales) {
  data->assign(static_cast<size_t>(rows * ld), 0);
  scales->assign(static_cast<size_t>(nvfp4::scale_bytes(rows, k, layout)), 0);
  std::uniform_int_distribution<int> code(0, kNibbleCodes - 1), scale(kScaleLo, kScaleHi - 1),
      sub(1, kSubnormalScaleHi - 1);
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < k; ++i) set_nibble(data->data() + r * ld, i, static_cast<uint8_t>(code(rng)));
    for (int64_t kb = 0; kb < nvfp4::blocks_of(k); ++kb)
      set_scale_byte(scales->data(), layout, r, kb, k,
                     static_cast<uint8_t>(u(rng) < kSubnormalFraction ? sub(rng) : scale(rng)));
  }
}

Nvfp4Problem::Nvfp4Problem(const Nvfp4Case& c, std::mt19937_64& rng)
    : c_(c),
      lda_((c.a_type == FP8KIT_DTYPE_NVFP4 ? c.k / 2 : c.k) + c.lda_pad),
      ldb_(c.k / 2 + c.ldb_pad),
      // D's rows are 16-byte aligned (nvfp4.h), so a ragged N gets a padded ldd.
      ldd_(round_up(c.n + c.ldd_pad, kBaseAlign / dtype_bytes(c.d_type))),
      alpha_(static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.k)))),
      d_bytes_(static_cast<size_t>(c.m * ldd_ * dtype_bytes(c.d_type))) {
  if (c.a_type == FP8KIT_DTYPE_NVFP4) {
    fill_random_nvfp4(c.m, c.k, lda_, c.a_layout, rng, &a_, &sa_);
  } else {
    a_.assign(static_cast<size_t>(c.m * lda_ * 2), 0);
    std::normal_distribution<double> nd(0, 1);
    for (int64_t r = 0; r < c.m; ++r)
      for (int64_t i = 0; i < c.k; ++i) store_element(c.a_type, a_.data(), r * lda_ + i, nd(rng));
  }
  fill_random_nvfp4(c.n, c.k, ldb_, c.b_layout, rng, &b_, &sb_);
  if (c.bias) {
    bias_.resize(static_cast<size_t>(c.n * dtype_bytes(c.bias_type)));
    std::normal_distribution<double> nd(0, 1);
    for (int64_t i = 0; i < c.n; ++i) store_element(c.bias_type, bias_.data(), i, nd(rng));
  }
  auto upload = [](DeviceBuffer& d, const std::vector<uint8_t>& h) {
    d = DeviceBuffer(h.size());
    if (!h.empty()) d.upload(h.data(), h.size());
  };
  upload(da_, a_);
  upload(dsa_, sa_);
  upload(db_, b_);
  upload(dsb_, sb_);
  upload(dbias_, bias_);
  dalpha_ = DeviceBuffer(sizeof(float));
  dalpha_.upload(&alpha_, sizeof alpha_);
  dd_ = DeviceBuffer(d_bytes_ + kGuardBytes);

  host_.m = c.m, host_.n = c.n, host_.k = c.k;
  host_.a = HostNvfp4Operand{c.a_type, a_.data(), lda_, sa_.empty() ? nullptr : sa_.data(), c.a_layout};
  host_.b = HostNvfp4Operand{FP8KIT_DTYPE_NVFP4, b_.data(), ldb_, sb_.data(), c.b_layout};
  host_.alpha = c.alpha ? alpha_ : 1.0;
  host_.bias = c.bias ? bias_.data() : nullptr;
  host_.bias_type = c.bias_type;

  fp8kit_nvfp4_operands& op = desc_.op;
  desc_.m = c.m, desc_.n = c.n, desc_.k = c.k;
  op.a = da_.get(), op.lda = lda_, op.a_type = c.a_type;
  op.a_scale = c.a_type == FP8KIT_DTYPE_NVFP4 ? dsa_.get() : nullptr, op.a_scale_layout = c.a_layout;
  op.b = db_.get(), op.ldb = ldb_, op.b_type = FP8KIT_DTYPE_NVFP4;
  op.b_scale = dsb_.get(), op.b_scale_layout = c.b_layout;
  op.alpha = c.alpha ? static_cast<const float*>(dalpha_.get()) : nullptr;
  op.d = dd_.get(), op.ldd = ldd_, op.d_type = c.d_type;
  op.bias = c.bias ? dbias_.get() : nullptr, op.bias_type = c.bias_type;
}

void Nvfp4Problem::poison() const {
  check_cuda(cudaMemset(dd_.get(), kPoisonByte, d_bytes_ + kGuardBytes), "poison d");
}

GemmOutcome Nvfp4Problem::check(fp8kit_path path, std::mt19937_64& rng, int samples) const {
  GemmOutcome out;
  const int ob = dtype_bytes(c_.d_type);
  std::vector<uint8_t> h(d_bytes_ + kGuardBytes);
  dd_.download(h.data(), h.size());
  for (int64_t row = 0; row < c_.m; ++row)
    for (int64_t byte = c_.n * ob; byte < ldd_ * ob; ++byte)
      out.clobbered += h[static_cast<size_t>(row * ldd_ * ob + byte)] != kPoisonByte;
  for (size_t i = d_bytes_; i < h.size(); ++i) out.clobbered += h[i] != kPoisonByte;
  for (int64_t row = 0; row < c_.m; ++row)
    for (int64_t col = 0; col < c_.n; ++col)
      out.unwritten += std::isnan(load_element(c_.d_type, h.data(), row * ldd_ + col));
  NormSums sums;
  auto one = [&](int64_t row, int64_t col) {
    check_value(nvfp4_reference_element(host_, row, col), nvfp4_reference_magnitude(host_, row, col), c_.k,
                c_.d_type, path, row, col, load_element(c_.d_type, h.data(), row * ldd_ + col), &out, &sums);
  };
  if (c_.m * c_.n <= kFullCheckLimit) {
    for (int64_t row = 0; row < c_.m; ++row)
      for (int64_t col = 0; col < c_.n; ++col) one(row, col);
  } else {
    for (int64_t col = 0; col < c_.n; ++col) one(0, col), one(c_.m - 1, col);
    for (int64_t row = 1; row + 1 < c_.m; ++row) one(row, 0), one(row, c_.n - 1);
    std::uniform_int_distribution<int64_t> rm(0, c_.m - 1), rn(0, c_.n - 1);
    for (int s = 0; s < samples; ++s) one(rm(rng), rn(rng));
  }
  out.rel_norm_err = sums.relative();
  return out;
}

GemmOutcome run_nvfp4_case(const Nvfp4Case& c, fp8kit_path path, std::mt19937_64& rng) {
  const Nvfp4Problem problem(c, rng);
  fp8kit_gemm_options opt = FP8KIT_GEMM_OPTIONS_INIT;
  opt.path = path;
  opt.checked = 1;
  GemmOutcome out;
  size_t lent = 0;
  if (c.workspace) {
    out.status = fp8kit_nvfp4_gemm_workspace_size(&problem.desc(), &opt, &lent);
    if (out.status != FP8KIT_STATUS_SUCCESS) {
      out.message = fp8kit_last_error();
      return out;
    }
  }
  DeviceBuffer workspace(std::max<size_t>(lent, 1));
  if (lent) {
    check_cuda(cudaMemset(workspace.get(), kPoisonByte, lent), "poison workspace");
    opt.workspace = workspace.get(), opt.workspace_size = lent;
  }
  fp8kit_path chosen = path;
  out.status = fp8kit_nvfp4_gemm_select(&problem.desc(), &opt, &chosen);
  if (out.status == FP8KIT_STATUS_SUCCESS) {
    problem.poison();
    out.status = fp8kit_nvfp4_gemm(&problem.desc(), &opt, nullptr);
  }
  out.message = fp8kit_last_error();
  if (out.status != FP8KIT_STATUS_SUCCESS) return out;
  check_cuda(cudaDeviceSynchronize(), "sync");
  GemmOutcome checked = problem.check(chosen, rng);
  checked.status = out.status;
  return checked;
}

}  // namespace fp8kit::ref
