// Grouped FP8 GEMM, f16 fallback path: FP8 converted to f16 in registers and
// fed to HMMA. Preferred on SM75-SM87; valid (forceable) on every newer GPU.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
#error "sm75_grouped_gemm.cu is valid for SM75 and up only; its CMake range must exclude this target"
#endif

#include "fp8kit_build_config.hpp"
#include "gemm/grouped/mma_sync_grouped_launch.cuh"

namespace fp8kit {
namespace {

using F = mma_sync::GroupedFamily<mma_sync::F16Mma>;
constexpr fp8kit_dtype E4 = FP8KIT_DTYPE_E4M3, E5 = FP8KIT_DTYPE_E5M2;

const F::Entry kKernels[8] = {
    F::entry<E4, E4, false>("sm75_grouped_gemm<e4m3,e4m3>"),
    F::entry<E4, E4, true>("sm75_grouped_gemm<e4m3,e4m3,block>"),
    F::entry<E4, E5, false>("sm75_grouped_gemm<e4m3,e5m2>"),
    F::entry<E4, E5, true>("sm75_grouped_gemm<e4m3,e5m2,block>"),
    F::entry<E5, E4, false>("sm75_grouped_gemm<e5m2,e4m3>"),
    F::entry<E5, E4, true>("sm75_grouped_gemm<e5m2,e4m3,block>"),
    F::entry<E5, E5, false>("sm75_grouped_gemm<e5m2,e5m2>"),
    F::entry<E5, E5, true>("sm75_grouped_gemm<e5m2,e5m2,block>"),
};

cudaError_t launch(const GroupedParams& g, const DeviceInfo&, const LaunchEnv&, cudaStream_t stream,
                   const char** name) {
  return F::launch(g, kKernels, stream, name);
}

const void* probe() { return reinterpret_cast<const void*>(kKernels[0].fn); }

}  // namespace

// Preferred only where no FP8 tensor cores exist; valid (forceable) beyond.
const GroupedPath kSm75HmmaGroupedPath{
    FP8KIT_PATH_SM75_HMMA, "sm75_hmma", arch::Range{arch::kMinSupported, arch::kFp8MmaSync.lo}, &build::sm75_images,
    &F::accepts,           &launch,     &probe,
};

}  // namespace fp8kit
