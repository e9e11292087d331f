// Epilogue of the native Hopper FP8 GEMM, per consumer warpgroup and unit:
// the split-K reduction, then scales and bias in registers, conversion into
// a swizzled staging buffer, and TMA stores.
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (types only)
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemm/sm90/fragment.cuh"
#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/ptx.cuh"
#include "gemm/sm90/scales.cuh"
#include "gemm/sm90/shared_storage.hpp"
#include "gemm/sm90/tile_scheduler.cuh"

namespace fp8kit::sm90 {

__device__ __forceinline__ void consumer_barrier(int consumer) {
  // Named barrier 1 + consumer: the 128 threads of one consumer warpgroup.
  ptx::named_barrier<kWarpgroupThreads>(1 + consumer);
}

// Byte offset of (row, byte) in a chunk of kRowBytes-byte rows (32, 64 or
// 128) swizzled as TMA's SWIZZLE_<kRowBytes>B reads it: the 16-byte unit
// index within the row is XORed with the offset's bits 7 and up (the
// 128-byte line, row / (128 / kRowBytes)), so that a warp's 8 rows fall on
// all 32 banks. At 128 bytes: unit ^ row % 8.
template <int kRowBytes>
__device__ __forceinline__ int swizzled(int row, int byte) {
  constexpr int kUnitMask = kRowBytes / 16 - 1;
  constexpr int kRowsPerLine = kMaxOutChunkBytes / kRowBytes;
  return row * kRowBytes + ((((byte >> 4) ^ ((row / kRowsPerLine) & kUnitMask)) << 4) | (byte & 15));
}

// Two adjacent D elements, stored as one 4- or 8-byte access (the pair never
// straddles a 16-byte swizzle unit: its column is even).
template <typename OutT>
struct alignas(2 * sizeof(OutT)) Pair {
  OutT lo, hi;
};

// Staging geometry for output type OutT: D sub-tile (kOutRows, kOutCols) as
// column chunks of (kOutRows, kOutChunkBytes). The staging buffer holds a
// 16-bit sub-tile, so an f32 one goes out in two passes of half the chunks.
template <class T, typename OutT>
struct StoreShape {
  using Cfg = T;
  static constexpr int kRowBytes = Cfg::kOutChunkBytes;
  static constexpr int kChunkCols = kRowBytes / static_cast<int>(sizeof(OutT));
  static constexpr int kChunkBytes = Cfg::kOutRows * kRowBytes;
  static constexpr int kChunks = Cfg::kOutCols / kChunkCols;
  static constexpr int kChunksPerPass = Cfg::kStagingBytes / kChunkBytes;
  static constexpr int kPasses = kChunks / kChunksPerPass;
  static constexpr int kPassCols = kChunksPerPass * kChunkCols;
  static_assert(kChunks % kChunksPerPass == 0, "passes hold whole chunks");
};

// Writes the chunks of pass `pass` of this thread's converted fragment into
// the warpgroup's staging buffer, swizzled.
template <class T, typename OutT>
__device__ __forceinline__ void stage_out(const float (&v)[T::kAccRegs], uint8_t* staging, int thread,
                                          int pass) {
  using Cfg = T;
  using S = StoreShape<T, OutT>;
  const int warp = thread / 32, lane = thread % 32;
#pragma unroll
  for (int j = 0; j < Cfg::kBlockN / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int x = warp * 16 + lane / 4 + 8 * h;  // kernel row within the sub-tile's 64
      const int y = 8 * j + 2 * (lane % 4);        // kernel column within the tile (e = 0)
      const float v0 = v[4 * j + 2 * h], v1 = v[4 * j + 2 * h + 1];
      if constexpr (Cfg::kSwap) {  // D row = kernel column, D column = kernel row
        const int chunk = x / S::kChunkCols;
        if (chunk / S::kChunksPerPass != pass) continue;  // warp-uniform
        uint8_t* base = staging + (chunk % S::kChunksPerPass) * S::kChunkBytes;
#pragma unroll
        for (int e = 0; e < 2; ++e)
          *reinterpret_cast<OutT*>(base + swizzled<S::kRowBytes>(y + e, (x % S::kChunkCols) * sizeof(OutT))) =
              static_cast<OutT>(e ? v1 : v0);
      } else {  // D row = kernel row; the pair is adjacent in D
        const int chunk = (8 * j) / S::kChunkCols;  // compile-time after unrolling
        if (chunk / S::kChunksPerPass != pass) continue;
        uint8_t* base = staging + (chunk % S::kChunksPerPass) * S::kChunkBytes;
        *reinterpret_cast<Pair<OutT>*>(base + swizzled<S::kRowBytes>(x, (y % S::kChunkCols) * sizeof(OutT))) =
            Pair<OutT>{static_cast<OutT>(v0), static_cast<OutT>(v1)};
      }
    }
}

// Stores this warpgroup's sub-tiles (scaled, in f32 registers) as OutT:
// staging, then TMA stores. TMA clips rows beyond M exactly, but columns only
// to 16-byte granules, so the tensor map ends at n_tma (N rounded down to 16
// bytes) and the few columns in [n_tma, N) are written by plain stores from
// the staging buffer: a TMA box ending inside a granule past N would write
// the whole granule, into D's padding (ldd > N), which may hold user data.
// Grouped tiles: D's map holds every expert's rows, so a sub-tile whose rows
// run past its expert's end (into the next expert's, or rows of no expert)
// goes out by plain stores of its rows only; TMA where it is whole, or where
// the expert's end is D's (the map clips there).
// On entry the staging buffer is free (no store reads it) and every thread
// of the warpgroup is past its last read of it.
template <class T, typename OutT>
__device__ __forceinline__ void store_tile(const KernelArgs& p, const CUtensorMap* tmap_d, const Unit& w, int consumer,
                                           int thread, Accumulators<T>& acc, uint8_t* staging) {
  using Cfg = T;
  using S = StoreShape<T, OutT>;
  constexpr int elem = static_cast<int>(sizeof(OutT));
#pragma unroll
  for (int s = 0; s < Cfg::kSubTiles; ++s) {
    const int sub = sub_row0<T>(w, consumer, s);
    // D row = A's kernel row (global in D), D column = B's minus the expert's base.
    const int d_row0 = Cfg::kSwap ? w.y0 : sub;
    const int d_col0 = (Cfg::kSwap ? sub : w.y0) - w.n_base;
    const int row_end = Cfg::kSwap ? w.y_end : w.x_end;  // <= d_rows
    const bool tma_rows = Cfg::kTmaStores && (d_row0 + Cfg::kOutRows <= row_end || row_end >= p.d_rows);
#pragma unroll
    for (int pass = 0; pass < S::kPasses; ++pass) {
      if (s > 0 || pass > 0) {  // the previous pass's store must have read the staging buffer
        if (thread == 0) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
        consumer_barrier(consumer);
      }
      stage_out<T, OutT>(acc[s], staging, thread, pass);
      // The staged chunks go out through the async proxy: make the
      // generic-proxy writes visible to it, then one thread issues the stores.
      cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
      consumer_barrier(consumer);
      const int col_lo = d_col0 + pass * S::kPassCols;
      if (thread == 0) {
        for (int c = 0; tma_rows && c < S::kChunksPerPass && col_lo + c * S::kChunkCols < p.n_tma; ++c) {
          const int32_t coords[2] = {col_lo + c * S::kChunkCols, d_row0};
          cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, tmap_d, coords,
                                          staging + c * S::kChunkBytes);
        }
        cuda::ptx::cp_async_bulk_commit_group();
      }
      const int tail_lo = tma_rows ? max(p.n_tma, col_lo) : col_lo, tail_hi = min(p.d_cols, col_lo + S::kPassCols);
      if (tail_lo < tail_hi) {  // uniform over the warpgroup; the next pass starts with a barrier
        const int width = tail_hi - tail_lo;
        const int rows = min(Cfg::kOutRows, row_end - d_row0);
        for (int i = thread; i < rows * width; i += kWarpgroupThreads) {
          const int r = i / width, col = tail_lo + i % width - col_lo;
          const uint8_t* src = staging + (col / S::kChunkCols) * S::kChunkBytes +
                               swizzled<S::kRowBytes>(r, (col % S::kChunkCols) * elem);
          OutT* dst = static_cast<OutT*>(p.d) + int64_t{d_row0 + r} * p.ldd + col_lo + col;
          *dst = *reinterpret_cast<const OutT*>(src);
        }
      }
    }
  }
}

