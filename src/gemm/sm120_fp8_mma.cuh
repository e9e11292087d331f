// The SM12x tensor-core policy of the portable FP8 GEMM: the block-scaled
// mma.sync with unit scales (SASS QMMA.SF.16832.F32.<A>.<B>.E8).
//
//   mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col
//       .f32.<atype>.<btype>.f32.ue8m0
//       d, a, b, c, scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b}
//
// computes D = (A * scale_A)(B * scale_B) + C with scale_A of shape 16 x 1 and
// scale_B of 1 x 8 (scale_vec::1X: one UE8M0 scale per row of A and per column
// of B for the whole K = 32). Each scale is one byte of the 32-bit scale-*-data
// register of one lane of a quad: thread-id picks the lane, byte-id the byte.
// For .e4m3 / .e5m2 the A, B, C and D fragments are those of the plain
// m16n8k32 FP8 mma (four bytes of K per 32-bit register, the same lanes), so
// the kernel's ldmatrix loads feed it unchanged.
//
// Unit scales: every byte of scale-a-data and scale-b-data is 127, and UE8M0
// 127 is 2^(127 - 127) = 1.0. Whatever lane and byte the selectors pick, each
// product is multiplied by exactly 1.0, so D = A B + C, the plain
// instruction's result; the selectors are left at 0. fp8kit's own scales stay
// in the epilogue (and in the 128-deep promotion of block mode).
//
// Why: public measurements on RTX 50xx put QMMA.SF at twice the rate of plain
// QMMA with f32 accumulation (docs/perf/log/2026-12-01-mma-sync-sm12x.md). The instruction exists
// only for sm_12Xa / sm_12Xf targets; sm120_fp8_gemm.cu is built as sm_120f.
#pragma once

#include <cstdint>

#include "arch/config.hpp"
#include "gemm/mma_sync_fp8_gemm.cuh"

namespace fp8kit::mma_sync {

constexpr uint32_t kUnitScalesUe8m0 = 0x7f7f7f7fu;  // four UE8M0 bytes of 2^0

template <fp8kit_dtype TA, fp8kit_dtype TB>
struct Fp8BlockScaledMma {
  static __device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if FP8KIT_HAS_MMA_SYNC_BLOCK_SCALE
    const uint16_t selector = 0;  // byte 0 of lane 0 of each quad: any byte is 1.0
#define FP8KIT_QMMA_SF_ASM(AT, BT)                                                                          \
  asm volatile("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32." AT "." BT \
               ".f32.ue8m0 "                                                                               \
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3}, {%10}, {%11, %12}, {%13}, "   \
               "{%14, %15};\n"                                                                             \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                                            \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(kUnitScalesUe8m0),  \
                 "h"(selector), "h"(selector), "r"(kUnitScalesUe8m0), "h"(selector), "h"(selector))
    if constexpr (Fp8Name<TA>::kE4m3 && Fp8Name<TB>::kE4m3) {
      FP8KIT_QMMA_SF_ASM("e4m3", "e4m3");
    } else if constexpr (Fp8Name<TA>::kE4m3) {
      FP8KIT_QMMA_SF_ASM("e4m3", "e5m2");
    } else if constexpr (Fp8Name<TB>::kE4m3) {
      FP8KIT_QMMA_SF_ASM("e5m2", "e4m3");
    } else {
      FP8KIT_QMMA_SF_ASM("e5m2", "e5m2");
    }
#undef FP8KIT_QMMA_SF_ASM
#endif
  }
};

}  // namespace fp8kit::mma_sync
