// FP8 GEMM, mma.sync FP8 path: SM89 and up. Native QMMA on SM89 and SM12x;
// on SM90, SM10x and SM11x ptxas lowers the same instruction to HMMA.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_FP8_MMA
#error "sm89_fp8_gemm.cu is valid for SM89 and up only; its CMake range must exclude this target"
#endif

#include "fp8kit_build_config.hpp"
#include "gemm/mma_sync_fp8_gemm_launch.cuh"
#include "gemm/mma_sync_paths.hpp"

namespace fp8kit {
namespace {

// Two CTAs of 4 warps per SM where the QMMA is native (Ada, SM12x), one CTA
// of 8 warps where ptxas emulates it (Hopper, SM10x, SM11x); the plan picks.
using F = mma_sync::Family<mma_sync::Fp8Mma, mma_sync::TileId::K128x64x64s4, mma_sync::TileId::K128x128x64s4>;
constexpr const char* kName = "sm89_fp8_gemm";

cudaError_t launch(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv&, cudaStream_t stream,
                   const char** name) {
  return F::launch(kName, p, dev, stream, name);
}

}  // namespace

const GemmPath kSm89MmaPath{
    FP8KIT_PATH_SM89_MMA, arch::kFp8MmaSync, &build::sm89_images, &mma_sync::fp8_tensor_cores, &F::accepts,
    nullptr,              &launch,           &F::probe,           {mma_sync::kDenseKernel, mma_sync::kFp8Policy},
};

}  // namespace fp8kit