// Split-K: every split stores its partial sub-tiles (register-major,
// coalesced), then counts itself in; the last to arrive sums all partials in
// split order (deterministic) into `acc` and puts the counter back to zero,
// so a workspace stays ready for the next launch (the contract:
// fp8kit_gemm_options.workspace_zeroed). A partial keeps only registers
// r < p.partial_regs: in swapped tiles those hold the token columns inside D
// (the tokens are the tile's 64 columns), so the f32 round trip shrinks with
// M; in the others every register. Ordering: the consumer's barrier puts
// every thread's stores before thread 0's acq_rel add (release for this
// split's partial, acquire for the others'), and the second barrier puts
// the last split's reads after it (no per-thread fence).
// Returns false in the splits that were not last (they are done).
template <class T>
__device__ __forceinline__ bool reduce_splits(const KernelArgs& p, const Unit& w, int unit, int consumer, int thread,
                                              Accumulators<T>& acc, unsigned* last_flag) {
  using Cfg = T;
  constexpr int R = Cfg::kAccRegs;
  constexpr int BN = Cfg::kBlockN;
  // Swapped tiles: one tile along Y (M <= 64 = BN), so the registers of the
  // columns inside D are the first 4 * ceil(M / 8), which p.partial_regs
  // counts; the others keep all R, known at compile time.
  const int64_t sub_stride = int64_t{Cfg::kSwap ? p.partial_regs : R} * kWarpgroupThreads;  // one sub-tile
  const int64_t per_consumer = sub_stride * Cfg::kSubTiles;
  const Fragment f(sub_row0<T>(w, consumer, 0), w.y0, thread);
  // (Swapped tiles only: in the others every element is stored, which
  // keeps the 256 x 128 tiles' registers free of the predicates.)
  auto inside = [&](int s, int j, int h, int e) {
    if constexpr (!Cfg::kSwap) return true;
    return f.row0 + s * kWgmmaM + 8 * h < w.x_end && f.col0 + 8 * j + e < w.y_end;
  };
  float* mine = p.partials + (int64_t{unit} * kConsumers + consumer) * per_consumer;
#pragma unroll
  for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int r = 4 * j + 2 * h + e;
          if (inside(s, j, h, e)) __stcg(mine + s * sub_stride + r * kWarpgroupThreads + thread, acc[s][r]);
        }
  consumer_barrier(consumer);
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(p.counters[w.tile * kConsumers + consumer]);
  if (thread == 0)
    last_flag[consumer] = counter.fetch_add(1u, cuda::memory_order_acq_rel) == static_cast<unsigned>(p.splits - 1);
  consumer_barrier(consumer);
  if (!last_flag[consumer]) return false;
