// Quantisation to FP8, optionally fused with RMSNorm: the producer of the
// GEMM's A operand and its scales (fp8kit.h has the exact semantics).
//
// One CTA per row, kThreads threads, element loads coalesced across the CTA.
//   pass 1 (only for RMSNorm or ROW scales): sum of squares and amax of
//           x * w over the row, reduced across the CTA;
//   pass 2: y = x * inv_rms * w, scaled and converted; in BLOCK mode each warp
//           owns one 128-wide group at a time (4 elements a lane), reduces
//           its amax with shuffles and writes the group's scale.
// The row is read twice when pass 1 runs; the second read hits L2 for any
// row under a few MB.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "arch/config.hpp"
#include "fp8kit/fp8kit.h"
#include "quant/quantize_params.hpp"

namespace fp8kit::quant {

constexpr int kThreads = 256;
constexpr int kGroup = 128;               // BLOCK mode group width (= kScaleBlock)
constexpr int kGroupPerLane = kGroup / 32;  // elements per lane in BLOCK mode

template <fp8kit_dtype TX>
__device__ __forceinline__ float load_x(const void* base, int64_t i) {
  if constexpr (TX == FP8KIT_DTYPE_BF16) return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[i]);
  else if constexpr (TX == FP8KIT_DTYPE_F16) return __half2float(static_cast<const __half*>(base)[i]);
  else return static_cast<const float*>(base)[i];
}

template <fp8kit_dtype TQ>
__device__ __forceinline__ uint8_t to_fp8(float v) {
  constexpr __nv_fp8_interpretation_t kKind = TQ == FP8KIT_DTYPE_E4M3 ? __NV_E4M3 : __NV_E5M2;
  return static_cast<uint8_t>(__nv_cvt_float_to_fp8(v, __NV_SATFINITE, kKind));
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <fp8kit_dtype TX, fp8kit_dtype TQ, fp8kit_scale_mode kMode>
__global__ void __launch_bounds__(kThreads) quantize_kernel(const QuantParams p) {
#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)
  __shared__ float red_sum[kThreads / 32], red_max[kThreads / 32];
  const int row = blockIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t xo = static_cast<int64_t>(row) * p.ldx;
  auto y_raw = [&](int k) {  // x * rms_weight, before the row's 1/rms
    const float v = load_x<TX>(p.x, xo + k);
    return p.rms_weight ? v * load_x<TX>(p.rms_weight, k) : v;
  };

  float inv_rms = 1.f, row_amax = 0.f;
  if (p.rms_weight || kMode == FP8KIT_SCALE_ROW) {
    float sum = 0.f, amax = 0.f;
    for (int k = threadIdx.x; k < p.k; k += kThreads) {
      const float v = load_x<TX>(p.x, xo + k);
      sum += v * v;
      amax = fmaxf(amax, fabsf(y_raw(k)));
    }
    sum = warp_sum(sum);
    amax = warp_max(amax);
    if (lane == 0) red_sum[warp] = sum, red_max[warp] = amax;
    __syncthreads();
    sum = 0.f;
    amax = 0.f;
    for (int w = 0; w < kThreads / 32; ++w) sum += red_sum[w], amax = fmaxf(amax, red_max[w]);
    if (p.rms_weight) inv_rms = rsqrtf(sum / p.k + p.eps);
    row_amax = amax * inv_rms;
  }

  uint8_t* q = p.q + static_cast<int64_t>(row) * p.ldq;
  if constexpr (kMode == FP8KIT_SCALE_BLOCK) {
    const int groups = (p.k + kGroup - 1) / kGroup;
    for (int g = warp; g < groups; g += kThreads / 32) {
      float v[kGroupPerLane];
      float amax = 0.f;
#pragma unroll
      for (int e = 0; e < kGroupPerLane; ++e) {
        const int k = g * kGroup + lane * kGroupPerLane + e;
        v[e] = k < p.k ? y_raw(k) * inv_rms : 0.f;
        amax = fmaxf(amax, fabsf(v[e]));
      }
      amax = warp_max(amax);
      const float s = amax > 0.f ? amax / p.fp8_max : 1.f;
      const float inv = 1.f / s;
#pragma unroll
      for (int e = 0; e < kGroupPerLane; ++e) {
        const int k = g * kGroup + lane * kGroupPerLane + e;
        if (k < p.k) q[k] = to_fp8<TQ>(v[e] * inv);
      }
      if (lane == 0) p.scale[static_cast<int64_t>(g) * p.m + row] = s;
    }
  } else {
    float s;
    if constexpr (kMode == FP8KIT_SCALE_ROW) {
      s = row_amax > 0.f ? row_amax / p.fp8_max : 1.f;
      if (threadIdx.x == 0) p.scale[row] = s;
    } else {
      s = p.scale[0];
    }
    const float mul = inv_rms / s;
    for (int k = threadIdx.x; k < p.k; k += kThreads) q[k] = to_fp8<TQ>(y_raw(k) * mul);
  }
#endif
}

}  // namespace fp8kit::quant
