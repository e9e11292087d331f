#include "reference/grouped_check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "core/scale_layout.hpp"
#include "reference/fp8_codec.hpp"

namespace fp8kit::ref {
namespace {

int64_t a_scales(const GroupedCase& c, int64_t experts, int64_t rows) {
  switch (c.a_mode) {
    case FP8KIT_SCALE_TENSOR: return experts;
    case FP8KIT_SCALE_ROW: return rows;
    case FP8KIT_SCALE_BLOCK: return ceil_div(c.k, kScaleBlock) * rows;
    default: return 0;
  }
}

int64_t b_scales(const GroupedCase& c, int64_t experts) {
  switch (c.b_mode) {
    case FP8KIT_SCALE_TENSOR: return experts;
    case FP8KIT_SCALE_COL: return experts * c.n;
    case FP8KIT_SCALE_BLOCK: return experts * b_scale_count(FP8KIT_SCALE_BLOCK, c.n, c.k);
    default: return 0;
  }
}

int64_t rows_of(const GroupedCase& c) {
  const int64_t sum = std::accumulate(c.sizes.begin(), c.sizes.end(), int64_t{0});
  if (c.layout == FP8KIT_GROUPED_CONTIGUOUS) return sum + c.tail_rows;
  if (c.max_m) return c.max_m;
  return c.sizes.empty() ? 0 : *std::max_element(c.sizes.begin(), c.sizes.end());
}

}  // namespace

std::vector<int32_t> groups_of(fp8kit_grouped_layout layout, const std::vector<int64_t>& sizes) {
  std::vector<int32_t> g(sizes.size());
  int64_t end = 0;
  for (size_t e = 0; e < sizes.size(); ++e) {
    end += sizes[e];
    g[e] = static_cast<int32_t>(layout == FP8KIT_GROUPED_MASKED ? sizes[e] : end);
  }
  return g;
}

std::string GroupedCase::label() const {
  std::ostringstream s;
  s << fp8kit_grouped_layout_name(layout) << " E=" << sizes.size() << " rows {";
  for (size_t e = 0; e < sizes.size() && e < 8; ++e) s << (e ? "," : "") << sizes[e];
  s << (sizes.size() > 8 ? ",...}" : "}") << " n=" << n << " k=" << k << " " << fp8kit_dtype_name(a_type) << "*"
    << fp8kit_dtype_name(b_type) << "->" << fp8kit_dtype_name(d_type) << " scales " << fp8kit_scale_mode_name(a_mode)
    << "/" << fp8kit_scale_mode_name(b_mode) << (bias ? std::string(" bias ") + fp8kit_dtype_name(bias_type) : "")
    << (accumulation == FP8KIT_ACCUMULATION_FAST ? " FAST" : "");
  return s.str();
}

GroupedProblem::GroupedProblem(const GroupedCase& c, std::mt19937_64& rng)
    : c_(c),
      rows_(rows_of(c)),
      total_rows_(c.layout == FP8KIT_GROUPED_MASKED ? rows_ * static_cast<int64_t>(c.sizes.size()) : rows_),
      lda_(c.k + c.lda_pad),
      ldd_(c.n + c.ldd_pad),
      groups_(c.raw_groups.empty() ? groups_of(c.layout, c.sizes) : c.raw_groups),
      a_(static_cast<size_t>(total_rows_ * lda_)),
      b_(static_cast<size_t>(static_cast<int64_t>(c.sizes.size()) * c.n * c.k)),
      bias_(c.bias ? static_cast<size_t>(static_cast<int64_t>(c.sizes.size()) * c.n * dtype_bytes(c.bias_type)) : 0),
      sa_(static_cast<size_t>(a_scales(c, static_cast<int64_t>(c.sizes.size()), total_rows_))),
      sb_(static_cast<size_t>(b_scales(c, static_cast<int64_t>(c.sizes.size())))),
      d_bytes_(static_cast<size_t>(total_rows_ * ldd_ * dtype_bytes(c.d_type))),
      dgroups_(groups_.size() * sizeof(int32_t)),
      da_(a_.size()),
      db_(b_.size()),
      dd_(d_bytes_ + kGuardBytes),
      dsa_(sa_.size() * sizeof(float)),
      dsb_(sb_.size() * sizeof(float)),
      dbias_(bias_.size()) {
  fill_random_operands(c.a_type, &a_, c.b_type, &b_, c.k, &sa_, &sb_, rng);
  std::normal_distribution<double> nd(0, 1);
  for (size_t i = 0; i < bias_.size() / dtype_bytes(c.bias_type); ++i)
    store_element(c.bias_type, bias_.data(), static_cast<int64_t>(i), nd(rng));
  dgroups_.upload(groups_.data(), groups_.size() * sizeof(int32_t));
  if (!a_.empty()) da_.upload(a_.data(), a_.size());
  db_.upload(b_.data(), b_.size());
  if (!sa_.empty()) dsa_.upload(sa_.data(), sa_.size() * sizeof(float));
  if (!sb_.empty()) dsb_.upload(sb_.data(), sb_.size() * sizeof(float));
  if (!bias_.empty()) dbias_.upload(bias_.data(), bias_.size());

  const bool masked = c.layout == FP8KIT_GROUPED_MASKED;
  desc_.layout = c.layout;
  desc_.experts = static_cast<int64_t>(c.sizes.size());
  desc_.rows = rows_;
  desc_.n = c.n;
  desc_.k = c.k;
  desc_.offs = masked ? nullptr : static_cast<const int32_t*>(dgroups_.get());
  desc_.counts = masked ? static_cast<const int32_t*>(dgroups_.get()) : nullptr;
  desc_.op.a = da_.get(); desc_.op.lda = lda_; desc_.op.a_type = c.a_type;
  desc_.op.b = db_.get(); desc_.op.ldb = c.k; desc_.op.b_type = c.b_type;
  desc_.op.d = dd_.get(); desc_.op.ldd = ldd_; desc_.op.d_type = c.d_type;
  // A scale array is passed whenever the mode needs one, even if no row uses it (T = 0).
  desc_.op.a_scale_mode = c.a_mode;
  desc_.op.a_scale = c.a_mode == FP8KIT_SCALE_NONE ? nullptr : static_cast<const float*>(dsa_.get());
  desc_.op.b_scale_mode = c.b_mode;
  desc_.op.b_scale = c.b_mode == FP8KIT_SCALE_NONE ? nullptr : static_cast<const float*>(dsb_.get());
  desc_.op.bias = c.bias ? dbias_.get() : nullptr; desc_.op.bias_type = c.bias_type;
}

void GroupedProblem::set_groups(const std::vector<int32_t>& groups) {
  if (groups.size() != groups_.size()) throw std::invalid_argument("set_groups: one entry per expert");
  groups_ = groups;
  dgroups_.upload(groups_.data(), groups_.size() * sizeof(int32_t));
}

void GroupedProblem::poison() const {
  if (cudaMemset(dd_.get(), kPoisonByte, d_bytes_ + kGuardBytes) != cudaSuccess)
    throw std::runtime_error("poison d failed");
}

HostGrouped GroupedProblem::host_view() const {
  HostGrouped g;
  g.layout = c_.layout;
  g.experts = static_cast<int64_t>(c_.sizes.size());
  g.rows = rows_;
  g.n = c_.n;
  g.k = c_.k;
  g.groups = groups_.data();
  g.a = a_.data(); g.lda = lda_; g.a_type = c_.a_type;
  g.b = b_.data(); g.ldb = c_.k; g.b_type = c_.b_type;
  g.a_scale_mode = c_.a_mode; g.a_scale = sa_.data();
  g.b_scale_mode = c_.b_mode; g.b_scale = sb_.data();
  g.bias = c_.bias ? bias_.data() : nullptr; g.bias_type = c_.bias_type;
  return g;
}

GemmOutcome GroupedProblem::check(fp8kit_path path, std::mt19937_64& rng, int64_t full_check_limit,
                                  int samples) const {
  GemmOutcome out;
  const int ob = dtype_bytes(c_.d_type);
  const int64_t row_bytes = ldd_ * ob;
  std::vector<uint8_t> host(d_bytes_ + kGuardBytes);
  dd_.download(host.data(), host.size());
  const HostGrouped g = host_view();
  const std::vector<ExpertRows> rows = expert_rows(g.layout, g.experts, g.rows, g.groups);
  // Owned rows: columns [0, n) written; everything else stays poisoned.
  std::vector<char> owned(static_cast<size_t>(total_rows_), 0);
  for (const ExpertRows& r : rows)
    for (int64_t m = 0; m < r.count; ++m) owned[r.first + m] = 1;
  for (int64_t row = 0; row < total_rows_; ++row) {
    const uint8_t* p = host.data() + row * row_bytes;
    for (int64_t byte = owned[row] ? c_.n * ob : 0; byte < row_bytes; ++byte) out.clobbered += p[byte] != kPoisonByte;
    for (int64_t col = 0; owned[row] && col < c_.n; ++col)
      out.unwritten += std::isnan(load_element(c_.d_type, host.data(), row * ldd_ + col));
  }
  for (size_t i = d_bytes_; i < host.size(); ++i) out.clobbered += host[i] != kPoisonByte;

  NormSums sums;
  std::vector<float> scratch;
  for (int64_t e = 0; e < g.experts; ++e) {
    const ExpertRows& r = rows[e];
    if (r.count == 0) continue;
    const HostGemm h = expert_gemm(g, e, r, &scratch);
    auto check = [&](int64_t m, int64_t n) {
      const double got = load_element(c_.d_type, host.data(), (r.first + m) * ldd_ + n);
      check_element(h, c_.d_type, path, m, n, got, &out, &sums, c_.accumulation);
    };
    if (r.count * c_.n <= full_check_limit) {
      for (int64_t m = 0; m < r.count; ++m)
        for (int64_t n = 0; n < c_.n; ++n) check(m, n);
      continue;
    }
    for (int64_t n = 0; n < c_.n; n += std::max<int64_t>(1, c_.n / 256)) {
      check(0, n);
      check(r.count - 1, n);
    }
    for (int64_t m = 0; m < r.count; m += std::max<int64_t>(1, r.count / 64)) {
      check(m, 0);
      check(m, c_.n - 1);
    }
    std::uniform_int_distribution<int64_t> rm(0, r.count - 1), rn(0, c_.n - 1);
    for (int s = 0; s < samples; ++s) check(rm(rng), rn(rng));
  }
  out.rel_norm_err = sums.relative();
  return out;
}

GemmOutcome run_grouped_case(const GroupedCase& c, fp8kit_path path, std::mt19937_64& rng) {
  const GroupedProblem problem(c, rng);
  problem.poison();
  fp8kit_gemm_options opt;
  fp8kit_gemm_options_init(&opt);
  opt.path = path;
  opt.checked = 1;
  opt.accumulation = c.accumulation;
  GemmOutcome out;
  fp8kit_path chosen = path;
  out.status = fp8kit_grouped_gemm_select(&problem.desc(), &opt, &chosen);
  if (out.status == FP8KIT_STATUS_SUCCESS) out.status = fp8kit_grouped_gemm(&problem.desc(), &opt, nullptr);
  out.message = fp8kit_last_error();
  if (out.status != FP8KIT_STATUS_SUCCESS) return out;
  if (cudaDeviceSynchronize() != cudaSuccess) throw std::runtime_error("sync after the grouped GEMM failed");
  GemmOutcome checked = problem.check(chosen, rng);
  checked.status = out.status;
  return checked;
}

}  // namespace fp8kit::ref
