// Scale and bias handling of the native Hopper FP8 GEMM: the epilogue's
// per-row / per-column factors (loaded when a unit starts), and block
// scales (1x128 on A, 128x128 on B), which the producer's scale warp copies
// into each stage's scale slot and the consumers multiply into each K
// block's promotion. Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include <cstdint>

#include <cuda_fp16.h>

#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/ptx.cuh"
#include "gemm/sm90/shared_storage.hpp"
#include "gemm/sm90/tile_scheduler.cuh"

namespace fp8kit::sm90 {

// Per-tensor (of expert e) / per-row / per-column scale of index i (BLOCK and
// NONE: 1, the block scales were applied in the K loop).
__device__ __forceinline__ float vector_scale(const SideScales& s, int i, int e) {
  if (s.mode == FP8KIT_SCALE_TENSOR) return __ldg(s.ptr + e);
  if (s.mode == FP8KIT_SCALE_ROW || s.mode == FP8KIT_SCALE_COL) return __ldg(s.ptr + i);
  return 1.0f;
}

// A bias element as loaded: its raw bits (bf16 / f16 in the low half), turned
// into a float only where it is used. A conversion right after a load waits
// for the load there; kept raw, a load issued when a unit starts flies
// during the unit's K loop.
__device__ __forceinline__ uint32_t load_bias_bits(const void* bias, fp8kit_dtype type, int n) {
  if (bias == nullptr) return 0u;  // zero bits are 0.0 in every bias type
  if (type == FP8KIT_DTYPE_F32) return __float_as_uint(__ldg(static_cast<const float*>(bias) + n));
  return __ldg(static_cast<const unsigned short*>(bias) + n);
}

__device__ __forceinline__ float bias_value(uint32_t bits, fp8kit_dtype type) {
  if (type == FP8KIT_DTYPE_BF16) return __uint_as_float(bits << 16);
  if (type == FP8KIT_DTYPE_F16) return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
  return __uint_as_float(bits);
}

// This thread's kernel columns' scales and biases (column thread + 128 i,
// for i < TileConfig::kColFactorsPerThread, those < BN), loaded when a unit
// starts so that the loads fly during its K loop; shared with the
// warpgroup through shared memory in the epilogue.
struct ColFactor {
  float scale[kMaxColFactorsPerThread] = {};
  uint32_t bias_bits[kMaxColFactorsPerThread] = {};  // see load_bias_bits
};

template <class T>
__device__ __forceinline__ ColFactor load_col_factor(const KernelArgs& p, const Unit& w, int thread) {
  using Cfg = T;
  ColFactor c;
#pragma unroll
  for (int i = 0; i < Cfg::kColFactorsPerThread; ++i) {
    const int col = thread + i * kWarpgroupThreads;
    const int y = w.y0 + col;
    if (col >= Cfg::kBlockN || y >= w.y_end) return c;  // so are the thread's later columns
    // Block tiles: both modes are BLOCK (the API's rule), applied in the K loop.
    c.scale[i] = Cfg::kBlock ? 1.0f : vector_scale(p.y_scales, y, w.expert);
    if constexpr (!Cfg::kBiasAlongX) c.bias_bits[i] = load_bias_bits(p.bias, p.bias_type, y);
  }
  return c;
}

// This thread's kernel rows' scales and biases (per sub-tile s and h), also
// loaded when a unit starts.
template <class T>
struct RowFactors {
  using Cfg = T;
  static constexpr int kSub = Cfg::kSubTiles;
  float scale[kSub][2];
  uint32_t bias_bits[kSub][2];  // bias along X (swapped tiles) only

  __device__ __forceinline__ void load(const KernelArgs& p, const Unit& w, int row0) {
#pragma unroll
    for (int s = 0; s < kSub; ++s)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int x = row0 + s * kWgmmaM + 8 * h;
        const bool inside = x < w.x_end;
        scale[s][h] = Cfg::kBlock ? 1.0f : 0.0f;  // block tiles: scales applied in the K loop
        if constexpr (!Cfg::kBlock)
          if (inside) scale[s][h] = vector_scale(p.x_scales, x, w.expert);
        bias_bits[s][h] = 0u;
        if constexpr (Cfg::kBiasAlongX)
          if (inside) bias_bits[s][h] = load_bias_bits(p.bias, p.bias_type, x);
      }
  }
};

