// FP8 GEMM, SM12x path: the portable kernel with the block-scaled mma.sync at
// unit scales (QMMA.SF, sm120_fp8_mma.cuh). Built as one sm_120f image, which
// loads on 12.0, 12.1 and any later 12.x; the plain-QMMA sm89_mma images and
// its compute_120 PTX stay in the build as the fallback.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_MMA_SYNC_BLOCK_SCALE
#error "sm120_fp8_gemm.cu needs an sm_12Xf (or sm_12Xa) target; its CMake family must be built with SUFFIX f"
#endif

#include "fp8kit_build_config.hpp"
#include "gemm/mma_sync_fp8_gemm_launch.cuh"
#include "gemm/mma_sync_paths.hpp"
#include "gemm/sm120_fp8_mma.cuh"

namespace fp8kit {
namespace {

// The sm89_mma family's shapes, so both lower to the same schedule and differ
// in the MMA alone: 48 KiB, two CTAs on a 100 KB SM (every SM12x part reports
// 101,376 B per block, 102,400 per SM), or one 8-warp CTA in 64 KiB.
using F = mma_sync::Family<mma_sync::Fp8BlockScaledMma, mma_sync::TileId::K128x64x64s4,
                           mma_sync::TileId::K128x128x64s4>;
constexpr const char* kName = "sm120_fp8_gemm";

cudaError_t launch(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv&, cudaStream_t stream,
                   const char** name) {
  return F::launch(kName, p, dev, stream, name);
}

}  // namespace

const GemmPath kSm120MmaPath{
    FP8KIT_PATH_SM120_MMA,
    arch::kSm12xBlockScaledMma,
    &build::sm120_images,
    &mma_sync::block_scaled_tensor_cores,
    &F::accepts,
    nullptr,
    &launch,
    &F::probe,
    {mma_sync::kDenseKernel, mma_sync::kBlockScaledPolicy},
};

}  // namespace fp8kit
