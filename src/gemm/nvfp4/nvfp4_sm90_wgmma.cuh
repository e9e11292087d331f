// The 16-bit wgmma with A in registers, for the Hopper NVFP4 W4A16 GEMM:
// D (m64 x n256 f32) (+)= A (m64 x k16, four 32-bit registers per thread in
// the mma.sync m16n8k16 A layout per warp) . B (k16 x n256, a shared-memory
// descriptor, K-major). Device code for sm_90a only: included under
// FP8KIT_HAS_WGMMA.
#pragma once

#include <cstdint>

#include "gemm/sm90/asm_operands.hpp"

namespace fp8kit::nvfp4::sm90w {

// Operands: the 128 accumulators (%0 .. %127), A's registers (%128 .. %131),
// B's descriptor (%132), scale-d (%133). imm-trans-b 0: B is K-major.
#define FP8KIT_RS_REG(i) ", %" #i
#define FP8KIT_RS_ACC(i) , "+f"(d[i])
#define FP8KIT_RS_ASM(TYPE)                                                                           \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                                          \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE                           \
               " {%0" FP8KIT_PP_1_127(FP8KIT_RS_REG) "}, {%128, %129, %130, %131}, %132, p, 1, 1, 0;\n}\n" \
               : "+f"(d[0]) FP8KIT_PP_1_127(FP8KIT_RS_ACC)                                            \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d))

template <bool kBf16>
__device__ __forceinline__ void wgmma_rs_n256(float (&d)[128], const uint32_t (&a)[4], uint64_t desc_b,
                                              uint32_t scale_d) {
  if constexpr (kBf16) FP8KIT_RS_ASM("bf16");
  else FP8KIT_RS_ASM("f16");
}
#undef FP8KIT_RS_ASM
#undef FP8KIT_RS_ACC
#undef FP8KIT_RS_REG

// Keeps A's registers live and unmoved until the wgmma reading them has
// retired (the tensor cores read them asynchronously).
template <int R>
__device__ __forceinline__ void fence_registers(uint32_t (&r)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

}  // namespace fp8kit::nvfp4::sm90w
