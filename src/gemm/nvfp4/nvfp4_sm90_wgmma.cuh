// The 16-bit wgmma with A in registers, for the Hopper NVFP4 W4A16 GEMM:
// D (m64 x N f32) (+)= A (m64 x k16, four 32-bit registers per thread in
// the mma.sync m16n8k16 A layout per warp) . B (k16 x N, a shared-memory
// descriptor, K-major), N = 16 (decode), 128 or 256 (prefill). Device code for sm_90a only: included under
// FP8KIT_HAS_WGMMA.
#pragma once

#include <cstdint>

#include "gemm/sm90/asm_operands.hpp"

namespace fp8kit::nvfp4::sm90w {

// B's descriptor `units` 16-byte units further (along its swizzled rows, or
// to another stage's tile). The start address is the low word's low 14 bits
// and holds the whole shared address (under 2^18 bytes), so an offset that
// stays inside shared memory never carries out of them: one 32-bit add, and
// the high word stays the constant it is (a 64-bit add costs a carry chain
// and a register move per wgmma).
__device__ __forceinline__ uint64_t desc_advance(uint64_t desc, uint32_t units) {
  constexpr uint64_t kHighWord = ~uint64_t{0xFFFFFFFFu};
  return (desc & kHighWord) | (static_cast<uint32_t>(desc) + units);
}

// Operands: the R = N / 2 accumulators (%0 .. %R-1), A's registers
// (%R .. %R+3), B's descriptor (%R+4), scale-d (%R+5). imm-trans-b 0: B is
// K-major.
#define FP8KIT_RS_REG(i) ", %" #i
#define FP8KIT_RS_ACC(i) , "+f"(d[i])
#define FP8KIT_RS_SEQ_16 FP8KIT_PP_1_7
#define FP8KIT_RS_TAIL_16 "{%8, %9, %10, %11}, %12", "%13"
#define FP8KIT_RS_SEQ_128 FP8KIT_PP_1_63
#define FP8KIT_RS_TAIL_128 "{%64, %65, %66, %67}, %68", "%69"
#define FP8KIT_RS_SEQ_256 FP8KIT_PP_1_127
#define FP8KIT_RS_TAIL_256 "{%128, %129, %130, %131}, %132", "%133"
#define FP8KIT_RS_ASM(N, TYPE, OPERANDS, SCALE)                                                  \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                              \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE                   \
               " {%0" FP8KIT_RS_SEQ_##N(FP8KIT_RS_REG) "}, " OPERANDS ", p, 1, 1, 0;\n}\n"       \
               : "+f"(d[0]) FP8KIT_RS_SEQ_##N(FP8KIT_RS_ACC)                                     \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d))
#define FP8KIT_RS_EXPAND(...) __VA_ARGS__
#define FP8KIT_RS_CALL(N, TYPE, TAIL) FP8KIT_RS_EXPAND(FP8KIT_RS_ASM(N, TYPE, TAIL))

template <int N, bool kBf16>
__device__ __forceinline__ void wgmma_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,
                                         uint32_t scale_d) {
  static_assert(N == 16 || N == 128 || N == 256, "a token tile's width");
  if constexpr (N == 16) {
    if constexpr (kBf16) FP8KIT_RS_CALL(16, "bf16", FP8KIT_RS_TAIL_16);
    else FP8KIT_RS_CALL(16, "f16", FP8KIT_RS_TAIL_16);
  } else if constexpr (N == 256) {
    if constexpr (kBf16) FP8KIT_RS_CALL(256, "bf16", FP8KIT_RS_TAIL_256);
    else FP8KIT_RS_CALL(256, "f16", FP8KIT_RS_TAIL_256);
  } else {
    if constexpr (kBf16) FP8KIT_RS_CALL(128, "bf16", FP8KIT_RS_TAIL_128);
    else FP8KIT_RS_CALL(128, "f16", FP8KIT_RS_TAIL_128);
  }
}
#undef FP8KIT_RS_CALL
#undef FP8KIT_RS_EXPAND
#undef FP8KIT_RS_ASM
#undef FP8KIT_RS_TAIL_256
#undef FP8KIT_RS_SEQ_256
#undef FP8KIT_RS_TAIL_128
#undef FP8KIT_RS_SEQ_128
#undef FP8KIT_RS_TAIL_16
#undef FP8KIT_RS_SEQ_16
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
