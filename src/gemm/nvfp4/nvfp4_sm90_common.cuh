// Device code both Hopper NVFP4 W4A16 kernels share (the prefill kernel,
// nvfp4_sm90_kernel.cuh, and the decode kernel, nvfp4_sm90_decode_kernel.cuh):
// a row's scales from a stage's swizzled tile, the K split's ranges and
// hand-off of partial accumulators, and the epilogue's staged store of D.
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cuda/ptx>

#include <cstdint>

#include "gemm/nvfp4/nvfp4_gemm.cuh"
#include "gemm/nvfp4/nvfp4_placed.cuh"
#include "gemm/nvfp4/nvfp4_sm90_config.hpp"
#include "gemm/sm90/ptx.cuh"

namespace fp8kit::nvfp4::sm90w {

namespace hptx = fp8kit::sm90::ptx;

// The first weight row (D column) and first token (D row) of a CTA's tile.
struct TileOrigin {
  int w0;
  int t0;
};

// This CTA's share of K: blocks [kb0, kb0 + count); the S CTAs of a
// cluster take consecutive ranges, the last ones possibly short or empty.
struct KRange {
  int kb0;
  int count;
};
__device__ __forceinline__ KRange k_range(int nkb, int splits, int rank) {
  const int per = (nkb + splits - 1) / splits;
  const int kb0 = rank * per;
  const int end = kb0 + per < nkb ? kb0 + per : nkb;
  return {kb0, end > kb0 ? end - kb0 : 0};
}

// Every thread of every CTA of the cluster (release, then acquire: the
// partials written before it are visible to the other CTAs after it).
__device__ __forceinline__ void cluster_sync() {
  cuda::ptx::barrier_cluster_arrive();
  cuda::ptx::barrier_cluster_wait();
}

// A consumer's partial accumulators (kRegs f32 per thread) in shared memory
// as float4 columns: thread-fastest, so that a warp's accesses are contiguous.
template <int kRegs>
__device__ __forceinline__ void leave_partial(float4* slot, int thread, const float (&acc)[kRegs]) {
#pragma unroll
  for (int q = 0; q < kRegs / 4; ++q)
    slot[q * kWarpgroupThreads + thread] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
}
// Adds the partial that cluster CTA `rank` left at its `slot` (the same
// offset as this CTA's) to acc, through distributed shared memory.
template <int kRegs>
__device__ __forceinline__ void add_partial(const float4* slot, uint32_t rank, int thread, float (&acc)[kRegs]) {
  const uint32_t remote = hptx::cluster_address(slot, rank);
#pragma unroll
  for (int q = 0; q < kRegs / 4; ++q) {
    const uint32_t at = static_cast<uint32_t>((q * kWarpgroupThreads + thread) * sizeof(float4));
    const float4 v = hptx::ld_cluster_f32x4(remote + at);
    acc[4 * q] += v.x;
    acc[4 * q + 1] += v.y;
    acc[4 * q + 2] += v.z;
    acc[4 * q + 3] += v.w;
  }
}

// The scale word (blocks 4 kb .. 4 kb + 3) of CTA weight row `local` from a
// stage's swizzled tile.
__device__ __forceinline__ uint32_t tile_scale_word(const uint8_t* tile, int local) {
  return *reinterpret_cast<const uint32_t*>(tile + (local % kLineRows) * kLineBytes + (local / kLineRows) * kTileBlocks);
}

// Byte b (block 4 kb + b) of CTA weight row `local`'s scales in a stage's
// swizzled tile.
__device__ __forceinline__ uint32_t tile_scale_byte(const uint8_t* tile, int local, int b) {
  return tile[(local % kLineRows) * kLineBytes + (local / kLineRows) * kTileBlocks + b];
}

// Stages this consumer's tile as OutT (D row = token, 64 weights per row)
// and stores D's rows in 16-byte pieces where they lie inside N and aligned.
// kPlacedOperands: how many of the MMA's operands were decoded by placement
// (the weights; NVFP4 tokens too), each carrying 2^-kPlacedExponent.
template <int kBlockT, typename OutT, int kPlacedOperands = 1>
__device__ __forceinline__ void store_tile(const Nvfp4Params& p, TileOrigin o, int consumer, int thread,
                                           const float (&acc)[kBlockT / 2], uint8_t* staging) {
  constexpr int kBytes = static_cast<int>(sizeof(OutT));
  constexpr int kPitch = staging_pitch(kBytes);
  constexpr int kPieceBytes = 16;
  constexpr int kPerPiece = kPieceBytes / kBytes;
  constexpr int kPieces = kWgmmaM * kBytes / kPieceBytes;  // per staged row
  const int warp = thread / 32, lane = thread % 32, g = lane / 4, t = lane % 4;
  // A placed operand is value x scale x 2^-kPlacedExponent (nvfp4_placed.cuh).
  constexpr float kUnplace = static_cast<float>(1 << (kPlacedExponent * kPlacedOperands));
  const float alpha = (p.alpha ? *p.alpha : 1.f) * kUnplace;
  const int wl0 = consumer * kWgmmaM;  // the consumer's first weight within the tile
  float bias[2] = {0.f, 0.f};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int n = o.w0 + wl0 + warp * 16 + g + 8 * h;
    if (p.bias && n < p.n) bias[h] = mma_sync::load_bias(p.bias, p.bias_type, n);
  }
#pragma unroll
  for (int j = 0; j < kBlockT / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int token = 8 * j + 2 * t + e, w = warp * 16 + g + 8 * h;
        *reinterpret_cast<OutT*>(staging + token * kPitch + w * kBytes) =
            static_cast<OutT>(acc[4 * j + 2 * h + e] * alpha + bias[h]);
      }
  hptx::named_barrier<kWarpgroupThreads>(kStagingBase + consumer);
  const bool vectors =
      (reinterpret_cast<uintptr_t>(p.d) % kPieceBytes == 0) && (p.ldd * kBytes) % kPieceBytes == 0;
  for (int i = thread; i < kBlockT * kPieces; i += kWarpgroupThreads) {
    const int r = i / kPieces, c = i % kPieces;
    const int64_t token = o.t0 + r;
    const int n = o.w0 + wl0 + c * kPerPiece;
    if (token >= p.m || n >= p.n) continue;
    const uint8_t* src = staging + r * kPitch + c * kPieceBytes;
    OutT* dst = static_cast<OutT*>(p.d) + token * p.ldd + n;
    if (vectors && n + kPerPiece <= p.n) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    } else {
      for (int q = 0; q < kPerPiece && n + q < p.n; ++q) dst[q] = reinterpret_cast<const OutT*>(src)[q];
    }
  }
}

}  // namespace fp8kit::nvfp4::sm90w
