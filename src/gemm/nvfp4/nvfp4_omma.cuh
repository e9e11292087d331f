// The SM12x tensor-core policy of the NVFP4 GEMM: the block-scaled FP4
// mma.sync (SASS OMMA.SF.16864.F32.E2M1.E2M1.UE4M3.4X).
//
//   mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col
//       .f32.e2m1.e2m1.f32.ue4m3
//       d, a, b, c, scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b}
//
// computes D = (A * scale_A)(B * scale_B) + C with scale_A of shape 16 x 4 and
// scale_B of 4 x 8: one UE4M3 scale per 16 K of each row of A and column of
// B, NVFP4's blocks. With scale_vec::4X a 32-bit scale register holds the 4
// scales of one row (byte b: block b; byte-id is 0). For A, two threads of a
// quad supply rows g and g + 8 (thread-id-a picks the pair: 0 = threads 0
// and 1); here every even lane of a quad holds row g's word and every odd
// lane row g + 8's, so either pair reads the same. For B one thread of a quad
// supplies column g; all four hold it. The A and B fragments are the packed
// words nvfp4_gemm.cuh's ldmatrix loads give, unchanged.
//
// The instruction exists only for sm_12Xa / sm_12Xf targets; the sources that
// use it are built as one sm_120f image (nvfp4_sm120_gemm.cu).
#pragma once

#include <cstdint>

#include "arch/config.hpp"
#include "gemm/nvfp4/nvfp4_gemm.cuh"

namespace fp8kit::nvfp4 {

struct OmmaSf {
  static constexpr bool kBf16Operands = false;
  template <int kTilesM, int kTilesN, bool kA16>
  static __device__ __forceinline__ void stage(float (&c)[kTilesM][kTilesN][4], const StageFragments<kTilesM, kTilesN>& fr,
                                               uint32_t, int) {
    static_assert(!kA16, "the block-scaled FP4 mma takes NVFP4 A only");
#if FP8KIT_HAS_MMA_SYNC_FP4_BLOCK_SCALE
    const uint16_t selector = 0;
    const int odd = threadIdx.x & 1;
#pragma unroll
    for (int i = 0; i < kTilesM; ++i) {
      const uint32_t sfa = fr.a_scale[i][odd];
#pragma unroll
      for (int j = 0; j < kTilesN; ++j) {
        asm volatile(
            "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3}, {%10}, {%11, %12}, {%13}, {%14, %15};\n"
            : "+f"(c[i][j][0]), "+f"(c[i][j][1]), "+f"(c[i][j][2]), "+f"(c[i][j][3])
            : "r"(fr.a[i][0]), "r"(fr.a[i][1]), "r"(fr.a[i][2]), "r"(fr.a[i][3]), "r"(fr.b[j][0]), "r"(fr.b[j][1]),
              "r"(sfa), "h"(selector), "h"(selector), "r"(fr.b_scale[j]), "h"(selector), "h"(selector));
      }
    }
#endif
  }
};

}  // namespace fp8kit::nvfp4
