// FP8 GEMM, f16 fallback path: for GPUs without FP8 tensor cores (SM75-SM87).
// FP8 is converted to f16 in registers and fed to HMMA. Valid on every target
// from SM75 up; CMake builds SASS for SM75-SM87 and PTX for newer GPUs (which
// is how tests force this path on a Hopper).
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
#error "sm75_fp8_gemm.cu is valid for SM75 and up only; its CMake range must exclude this target"
#endif

#include "fp8kit_build_config.hpp"
#include "gemm/mma_sync_fp8_gemm_launch.cuh"
#include "gemm/mma_sync_paths.hpp"

namespace fp8kit {
namespace {

// One 8-warp shape in 64 KiB: Turing's opt-in limit.
using F = mma_sync::Family<mma_sync::F16Mma, mma_sync::TileId::K128x128x64s4>;
constexpr const char* kName = "sm75_fp8_gemm";

cudaError_t launch(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv&, cudaStream_t stream,
                   const char** name) {
  return F::launch(kName, p, dev, stream, name);
}

}  // namespace

const GemmPath kSm75HmmaPath{
    FP8KIT_PATH_SM75_HMMA, mma_sync::kF16Preferred, &build::sm75_images, &mma_sync::f16_tensor_cores, &F::accepts,
    nullptr,               &launch,                 &F::probe,           {mma_sync::kDenseKernel, mma_sync::kF16Policy},
};

}  // namespace fp8kit
