// NVFP4 GEMM, SM12x path: the block-scaled FP4 mma.sync (OMMA.SF,
// nvfp4_omma.cuh) on NVFP4 A and B, the scales applied by the tensor core.
// Built as one sm_120f image, which loads on 12.0, 12.1 and any later 12.x.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_MMA_SYNC_FP4_BLOCK_SCALE
#error "nvfp4_sm120_gemm.cu needs an sm_12Xf (or sm_12Xa) target; its CMake family must be built with SUFFIX f"
#endif

#include "gemm/nvfp4/nvfp4_launch.cuh"
#include "gemm/nvfp4/nvfp4_omma.cuh"

namespace fp8kit::nvfp4 {

const FamilyEntry& omma_a4() {
  using F = Family<OmmaSf, false, false>;
  static const FamilyEntry e{
      &F::takes_dense, &F::takes_grouped,
      [](const Nvfp4Params& p, const DeviceInfo& d, const LaunchEnv& env, cudaStream_t s, const char** k) {
        return F::launch_dense("omma_sf,a4", p, d, env.programmatic_launch, s, k);
      },
      [](const Nvfp4GroupedParams& g, const DeviceInfo& d, const LaunchEnv& env, cudaStream_t s, const char** k) {
        return F::launch_grouped("omma_sf,a4", g, d, env.programmatic_launch, s, k);
      },
      &F::probe};
  return e;
}

}  // namespace fp8kit::nvfp4
