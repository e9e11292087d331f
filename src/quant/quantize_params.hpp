// The validated quantisation problem (api/quantize_validate.cpp): what the
// kernel receives by value, and the dtypes and mode that choose its
// instance; and its registry. Plain C++: the host side includes it without
// the CUDA compiler.
#pragma once

#include <cstdint>
#include <vector>

#include "core/registry.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit {

namespace quant {

struct QuantParams {
  int m, k;
  const void* x;
  int64_t ldx;  // elements
  uint8_t* q;
  int64_t ldq;  // bytes
  float* scale;
  const void* rms_weight;  // [k] RMSNorm weight, or nullptr: none
  float eps;
  float fp8_max;
};

}  // namespace quant

struct QuantizeParams {
  quant::QuantParams kernel;
  fp8kit_dtype x_type, q_type;
  fp8kit_scale_mode mode;
};

// Its registry (core/registry.hpp): one path, quant/quantize.cu.
template <>
const std::vector<const KernelPath<QuantizeParams>*>& registry<QuantizeParams>();

}  // namespace fp8kit
