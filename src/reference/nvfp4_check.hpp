// Device-side checking of fp8kit_nvfp4_gemm (tests, the soak's C++ side):
// random NVFP4 problems on the host and the device, and the check of a
// device result against the float64 reference of the dequantised operands
// (reference/nvfp4_codec.hpp) under the FP8 checks' bound
// (reference/gemm_check.hpp: products are exact in f32, so only the f32
// accumulation and the output rounding err).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fp8kit/fp8kit.h"
#include "reference/gemm_check.hpp"
#include "reference/nvfp4_codec.hpp"

namespace fp8kit::ref {

struct Nvfp4Case {
  int64_t m, n, k;
  fp8kit_dtype a_type = FP8KIT_DTYPE_NVFP4, d_type = FP8KIT_DTYPE_BF16;
  fp8kit_nvfp4_scale_layout a_layout = FP8KIT_NVFP4_SCALES_SWIZZLED, b_layout = FP8KIT_NVFP4_SCALES_SWIZZLED;
  bool bias = false;
  fp8kit_dtype bias_type = FP8KIT_DTYPE_F32;  // with `bias`: f32, bf16 or f16
  bool alpha = true;  // a device alpha of 1 / sqrt(K); false: NULL (1.0)
  int64_t lda_pad = 0, ldb_pad = 0, ldd_pad = 0;  // extra bytes (NVFP4) or elements per row
  bool workspace = true;  // lend what fp8kit_nvfp4_gemm_workspace_size asks for, poisoned
  std::string label() const;
};

// A random NVFP4 operand [rows, k]: every E2M1 code, scales mostly in
// [0.25, 2) with a few subnormal ones; `ld` bytes per row (padding zero);
// scales in `layout` (padding zero).
void fill_random_nvfp4(int64_t rows, int64_t k, int64_t ld, fp8kit_nvfp4_scale_layout layout, std::mt19937_64& rng,
                       std::vector<uint8_t>* data, std::vector<uint8_t>* scales);

class Nvfp4Problem {
 public:
  Nvfp4Problem(const Nvfp4Case& c, std::mt19937_64& rng);
  const fp8kit_nvfp4_gemm_desc& desc() const { return desc_; }
  const HostNvfp4Gemm& host() const { return host_; }
  void poison() const;
  // Downloads D and compares all of it (or the edges and `samples` random
  // elements past kFullCheckLimit) with the reference.
  GemmOutcome check(fp8kit_path path, std::mt19937_64& rng, int samples = kCheckSamples) const;

 private:
  Nvfp4Case c_;
  int64_t lda_, ldb_, ldd_;
  std::vector<uint8_t> a_, sa_, b_, sb_, bias_;
  float alpha_;
  size_t d_bytes_;
  DeviceBuffer da_, dsa_, db_, dsb_, dalpha_, dd_, dbias_;
  HostNvfp4Gemm host_;
  fp8kit_nvfp4_gemm_desc desc_ = FP8KIT_NVFP4_GEMM_DESC_INIT;
};

// Problem + one checked fp8kit_nvfp4_gemm through `path` + its check.
GemmOutcome run_nvfp4_case(const Nvfp4Case& c, fp8kit_path path, std::mt19937_64& rng);

}  // namespace fp8kit::ref
