// FP8 GEMM, mma.sync FP8 path: SM89 and up. Native QMMA on SM89 and SM12x;
// on SM90, SM10x and SM11x ptxas lowers the same instruction to HMMA.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_FP8_MMA
#error "sm89_fp8_gemm.cu is valid for SM89 and up only; its CMake range must exclude this target"
#endif

#include "fp8kit_build_config.hpp"
#include "gemm/mma_sync_fp8_gemm_launch.cuh"

namespace fp8kit {
namespace {

// Two CTAs of 4 warps per SM where the QMMA is native (Ada, SM12x), one CTA
// of 8 warps where ptxas emulates it (Hopper, SM10x, SM11x); the plan picks.
using F = mma_sync::Family<mma_sync::Fp8Mma, mma_sync::TileId::K128x64x64s4, mma_sync::TileId::K128x128x64s4>;
constexpr const char* kName = "sm89_fp8_gemm";

fp8kit_tensor_cores tensor_cores(int cap) {
  const arch::Family* f = arch::family_of(cap);
  if (!arch::kFp8MmaSync.contains(cap)) return FP8KIT_TC_NONE;
  if (f && f->fp8_mma_sync == arch::Family::Fp8MmaSync::Emulated) return FP8KIT_TC_EMULATED;
  // An unknown newer GPU JIT-compiles the PTX; what its ptxas makes of the
  // FP8 mma is not known here.
  return f ? FP8KIT_TC_NATIVE : FP8KIT_TC_UNKNOWN;
}

cudaError_t launch(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv&, cudaStream_t stream,
                   const char** name) {
  return F::launch(kName, p, dev, stream, name);
}

}  // namespace

const GemmPath kSm89MmaPath{
    FP8KIT_PATH_SM89_MMA, "sm89_mma", arch::kFp8MmaSync, &build::sm89_images, &tensor_cores, &F::accepts,
    nullptr,              &launch,    &F::probe,
};

}  // namespace fp8kit