// ---- Block scales -----------------------------------------------------------------
// Whether TMA fills the stages' scale slots (A's scales, dense normal block
// tiles, where the host encoded them: p.fine_scales_tma); else the scale
// warp (or the slot warp) copies them, and every consumer thread frees a stage.
template <class T>
__device__ __forceinline__ bool slots_by_tma(const KernelArgs& p) {
  return T::kCoarseChunks && p.fine_scales_tma;
}

// The scale warp's copies of K block kb's scales of unit w into a stage's
// slot (layout in TileConfig), lane-strided, zero past the side's rows. The
// per-row side's scales are [k_blocks, block_ld] (rows-contiguous); the
// per-128-block side's [tiles of 128, k_blocks]; each from its expert's slab
// (kernel_args.hpp).
template <class T>
__device__ __forceinline__ void load_scale_slot(const KernelArgs& p, const Unit& w, int kb, float* slot, int lane) {
  using Cfg = T;
  constexpr bool kRowsOnX = Cfg::kRowBlockScalesOnX;
  const SideScales& fine = kRowsOnX ? p.x_scales : p.y_scales;
  const SideScales& coarse = kRowsOnX ? p.y_scales : p.x_scales;
  const int fine_rows = kRowsOnX ? w.x_end : w.y_end;
  const int fine_first = kRowsOnX ? w.x0 : w.y0;
  const int coarse_tile = kRowsOnX ? w.ty : w.tx;
  constexpr int kFineCount = kRowsOnX ? Cfg::kRowScales : Cfg::kColScales;
  constexpr int kFineOffset = kRowsOnX ? 0 : Cfg::kColScaleOffset;
  constexpr int kCoarseOffset = kRowsOnX ? Cfg::kColScaleOffset : 0;
  const float* fine_kb = fine.ptr + w.expert * fine.expert_stride + int64_t{kb} * fine.block_ld;
  const float* coarse_kb = coarse.ptr + w.expert * coarse.expert_stride + int64_t{coarse_tile} * p.k_blocks + kb;
  if constexpr (!kRowsOnX)  // the slot's order: rows' scales first
    if (lane == 0) ptx::cp_async_f32(slot + kCoarseOffset, coarse_kb, true);
  for (int r = lane; r < kFineCount; r += 32) {
    const int row = fine_first + r;
    ptx::cp_async_f32(slot + kFineOffset + r, row < fine_rows ? fine_kb + row : fine_kb, row < fine_rows);
  }
  if constexpr (Cfg::kCoarseChunks) {
    // B's scales come in chunks (load_coarse_chunk): the slot holds A's only.
  } else if constexpr (kRowsOnX && Cfg::kScaleGroups == 1) {
    if (lane == 0) ptx::cp_async_f32(slot + kCoarseOffset, coarse_kb, true);
  } else if constexpr (kRowsOnX) {
    // Tiles wider than a block: column group g's block, clamped to the side's
    // last one (a group past N is never stored).
    const float* coarse_base = coarse.ptr + w.expert * coarse.expert_stride + kb;
    const int last_block = (w.y_end - w.n_base - 1) / kScaleBlock;
    if (lane < Cfg::kScaleGroups) {
      const int block = min(last_block, (w.y0 - w.n_base + lane * Cfg::kScaleGroupCols) / kScaleBlock);
      ptx::cp_async_f32(slot + kCoarseOffset + lane, coarse_base + int64_t{block} * p.k_blocks, true);
    }
  }
}

// Dense normal block tiles: the scale warp's copies of B's scales of unit
// w's K blocks [kb0, kb0 + n) into a chunk buffer, (n, kScaleGroups) f32,
// lane-strided. Column group g's block is clamped to B's last one (a group
// past N is never stored).
template <class T>
__device__ __forceinline__ void load_coarse_chunk(const KernelArgs& p, const Unit& w, int kb0, int n, float* chunk,
                                                  int lane) {
  using Cfg = T;
  const int last_block = (w.y_end - w.n_base - 1) / kScaleBlock;
#pragma unroll 1  // the producer warpgroup's 40 registers
  for (int g = 0; g < Cfg::kScaleGroups; ++g) {
    const int block = min(last_block, (w.y0 - w.n_base + g * Cfg::kScaleGroupCols) / kScaleBlock);
    const float* src = p.y_scales.ptr + w.expert * p.y_scales.expert_stride + int64_t{block} * p.k_blocks + kb0;
    for (int j = lane; j < n; j += kScaleWarpLanes) ptx::cp_async_f32(chunk + j * Cfg::kScaleGroups + g, src + j, true);
  }
}

