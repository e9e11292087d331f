// NVFP4 A widened to bf16 for the W4A16 kernels (Hopper's NVFP4 A beyond
// decode, nvfp4_sm90_gemm.cu): out[r, k] = e2m1(r, k) * e4m3(scale(r, k / 16)),
// row pitch K. Exact: the product has at most 5 significant bits and lies
// within 6 * 448 and 2^-10, inside bf16's range. No tensor-core instruction:
// a conversion at the copy's speed (reads K / 2 + K / 16 bytes, writes 2K per
// row).
//
// One thread per block of 16 elements: 8 packed bytes and one scale byte in
// (a row's bytes at K / 2 pitch, 16-byte aligned: 8-byte loads), two 16-byte
// stores out (the workspace 16-byte aligned, rows of 2K bytes, K % 32 == 0).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "arch/config.hpp"
#include "core/nvfp4_layout.hpp"
#include "gemm/nvfp4/nvfp4_params.hpp"

namespace fp8kit::nvfp4::sm90w {

constexpr int kWidenThreads = 256;
// CTAs per SM the grid-stride loop keeps resident: 8 x 256 threads is an
// SM's 2,048, enough loads in flight to stream at the copy's speed.
constexpr int kWidenCtasPerSm = 8;
constexpr int kPackedBlockBytes = kBlock / kElementsPerByte;  // 8 bytes of a 16-element block

// The rows a widening covers: dense, the problem's M; grouped, every row of
// A (contiguous T sharing one scale matrix; masked E slabs of max_m rows,
// each with its own scale matrix, `a_scale_expert_stride` bytes apart).
struct WidenRows {
  int64_t rows;
  int64_t rows_per_scale_matrix;
  int64_t a_scale_expert_stride;
};

// The value of E2M1 code c (sign bit 3; exponent bits 2-1, bias 1; mantissa
// bit 0; exponent 0 is the subnormal 0 / 0.5), as its f32 bits.
__device__ __forceinline__ float e2m1_value(uint32_t c) {
  const uint32_t e = (c >> 1) & 3u, m = c & 1u;
  const float mag = e ? __uint_as_float(((e + 126u) << 23) | (m << 22)) : 0.5f * static_cast<float>(m);
  return (c & 8u) ? -mag : mag;
}

__global__ void __launch_bounds__(kWidenThreads) nvfp4_sm90_widen_kernel(const Nvfp4Params p, const WidenRows w) {
#if FP8KIT_HAS_WGMMA
  const int64_t blocks = p.k_blocks;
  const int64_t kb4 = padded_blocks(p.k);
  const bool swizzled = is_swizzled(p.a_scale_layout);
  const int64_t total = w.rows * blocks;
  auto* out = static_cast<__nv_bfloat162*>(p.a_wide);
  for (int64_t i = int64_t{blockIdx.x} * kWidenThreads + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * kWidenThreads) {
    const int64_t r = i / blocks, kb = i % blocks;
    const int64_t matrix = r / w.rows_per_scale_matrix, srow = p.a_scale_row0 + r % w.rows_per_scale_matrix;
    const uint8_t* scales = p.a_scale + matrix * w.a_scale_expert_stride;
    const uint8_t sbyte = scales[swizzled ? swizzled_offset(srow, kb, kb4) : linear_offset(srow, kb, blocks)];
    const float s = __half2float(__half(__nv_cvt_fp8_to_halfraw(sbyte, __NV_E4M3)));
    const uint2 q = *reinterpret_cast<const uint2*>(p.a + r * p.lda + kb * kPackedBlockBytes);
    __nv_bfloat162 v[kPackedBlockBytes];
#pragma unroll
    for (int j = 0; j < kPackedBlockBytes; ++j) {
      const uint32_t byte = ((j < 4 ? q.x : q.y) >> (8 * (j % 4))) & 0xffu;  // elements 2j (low), 2j + 1 (high)
      v[j] = __floats2bfloat162_rn(e2m1_value(byte & 0xfu) * s, e2m1_value(byte >> 4) * s);
    }
    uint4* dst = reinterpret_cast<uint4*>(out + (r * p.k + kb * kBlock) / 2);
    dst[0] = *reinterpret_cast<const uint4*>(&v[0]);
    dst[1] = *reinterpret_cast<const uint4*>(&v[4]);
  }
#endif
}

}  // namespace fp8kit::nvfp4::sm90w
