// Quantisation to NVFP4, optionally fused with RMSNorm (fp8kit/nvfp4.h has
// the exact semantics; reference/nvfp4_codec.cpp computes the same f32
// operations on the host).
//
// One CTA per row (swizzled: per row of the padded 128-row tiles),
// kNvfp4Threads threads. Pass 1 (RMSNorm only): the row's sum of squares, reduced across the
// CTA. Pass 2: each thread owns blocks of 16 elements (block kb = tid,
// tid + kThreads, ...): reads them (two 16-byte loads), forms y, the block's
// amax, the E4M3 scale and the 16 E2M1 codes, stores 8 bytes of q and one
// scale byte. A padding row or block of the swizzled layout gets scale 0.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "arch/config.hpp"
#include "core/nvfp4_layout.hpp"
#include "quant/nvfp4_quantize_params.hpp"

namespace fp8kit::quant {

constexpr int kNvfp4Threads = 256;

template <fp8kit_dtype TX>
__device__ __forceinline__ float load_16bit(const void* base, int64_t i) {
  if constexpr (TX == FP8KIT_DTYPE_BF16) return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[i]);
  else return __half2float(static_cast<const __half*>(base)[i]);
}

// E2M1 code of v: round to nearest, ties to the even code, saturating at 6;
// NaN to 0. The thresholds are the midpoints of 0, 0.5, 1, 1.5, 2, 3, 4, 6;
// a tie rounds up where the upper code is even (>=), down where it is odd (>).
__device__ __forceinline__ uint32_t e2m1_code(float v) {
  if (v != v) return 0;
  const float a = fabsf(v);
  const uint32_t mag = (a > 0.25f) + (a >= 0.75f) + (a > 1.25f) + (a >= 1.75f) + (a > 2.5f) + (a >= 3.5f) + (a > 5.f);
  return (signbit(v) ? 0x8u : 0u) | mag;
}

template <fp8kit_dtype TX>
__global__ void __launch_bounds__(kNvfp4Threads) nvfp4_quantize_kernel(const Nvfp4QuantParams p) {
#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
  constexpr int kBlock = nvfp4::kBlock;
  __shared__ float red[kNvfp4Threads / 32];
  const int row = blockIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int blocks = p.k / kBlock;
  const bool swizzled = nvfp4::is_swizzled(p.scale_layout);
  const int64_t kb4 = nvfp4::padded_blocks(p.k);
  auto scale_at = [&](int kb) -> uint8_t* {
    return p.scale + (swizzled ? nvfp4::swizzled_offset(row, kb, kb4) : nvfp4::linear_offset(row, kb, blocks));
  };
  if (row >= p.m) {  // a padding row of the swizzled layout
    for (int kb = threadIdx.x; kb < kb4; kb += kNvfp4Threads) *scale_at(kb) = 0;
    return;
  }
  const int64_t xo = static_cast<int64_t>(row) * p.ldx;
  const float g = p.global_scale ? *p.global_scale : 1.f;

  float inv_rms = 1.f;
  if (p.rms_weight) {
    float sum = 0.f;
    for (int k = threadIdx.x; k < p.k; k += kNvfp4Threads) {
      const float v = load_16bit<TX>(p.x, xo + k);
      sum = fmaf(v, v, sum);
    }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == 0) red[warp] = sum;
    __syncthreads();
    sum = 0.f;
    for (int w = 0; w < kNvfp4Threads / 32; ++w) sum += red[w];
    inv_rms = rsqrtf(sum / p.k + p.eps);
  }

  const int64_t row_blocks = swizzled ? kb4 : blocks;
  for (int kb = threadIdx.x; kb < row_blocks; kb += kNvfp4Threads) {
    if (kb >= blocks) {  // padding block of the swizzled layout
      *scale_at(kb) = 0;
      continue;
    }
    float y[kBlock];
    float amax = 0.f;
#pragma unroll
    for (int i = 0; i < kBlock; ++i) {
      const int k = kb * kBlock + i;
      const float v = load_16bit<TX>(p.x, xo + k);
      y[i] = p.rms_weight ? __fmul_rn(__fmul_rn(v, load_16bit<TX>(p.rms_weight, k)), inv_rms) : v;
      amax = fmaxf(amax, fabsf(y[i]));
    }
    const float want = __fmul_rn(g, __fmul_rn(amax, 1.f / nvfp4::kE2m1Max));
    const uint8_t s = static_cast<uint8_t>(__nv_cvt_float_to_fp8(want, __NV_SATFINITE, __NV_E4M3));
    const float sv = __half2float(__half(__nv_cvt_fp8_to_halfraw(s, __NV_E4M3)));
    const float mul = sv > 0.f ? __frcp_rn(__fmul_rn(sv, __frcp_rn(g))) : 0.f;
    uint32_t packed[2] = {0, 0};
#pragma unroll
    for (int i = 0; i < kBlock; ++i) packed[i / 8] |= e2m1_code(__fmul_rn(y[i], mul)) << (4 * (i % 8));
    *reinterpret_cast<uint2*>(p.q + static_cast<int64_t>(row) * p.ldq + kb * (kBlock / 2)) =
        make_uint2(packed[0], packed[1]);
    *scale_at(kb) = s;
  }
#endif
}

}  // namespace fp8kit::quant
