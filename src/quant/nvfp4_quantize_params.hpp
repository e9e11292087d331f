// The validated NVFP4 quantisation problem (api/nvfp4_quantize_validate.cpp):
// what the kernel receives by value and the dtype that picks its instance;
// and its registry (quant/nvfp4_quantize.cu). Plain C++.
#pragma once

#include <cstdint>
#include <vector>

#include "core/registry.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit {

namespace quant {

struct Nvfp4QuantParams {
  int m, k;
  const void* x;
  int64_t ldx;  // elements
  uint8_t* q;
  int64_t ldq;  // bytes
  uint8_t* scale;
  const float* global_scale;  // nullptr: 1.0
  const void* rms_weight;     // nullptr: none
  float eps;
  int scale_layout;  // fp8kit_nvfp4_scale_layout, checked
};

}  // namespace quant

struct Nvfp4QuantizeParams {
  quant::Nvfp4QuantParams kernel;
  fp8kit_dtype x_type;
};

template <>
const std::vector<const KernelPath<Nvfp4QuantizeParams>*>& registry<Nvfp4QuantizeParams>();

}  // namespace fp8kit