// The scale warp (block tiles): fills each stage's scale slot in the
// mainloop's order with cp.async, whose completion each lane hands to the
// stage's `full` barrier (one arrive per lane, when its copies have landed):
// the warp never waits for a load, so it runs ahead like the TMA thread.
// Dense normal block tiles: the slot warp does this where TMA does not fill
// the slots, and the scale warp copies B's scales by chunks (produce_coarse).
template <class T>
__device__ __forceinline__ void produce_scales(const KernelArgs& p, SharedStorage<T>& smem, int lane) {
  PipelineState<T::kStages> ps;
  ptx::griddep_wait();  // activation scales may come from the kernel before
  const int units = unit_count<T>(p, smem);
  for (int u = first_unit<T>(p); u < units; u = next_unit<T>(p, u)) {
    const Unit w = unit_of<T>(p, u, smem);
    for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
      ptx::wait_barrier(&smem.empty[ps.stage], ps.phase ^ 1u);
      load_scale_slot<T>(p, w, kb, smem.scales[ps.stage], lane);
      ptx::cp_async_arrive_noinc(&smem.full[ps.stage]);
      ps.advance();
    }
  }
}

// Dense normal block tiles, the scale warp: B's scales of every unit's K
// range in chunks of kCoarseChunkBlocks K blocks, in the consumers' order,
// each chunk's completion handed to its `coarse_full` (one arrive per lane).
template <class T>
__device__ __forceinline__ void produce_coarse(const KernelArgs& p, SharedStorage<T>& smem, int lane) {
  PipelineState<kCoarseChunkBuffers> cs;
  ptx::griddep_wait();  // as produce_scales: the scales belong to the stream's order
  const int units = unit_count<T>(p, smem);
  for (int u = first_unit<T>(p); u < units; u = next_unit<T>(p, u)) {
    const Unit w = unit_of<T>(p, u, smem);
    for (int kb0 = w.kb_begin; kb0 < w.kb_end; kb0 += kCoarseChunkBlocks, cs.advance()) {
      ptx::wait_barrier(&smem.coarse_empty[cs.stage], cs.phase ^ 1u);
      load_coarse_chunk<T>(p, w, kb0, min(kCoarseChunkBlocks, w.kb_end - kb0), smem.coarse[cs.stage], lane);
      ptx::cp_async_arrive_noinc(&smem.coarse_full[cs.stage]);
    }
  }
}

// A consumer's products of the two block scales of one K block, read from
// the stage's slot: per (column group, s, h) when the rows' scales are per
// row (the other side is uniform over each column group), per (j, e) when
// the columns' are.
template <class T>
struct BlockFactors {
  using Cfg = T;
  static constexpr bool kRowsOnX = Cfg::kRowBlockScalesOnX;
  static constexpr int kCount = kRowsOnX ? 2 * Cfg::kSubTiles * Cfg::kScaleGroups : Cfg::kBlockN / 4;
  float f[kCount];

  // `row` and `col`: this thread's first kernel row and column within the
  // tile; `coarse`: the K block's per-128-block scales (the column groups').
  __device__ __forceinline__ void read(const float* slot, const float* coarse, int row, int col) {
    if constexpr (!kRowsOnX) {
      const float b = slot[0];
#pragma unroll
      for (int j = 0; j < Cfg::kBlockN / 8; ++j) {
        const float2 a = *reinterpret_cast<const float2*>(slot + Cfg::kColScaleOffset + 8 * j + col);
        f[2 * j] = a.x * b;
        f[2 * j + 1] = a.y * b;
      }
    } else {
#pragma unroll
      for (int g = 0; g < Cfg::kScaleGroups; ++g) {
        const float b = coarse[g];
#pragma unroll
        for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
          for (int h = 0; h < 2; ++h) f[(g * Cfg::kSubTiles + s) * 2 + h] = slot[row + s * kWgmmaM + 8 * h] * b;
      }
    }
  }
  __device__ __forceinline__ float operator()(int s, int j, int h, int e) const {
    if constexpr (!kRowsOnX) return f[2 * j + e];
    return f[((8 * j) / Cfg::kScaleGroupCols * Cfg::kSubTiles + s) * 2 + h];  // j is unrolled: a register
  }
};

}  // namespace fp8kit::sm90
