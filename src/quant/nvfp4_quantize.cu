// The NVFP4 quantiser's registry entry: instance choice and launch (the
// arguments were validated by api/nvfp4_quantize_validate.cpp). Plain CUDA
// cores, valid and built for every target from SM75.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
#error "nvfp4_quantize.cu is valid for SM75 and up only; its CMake range must exclude this target"
#endif

#include <string>

#include "core/registry.hpp"
#include "fp8kit_build_config.hpp"
#include "quant/nvfp4_quantize.cuh"

namespace fp8kit {
namespace {

using KernelFn = void (*)(quant::Nvfp4QuantParams);

KernelFn pick(fp8kit_dtype x) {
  return x == FP8KIT_DTYPE_BF16 ? &quant::nvfp4_quantize_kernel<FP8KIT_DTYPE_BF16>
                                : &quant::nvfp4_quantize_kernel<FP8KIT_DTYPE_F16>;
}

fp8kit_tensor_cores tensor_cores(int) { return FP8KIT_TC_NONE; }

bool accepts(const Nvfp4QuantizeParams&, const DeviceInfo&, std::string*) { return true; }

cudaError_t launch(const Nvfp4QuantizeParams& p, const DeviceInfo&, const LaunchEnv&, cudaStream_t stream,
                   const char** kernel_name) {
  *kernel_name = p.x_type == FP8KIT_DTYPE_BF16 ? "nvfp4_quantize_kernel<bf16>" : "nvfp4_quantize_kernel<f16>";
  const quant::Nvfp4QuantParams& k = p.kernel;
  // Swizzled scales: the padding rows of the last 128-row tile are written too.
  const int64_t rows = nvfp4::is_swizzled(k.scale_layout) ? round_up(k.m, nvfp4::kTileRows) : k.m;
  pick(p.x_type)<<<static_cast<unsigned>(rows), quant::kNvfp4Threads, 0, stream>>>(k);
  return cudaGetLastError();
}

const void* probe() { return reinterpret_cast<const void*>(&quant::nvfp4_quantize_kernel<FP8KIT_DTYPE_F16>); }

const KernelPath<Nvfp4QuantizeParams> kNvfp4QuantizePath{
    FP8KIT_PATH_CUDA_CORES,
    arch::Range{arch::kMinSupported, arch::kOpenEnd},
    &build::quant_images,
    &tensor_cores,
    &accepts,
    nullptr,
    &launch,
    &probe,
    {"fp8kit::quant::nvfp4_quantize_kernel<", nullptr},
};

}  // namespace

template <>
const std::vector<const KernelPath<Nvfp4QuantizeParams>*>& registry<Nvfp4QuantizeParams>() {
  static const std::vector<const KernelPath<Nvfp4QuantizeParams>*> paths{&kNvfp4QuantizePath};
  return paths;
}

}  // namespace fp8kit
