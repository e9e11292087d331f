// The quantisation kernels' registry entry: instance choice and launch (the
// arguments were validated by api/quantize_validate.cpp). Valid on every
// target from SM75 (plain CUDA cores; FP8 conversion in software below
// SM89), built for every shipped target.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
#error "quantize.cu is valid for SM75 and up only; its CMake range must exclude this target"
#endif

#include <array>
#include <iterator>
#include <string>

#include "core/registry.hpp"
#include "fp8kit_build_config.hpp"
#include "quant/quantize.cuh"
#include "quant/quantize_params.hpp"

namespace fp8kit {
namespace {

using quant::QuantParams;
using KernelFn = void (*)(QuantParams);

template <fp8kit_dtype TX, fp8kit_dtype TQ>
KernelFn pick_mode(fp8kit_scale_mode m) {
  switch (m) {
    case FP8KIT_SCALE_ROW: return &quant::quantize_kernel<TX, TQ, FP8KIT_SCALE_ROW>;
    case FP8KIT_SCALE_BLOCK: return &quant::quantize_kernel<TX, TQ, FP8KIT_SCALE_BLOCK>;
    default: return &quant::quantize_kernel<TX, TQ, FP8KIT_SCALE_TENSOR>;
  }
}

template <fp8kit_dtype TX>
KernelFn pick_q(fp8kit_dtype q, fp8kit_scale_mode m) {
  return q == FP8KIT_DTYPE_E5M2 ? pick_mode<TX, FP8KIT_DTYPE_E5M2>(m) : pick_mode<TX, FP8KIT_DTYPE_E4M3>(m);
}

KernelFn pick(fp8kit_dtype x, fp8kit_dtype q, fp8kit_scale_mode m) {
  switch (x) {
    case FP8KIT_DTYPE_BF16: return pick_q<FP8KIT_DTYPE_BF16>(q, m);
    case FP8KIT_DTYPE_F16: return pick_q<FP8KIT_DTYPE_F16>(q, m);
    default: return pick_q<FP8KIT_DTYPE_F32>(q, m);
  }
}

fp8kit_tensor_cores tensor_cores(int) { return FP8KIT_TC_NONE; }

bool accepts(const QuantizeParams&, const DeviceInfo&, std::string*) { return true; }

// "quantize_kernel<bf16,e4m3,row>": the instance's name, built once per
// instance.
const char* kernel_name_of(const QuantizeParams& p) {
  constexpr fp8kit_dtype kInputs[] = {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16, FP8KIT_DTYPE_F32};
  constexpr fp8kit_dtype kOutputs[] = {FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E5M2};
  constexpr fp8kit_scale_mode kModes[] = {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_ROW, FP8KIT_SCALE_BLOCK};
  constexpr int kCount = std::size(kInputs) * std::size(kOutputs) * std::size(kModes);
  static const std::array<std::string, kCount> names = [&] {
    std::array<std::string, kCount> n;
    int i = 0;
    for (fp8kit_dtype x : kInputs)
      for (fp8kit_dtype q : kOutputs)
        for (fp8kit_scale_mode m : kModes)
          n[i++] = std::string("quantize_kernel<") + fp8kit_dtype_name(x) + "," + fp8kit_dtype_name(q) + "," +
                   fp8kit_scale_mode_name(m) + ">";
    return n;
  }();
  const int x = p.x_type == FP8KIT_DTYPE_BF16 ? 0 : p.x_type == FP8KIT_DTYPE_F16 ? 1 : 2;
  const int q = p.q_type == FP8KIT_DTYPE_E5M2 ? 1 : 0;
  const int m = p.mode == FP8KIT_SCALE_ROW ? 1 : p.mode == FP8KIT_SCALE_BLOCK ? 2 : 0;
  return names[(x * std::size(kOutputs) + q) * std::size(kModes) + m].c_str();
}

cudaError_t launch(const QuantizeParams& p, const DeviceInfo&, const LaunchEnv&, cudaStream_t stream,
                   const char** kernel_name) {
  *kernel_name = kernel_name_of(p);
  pick(p.x_type, p.q_type, p.mode)<<<p.kernel.m, quant::kThreads, 0, stream>>>(p.kernel);
  return cudaGetLastError();
}

const void* probe() {
  return reinterpret_cast<const void*>(&quant::quantize_kernel<FP8KIT_DTYPE_F32, FP8KIT_DTYPE_E4M3, FP8KIT_SCALE_TENSOR>);
}

// Every GPU fp8kit supports prefers it: it is the only quantisation path.
const KernelPath<QuantizeParams> kQuantizePath{
    FP8KIT_PATH_CUDA_CORES,
    arch::Range{arch::kMinSupported, arch::kOpenEnd},
    &build::quant_images,
    &tensor_cores,
    &accepts,
    nullptr,
    &launch,
    &probe,
    {"fp8kit::quant::quantize_kernel<", nullptr},
};

}  // namespace

template <>
const std::vector<const KernelPath<QuantizeParams>*>& registry<QuantizeParams>() {
  static const std::vector<const KernelPath<QuantizeParams>*> paths{&kQuantizePath};
  return paths;
}

}  // namespace fp8kit
