// NVFP4 GEMM, portable path for bf16 activations (W4A16): E2M1 x E4M3
// decoded to bf16 in registers, bf16 HMMA. SM80 and up: Turing has no bf16
// tensor-core mma, so this family has no SM75 image and the path refuses
// bf16 A there (api: UNSUPPORTED, naming the reason).
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_BF16_MMA
#error "nvfp4_hmma_bf16_gemm.cu needs SM80 or newer (bf16 mma); its CMake range must exclude this target"
#endif

#include "gemm/nvfp4/nvfp4_launch.cuh"

namespace fp8kit::nvfp4 {

const FamilyEntry& hmma_bf16_a16() {
  using F = Family<HmmaBf16, true, true>;
  static const FamilyEntry e{
      &F::takes_dense, &F::takes_grouped,
      [](const Nvfp4Params& p, const DeviceInfo& d, const LaunchEnv& env, cudaStream_t s, const char** k) {
        return F::launch_dense("hmma_bf16,a16", p, d, env.programmatic_launch, s, k);
      },
      [](const Nvfp4GroupedParams& g, const DeviceInfo& d, const LaunchEnv& env, cudaStream_t s, const char** k) {
        return F::launch_grouped("hmma_bf16,a16", g, d, env.programmatic_launch, s, k);
      },
      &F::probe};
  return e;
}

}  // namespace fp8kit::nvfp4
