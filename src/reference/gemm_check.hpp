// Device-side checking of fp8kit_gemm (tests, `fp8kit gemm`, `fp8kit doctor`):
// device buffers, random FP8 problems, and the check of a device result
// against the float64 reference.
//
// Error bound (per element, stated in docs/testing.md):
//   |out - ref| <= u_out * |ref| + (1 + u_out) * acc_err + tiny_out
//   acc_err = e_path * mag
// where mag = sum_k |scaled A[m,k] B[n,k]| + |bias[n]| and u_out is half an
// ulp of the output format relative to the value (bf16 2^-8, f16 2^-11, f32
// 2^-24). FP8 products are exact in f32, so the only errors are the f32
// accumulation (worst case (K+8) roundings, scales and bias included), and the
// final rounding: e_path = 2 (K + 8) 2^-24 for f32 accumulation (2 allows
// truncating tensor cores); the sm90 wgmma path adds 2^-8 for its
// reduced-precision accumulation inside each 128-deep K block, ceil(K / 128)
// times that with FAST accumulation (measured and argued in gemm_check.cpp,
// acc_error).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fp8kit/fp8kit.h"
#include "reference/gemm_reference.hpp"

namespace fp8kit::ref {

bool gpu_available();

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_) { o.ptr_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    return *this;
  }
  void* get() const { return ptr_; }
  void upload(const void* src, size_t bytes);
  void download(void* dst, size_t bytes) const;

 private:
  void* ptr_ = nullptr;
};

struct GemmCase {
  int64_t m, n, k;
  fp8kit_dtype a_type = FP8KIT_DTYPE_E4M3, b_type = FP8KIT_DTYPE_E4M3, d_type = FP8KIT_DTYPE_BF16;
  fp8kit_scale_mode a_mode = FP8KIT_SCALE_TENSOR, b_mode = FP8KIT_SCALE_TENSOR;
  bool bias = false;
  fp8kit_dtype bias_type = FP8KIT_DTYPE_F32;
  int64_t lda_pad = 0, ldb_pad = 0, ldd_pad = 0;  // extra elements per row
  fp8kit_accumulation accumulation = FP8KIT_ACCUMULATION_PROMOTED;  // options.accumulation (and the bound)
  std::string label() const;
  // Pads ldd (never shrinks it) so that D's rows stay 16-byte aligned, as the
  // API requires.
  void align_d_rows();
};

struct GemmOutcome {
  fp8kit_status status = FP8KIT_STATUS_SUCCESS;
  std::string message;
  int64_t checked = 0;       // elements compared with the reference
  int64_t failures = 0;      // elements outside the bound
  int64_t unwritten = 0;     // poisoned elements left inside [M, N]
  int64_t clobbered = 0;     // bytes written outside [M, N] (padding, guard)
  double worst_ratio = 0;    // max |err| / bound
  double worst_acc_error = 0;  // max (|err| - D's rounding) / mag: the accumulation error seen
  double rel_norm_err = 0;   // ||out - ref|| / ||ref|| over the checked elements
  std::string first_failure;
};

// Problem::check's defaults: every element up to this many, else the edges
// plus this many random samples.
constexpr int64_t kFullCheckLimit = int64_t{1} << 16;
constexpr int kCheckSamples = 2048;
constexpr uint8_t kPoisonByte = 0xff;  // NaN in bf16, f16 and f32 (all-ones)
constexpr size_t kGuardBytes = 256;    // canary after each output buffer

// One random FP8 input byte: mostly N(0,1) quantised, a few any-finite bytes
// of magnitude <= 448 (subnormals and extremes).
uint8_t random_fp8(fp8kit_dtype t, std::mt19937_64& rng);

// Fills A and B with random_fp8, then both scale vectors uniform in
// [0.25, 2) times K^-1/4 per side: scales near 1/sqrt(K) overall keep the
// outputs O(1) for every output dtype. Draws in that order from `rng`.
void fill_random_operands(fp8kit_dtype a_type, std::vector<uint8_t>* a, fp8kit_dtype b_type, std::vector<uint8_t>* b,
                          int64_t k, std::vector<float>* a_scale, std::vector<float>* b_scale, std::mt19937_64& rng);

// Squared norms of the error and the reference over the checked elements.
struct NormSums {
  double err2 = 0, ref2 = 0;
  double relative() const;
};

// Checks one stored output element `got` = D[row, col] of the problem g
// against the reference under the bound above (path selects e_path); counts
// it into out (checked, failures, worst_ratio, first_failure) and sums.
void check_element(const HostGemm& g, fp8kit_dtype d_type, fp8kit_path path, int64_t row, int64_t col, double got,
                   GemmOutcome* out, NormSums* sums,
                   fp8kit_accumulation accumulation = FP8KIT_ACCUMULATION_PROMOTED);

// The same check of `got` against a reference value r of magnitude mag, for
// a K-deep f32 accumulation (the NVFP4 checks share it).
void check_value(double r, double mag, int64_t k, fp8kit_dtype d_type, fp8kit_path path, int64_t row, int64_t col,
                 double got, GemmOutcome* out, NormSums* sums,
                 fp8kit_accumulation accumulation = FP8KIT_ACCUMULATION_PROMOTED);

// A random problem, on the host (for the reference) and on the device.
// Inputs: mostly N(0,1) quantised, a few any-finite bytes of magnitude <= 448
// (subnormals and extremes); scales near 1/sqrt(K); never zeros.
class Problem {
 public:
  Problem(const GemmCase& c, std::mt19937_64& rng);
  const GemmCase& spec() const { return c_; }
  const fp8kit_gemm_desc& desc() const { return desc_; }
  // Fills D, its row padding and a guard after it with NaN poison.
  void poison() const;
  // Downloads D and compares it with the reference: all elements when
  // M * N <= full_check_limit, else every edge row and column plus `samples`
  // random ones. `path` selects the accumulation bound.
  GemmOutcome check(fp8kit_path path, std::mt19937_64& rng, int64_t full_check_limit = kFullCheckLimit,
                    int samples = kCheckSamples) const;
  size_t d_bytes() const { return d_bytes_; }

 private:
  GemmCase c_;
  int64_t lda_, ldb_, ldd_;
  std::vector<uint8_t> a_, b_, bias_;
  std::vector<float> sa_, sb_;
  size_t d_bytes_;
  DeviceBuffer da_, db_, dd_, dsa_, dsb_, dbias_;
  fp8kit_gemm_desc desc_ = FP8KIT_GEMM_DESC_INIT;
};

// The workspace a case runs with. ptr null: run_case lends one of the size
// fp8kit_gemm_workspace_size asks for, filled with poison and without the
// zeroed promise. Otherwise `bytes` at ptr, with the promise when `zeroed`
// (the caller zero-filled it once and every run leaves it so).
struct LentWorkspace {
  void* ptr = nullptr;
  size_t bytes = 0;
  bool zeroed = false;
};

// Problem + `runs` checked fp8kit_gemm calls through `path` on one workspace
// (D poisoned before each) + the check of the last.
GemmOutcome run_case(const GemmCase& c, fp8kit_path path, std::mt19937_64& rng,
                     int64_t full_check_limit = kFullCheckLimit, int samples = kCheckSamples,
                     const LentWorkspace& ws = {}, int runs = 1);

}  // namespace fp8kit::ref
