// Grouped FP8 GEMM, mma.sync FP8 path: SM89 and up (native QMMA on SM89 and
// SM12x, ptxas-emulated on SM90 / SM10x / SM11x). The path SM12x runs.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_FP8_MMA
#error "sm89_grouped_gemm.cu is valid for SM89 and up only; its CMake range must exclude this target"
#endif

#include "fp8kit_build_config.hpp"
#include "gemm/grouped/mma_sync_grouped_launch.cuh"
#include "gemm/mma_sync_paths.hpp"

namespace fp8kit {
namespace {

using F = mma_sync::GroupedFamily<mma_sync::Fp8Mma>;
constexpr const char* kName = "sm89_grouped_gemm";

cudaError_t launch(const GroupedParams& g, const DeviceInfo&, const LaunchEnv&, cudaStream_t stream,
                   const char** name) {
  return F::launch(kName, g, stream, name);
}

}  // namespace

const GroupedPath kSm89MmaGroupedPath{
    FP8KIT_PATH_SM89_MMA,
    arch::kFp8MmaSync,
    &build::sm89_images,
    &mma_sync::fp8_tensor_cores,
    &F::accepts,
    nullptr,
    &launch,
    &F::probe,
    {mma_sync::kGroupedKernel, mma_sync::kFp8Policy},
};

}  // namespace fp8kit
