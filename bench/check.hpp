// The sampled correctness check: a fixed set of (m, n) entries of D compared
// with a float64 host dot product of the exact FP8 values, scales and bias
// (fp8kit_reference). Run on every benchmarked configuration, for fp8kit and
// cuBLASLt alike, so that no wrong kernel reports a number.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common.hpp"

namespace fp8bench {

// What one input set looks like to the host: the sampled entries and the
// rows of A and B they read.
struct SampleSet {
  int64_t m = 0, n = 0, k = 0;
  std::vector<std::pair<int64_t, int64_t>> entries;  // (m, n)
  std::unordered_map<int64_t, std::vector<uint8_t>> a_rows, b_rows;
};

// Draws `count` entries (the four corners first, then uniform ones) and copies
// the rows they need from the device.
SampleSet draw_samples(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, const uint8_t* b,
                       int64_t ldb, int count, uint64_t seed);

// Host copies of the scales (fp8kit layouts) and bias of one configuration.
struct HostOperands {
  Mode mode = Mode::Tensor;
  std::vector<float> a_scale, b_scale;
  std::vector<uint16_t> bias;  // empty: no bias; else bf16 or f16 bits
  fp8kit_dtype bias_type = FP8KIT_DTYPE_BF16;
};

// Reference value and error allowance of each sampled entry.
struct Expected {
  std::vector<double> value, tolerance;
};
Expected expected_values(const SampleSet& s, const HostOperands& ops, fp8kit_dtype d_type);

struct CheckResult {
  bool pass = true;
  int failures = 0;
  double worst = 0.0;  // largest |D - ref| / tolerance
  std::string first_failure;
};

// Reads the sampled entries of device D (row-major, ldd) and compares.
CheckResult check_output(const SampleSet& s, const Expected& e, const void* d, int64_t ldd, fp8kit_dtype d_type);

}  // namespace fp8bench