#pragma unroll
  for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
    for (int r = 0; r < R; ++r) acc[s][r] = 0.0f;
  for (int split = 0; split < p.splits; ++split) {
    const float* part = p.partials + (int64_t{w.tile * p.splits + split} * kConsumers + consumer) * per_consumer;
#pragma unroll
    for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int r = 4 * j + 2 * h + e;
            if (inside(s, j, h, e)) acc[s][r] += __ldcg(part + s * sub_stride + r * kWarpgroupThreads + thread);
          }
  }
  // Every split has arrived, so nothing in this launch reads the counter
  // again; the kernel boundary (griddepcontrol.wait under programmatic
  // launch) orders this store before the next launch's first add.
  if (thread == 0) counter.store(0u, cuda::memory_order_relaxed);
  return true;
}

// Epilogue of one unit for one consumer warpgroup: split-K reduction when the
// unit is a split of a workspace split-K, then scales, bias, conversion and stores.
template <class T>
__device__ __forceinline__ void epilogue(const KernelArgs& p, const CUtensorMap* tmap_d, const Unit& w, int unit,
                                         int consumer, int thread, Accumulators<T>& acc, const RowFactors<T>& rf,
                                         const ColFactor& cf, SharedStorage<T>& smem, bool& store_pending) {
  using Cfg = T;
  constexpr int BN = Cfg::kBlockN;
  // Split-K through the workspace (a cluster split lends none: cluster_split.cuh).
  if (p.partials != nullptr && !reduce_splits<T>(p, w, unit, consumer, thread, acc, smem.last_flag)) return;

  float row_bias[Cfg::kSubTiles][2];
#pragma unroll
  for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
    for (int h = 0; h < 2; ++h) row_bias[s][h] = bias_value(rf.bias_bits[s][h], p.bias_type);

  // The column factors share the epilogue buffer with the staging, so it
  // must be free of the previous unit's stores.
  typename SharedStorage<T>::Epilogue& buf = smem.epilogue[consumer];
  if (thread == 0 && store_pending) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
  store_pending = true;
  consumer_barrier(consumer);
#pragma unroll
  for (int i = 0; i < Cfg::kColFactorsPerThread; ++i) {
    const int col = thread + i * kWarpgroupThreads;
    if (col < BN) {
      buf.col_factors[0][col] = cf.scale[i];
      buf.col_factors[1][col] = bias_value(cf.bias_bits[i], p.bias_type);
    }
  }
  consumer_barrier(consumer);
  const int lane = thread % 32;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int y = 8 * j + 2 * (lane % 4);  // column within the tile of e = 0 (even: float2-aligned)
    const float2 cs = *reinterpret_cast<const float2*>(&buf.col_factors[0][y]);
    const float2 cb = *reinterpret_cast<const float2*>(&buf.col_factors[1][y]);
#pragma unroll
    for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float& v0 = acc[s][4 * j + 2 * h];
        float& v1 = acc[s][4 * j + 2 * h + 1];
        v0 = v0 * (rf.scale[s][h] * cs.x) + (row_bias[s][h] + cb.x);
        v1 = v1 * (rf.scale[s][h] * cs.y) + (row_bias[s][h] + cb.y);
      }
  }
  consumer_barrier(consumer);  // every read of the column factors is done before staging overwrites them
  switch (p.d_type) {
    case FP8KIT_DTYPE_BF16: store_tile<T, __nv_bfloat16>(p, tmap_d, w, consumer, thread, acc, buf.staging); break;
    case FP8KIT_DTYPE_F16: store_tile<T, __half>(p, tmap_d, w, consumer, thread, acc, buf.staging); break;
    default: store_tile<T, float>(p, tmap_d, w, consumer, thread, acc, buf.staging); break;
  }
}

}  // namespace fp8kit::sm90
