// What the portable mma.sync families' registry entries share between their
// dense and grouped paths: the tensor cores each family gets per capability
// and the names of its kernels in a binary (core/registry.hpp, KernelMatch).
// Host code only.
#pragma once

#include "arch/config.hpp"
#include "core/registry.hpp"

namespace fp8kit::mma_sync {

// The dense and grouped kernel templates; the family is the Mma policy.
constexpr const char* kDenseKernel = "fp8kit::mma_sync::fp8_gemm_kernel<";
constexpr const char* kGroupedKernel = "fp8kit::mma_sync::fp8_grouped_gemm_kernel<";
constexpr const char* kF16Policy = "fp8kit::mma_sync::F16Mma,";
constexpr const char* kFp8Policy = "fp8kit::mma_sync::Fp8Mma,";
constexpr const char* kBlockScaledPolicy = "fp8kit::mma_sync::Fp8BlockScaledMma,";

// sm75_hmma: FP8 converted to f16 in registers, on every 16-bit HMMA GPU.
inline fp8kit_tensor_cores f16_tensor_cores(int cap) {
  return arch::kHmmaF16.contains(cap) ? FP8KIT_TC_FALLBACK : FP8KIT_TC_NONE;
}

// sm89_mma: the FP8 mma.sync, native or emulated by ptxas per family.
inline fp8kit_tensor_cores fp8_tensor_cores(int cap) {
  const arch::Family* f = arch::family_of(cap);
  if (!arch::kFp8MmaSync.contains(cap)) return FP8KIT_TC_NONE;
  if (f && f->fp8_mma_sync == arch::Family::Fp8MmaSync::Emulated) return FP8KIT_TC_EMULATED;
  // An unknown newer GPU JIT-compiles the PTX; what its ptxas makes of the
  // FP8 mma is not known here.
  return f ? FP8KIT_TC_NATIVE : FP8KIT_TC_UNKNOWN;
}

// sm120_mma: the block-scaled mma.sync of the SM12x family.
inline fp8kit_tensor_cores block_scaled_tensor_cores(int cap) {
  return arch::kSm12xBlockScaledMma.contains(cap) ? FP8KIT_TC_NATIVE : FP8KIT_TC_NONE;
}

// sm75_hmma is preferred only where no FP8 tensor cores exist; it is valid
// (forceable) on every newer GPU.
constexpr arch::Range kF16Preferred{arch::kMinSupported, arch::kFp8MmaSync.lo};

}  // namespace fp8kit::mma_sync
