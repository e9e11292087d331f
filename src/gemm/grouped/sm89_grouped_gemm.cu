// Grouped FP8 GEMM, mma.sync FP8 path: SM89 and up (native QMMA on SM89 and
// SM12x, ptxas-emulated on SM90 / SM10x / SM11x). The path SM12x runs.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_FP8_MMA
#error "sm89_grouped_gemm.cu is valid for SM89 and up only; its CMake range must exclude this target"
#endif

#include "fp8kit_build_config.hpp"
#include "gemm/grouped/mma_sync_grouped_launch.cuh"

namespace fp8kit {
namespace {

using F = mma_sync::GroupedFamily<mma_sync::Fp8Mma>;
constexpr fp8kit_dtype E4 = FP8KIT_DTYPE_E4M3, E5 = FP8KIT_DTYPE_E5M2;

const F::Entry kKernels[8] = {
    F::entry<E4, E4, false>("sm89_grouped_gemm<e4m3,e4m3>"),
    F::entry<E4, E4, true>("sm89_grouped_gemm<e4m3,e4m3,block>"),
    F::entry<E4, E5, false>("sm89_grouped_gemm<e4m3,e5m2>"),
    F::entry<E4, E5, true>("sm89_grouped_gemm<e4m3,e5m2,block>"),
    F::entry<E5, E4, false>("sm89_grouped_gemm<e5m2,e4m3>"),
    F::entry<E5, E4, true>("sm89_grouped_gemm<e5m2,e4m3,block>"),
    F::entry<E5, E5, false>("sm89_grouped_gemm<e5m2,e5m2>"),
    F::entry<E5, E5, true>("sm89_grouped_gemm<e5m2,e5m2,block>"),
};

cudaError_t launch(const GroupedParams& g, const DeviceInfo&, const LaunchEnv&, cudaStream_t stream,
                   const char** name) {
  return F::launch(g, kKernels, stream, name);
}

const void* probe() { return reinterpret_cast<const void*>(kKernels[0].fn); }

}  // namespace

const GroupedPath kSm89MmaGroupedPath{
    FP8KIT_PATH_SM89_MMA, "sm89_mma", arch::kFp8MmaSync, &build::sm89_images, &F::accepts, &launch, &probe,
};

}  // namespace fp8kit
