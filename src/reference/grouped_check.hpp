// Device-side checking of fp8kit_grouped_gemm (tests, bench): a random grouped
// problem on the host and the device, and the check of D against the float64
// reference (grouped_reference.hpp) with the dense bound (gemm_check.hpp).
// Rows that belong to no expert, the row padding and a guard after D must
// still hold the poison.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "reference/gemm_check.hpp"
#include "reference/grouped_reference.hpp"

namespace fp8kit::ref {

struct GroupedCase {
  fp8kit_grouped_layout layout = FP8KIT_GROUPED_CONTIGUOUS;
  int64_t n = 0, k = 0;
  std::vector<int64_t> sizes;  // routed rows per expert (E = sizes.size())
  int64_t max_m = 0;           // masked: rows per expert slab (0: the largest size)
  int64_t tail_rows = 0;       // contiguous: rows of A past the last expert
  std::vector<int32_t> raw_groups;  // non-empty: passed verbatim as offs / counts (clamping tests)
  fp8kit_dtype a_type = FP8KIT_DTYPE_E4M3, b_type = FP8KIT_DTYPE_E4M3, d_type = FP8KIT_DTYPE_BF16;
  fp8kit_scale_mode a_mode = FP8KIT_SCALE_TENSOR, b_mode = FP8KIT_SCALE_TENSOR;
  bool bias = false;
  fp8kit_dtype bias_type = FP8KIT_DTYPE_F32;
  int64_t lda_pad = 0, ldd_pad = 0;  // extra elements per row
  fp8kit_accumulation accumulation = FP8KIT_ACCUMULATION_PROMOTED;  // options.accumulation (and the bound)
  std::string label() const;
};

class GroupedProblem {
 public:
  GroupedProblem(const GroupedCase& c, std::mt19937_64& rng);
  const fp8kit_grouped_gemm_desc& desc() const { return desc_; }
  // Replaces the offs / counts on the device (same buffer: graphs see it).
  void set_groups(const std::vector<int32_t>& groups);
  const std::vector<int32_t>& groups() const { return groups_; }
  void poison() const;
  // Downloads D and checks it: every element of an expert with at most
  // full_check_limit elements, else its edge rows and columns plus `samples`.
  GemmOutcome check(fp8kit_path path, std::mt19937_64& rng, int64_t full_check_limit = 1 << 16,
                    int samples = 512) const;

 private:
  HostGrouped host_view() const;
  GroupedCase c_;
  int64_t rows_;        // T or max_m
  int64_t total_rows_;  // rows of A and D
  int64_t lda_, ldd_;
  std::vector<int32_t> groups_;
  std::vector<uint8_t> a_, b_, bias_;
  std::vector<float> sa_, sb_;
  size_t d_bytes_;
  DeviceBuffer dgroups_, da_, db_, dd_, dsa_, dsb_, dbias_;
  fp8kit_grouped_gemm_desc desc_ = FP8KIT_GROUPED_GEMM_DESC_INIT;
};

// The natural offs (cumulative ends) or counts of a case's sizes.
std::vector<int32_t> groups_of(fp8kit_grouped_layout layout, const std::vector<int64_t>& sizes);

// Problem + one checked fp8kit_grouped_gemm through `path` + check.
GemmOutcome run_grouped_case(const GroupedCase& c, fp8kit_path path, std::mt19937_64& rng);

}  // namespace fp8kit::ref
