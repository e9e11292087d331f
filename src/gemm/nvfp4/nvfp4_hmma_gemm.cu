// NVFP4 GEMM, portable path: E2M1 x E4M3 decoded to f16 in registers, HMMA.
// Valid on every target from SM75 (two m16n8k8 steps there); A is f16
// (W4A16) or NVFP4, decoded like B (W4A4).
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
#error "nvfp4_hmma_gemm.cu is valid for SM75 and up only; its CMake range must exclude this target"
#endif

#include "gemm/nvfp4/nvfp4_launch.cuh"

namespace fp8kit::nvfp4 {
namespace {

template <bool kA16>
const FamilyEntry& entry() {
  using F = Family<HmmaF16, kA16, true>;
  constexpr const char* kPolicy = kA16 ? "hmma_f16,a16" : "hmma_f16,a4";
  static const FamilyEntry e{
      &F::takes_dense, &F::takes_grouped,
      [](const Nvfp4Params& p, const DeviceInfo& d, const LaunchEnv& env, cudaStream_t s, const char** k) {
        return F::launch_dense(kPolicy, p, d, env.programmatic_launch, s, k);
      },
      [](const Nvfp4GroupedParams& g, const DeviceInfo& d, const LaunchEnv& env, cudaStream_t s, const char** k) {
        return F::launch_grouped(kPolicy, g, d, env.programmatic_launch, s, k);
      },
      &F::probe};
  return e;
}

}  // namespace

const FamilyEntry& hmma_f16_a16() { return entry<true>(); }
const FamilyEntry& hmma_f16_a4() { return entry<false>(); }

}  // namespace fp8kit::nvfp4
