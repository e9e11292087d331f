// Grouped FP8 GEMM, f16 fallback path: FP8 converted to f16 in registers and
// fed to HMMA. Preferred on SM75-SM87; valid (forceable) on every newer GPU.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
#error "sm75_grouped_gemm.cu is valid for SM75 and up only; its CMake range must exclude this target"
#endif

#include "fp8kit_build_config.hpp"
#include "gemm/grouped/mma_sync_grouped_launch.cuh"
#include "gemm/mma_sync_paths.hpp"

namespace fp8kit {
namespace {

using F = mma_sync::GroupedFamily<mma_sync::F16Mma>;
constexpr const char* kName = "sm75_grouped_gemm";

cudaError_t launch(const GroupedParams& g, const DeviceInfo&, const LaunchEnv&, cudaStream_t stream,
                   const char** name) {
  return F::launch(kName, g, stream, name);
}

}  // namespace

const GroupedPath kSm75HmmaGroupedPath{
    FP8KIT_PATH_SM75_HMMA,
    mma_sync::kF16Preferred,
    &build::sm75_images,
    &mma_sync::f16_tensor_cores,
    &F::accepts,
    nullptr,
    &launch,
    &F::probe,
    {mma_sync::kGroupedKernel, mma_sync::kF16Policy},
};

}  // namespace fp8kit
