// Native Hopper FP8 GEMM (sm_90a): TMA loads into 128B-swizzled shared memory,
// wgmma.mma_async m64nNk32 with f32 accumulators, warp specialisation, a
// persistent grid with grouped rasterisation, and split-K with a deterministic
// in-kernel reduction.
//
// The kernel computes a tile product C = X . Y^T over "kernel rows" (X, the
// wgmma M side) and "kernel columns" (Y, the wgmma N side):
//   normal:  X = A [M, K], Y = B [N, K]   ->  D[m, n] = C[m, n]
//   swapped: X = B [N, K], Y = A [M, K]   ->  D[m, n] = C[n, m]
// Swapping lets N fill the 64-row wgmma M side when M is small (decode).
//
// Thread block: 3 warpgroups. Warpgroup 0 is the producer (one thread issues
// TMA; in block-scale tiles its warp 1, the scale warp, copies each K block's
// scales into the stage); warpgroups 1 and 2 are consumers, each owning half
// of the tile's kernel rows (one or two wgmma m64 sub-tiles) and all BN
// columns. The tile configurations are in sm90_fp8_gemm_traits.hpp.
//
// Block scales (1x128 on A, 128x128 on B): each 128-deep K block's wgmma sum
// is promoted into an f32 master accumulator with the two scales of that K
// block (as DeepGEMM does); operands are never dequantised.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (types only; the driver is reached through cudart)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "arch/config.hpp"
#include "fp8kit/fp8kit.h"
#include "gemm/sm90_fp8_gemm_traits.hpp"

#if FP8KIT_HAS_WGMMA
#include <cuda/ptx>
#endif

namespace fp8kit::sm90 {

// Everything the kernel needs besides the two tensor maps (kernel parameter
// space, by value). Sizes are runtime; the host validated them.
struct Sm90Args {
  int m, n, k;              // the logical problem
  int k_blocks;             // ceil(K / kBlockK) = ceil(K / 128)
  int tiles_x, tiles_y;     // tiles along kernel rows / kernel columns
  int group_x;              // rasterisation: tiles along X in one group
  int splits;               // split-K factor (1: none)
  int kb_per_split;         // K blocks per split (last split may have fewer)
  int num_units;            // tiles_x * tiles_y * splits
  void* d;                  // D: TMA stores (third tensor map) up to column n_tma,
  int64_t ldd;              //    plain stores for columns [n_tma, N)
  int n_tma;                // N rounded down to a multiple of 16 bytes of D
  fp8kit_dtype d_type;
  fp8kit_scale_mode a_mode, b_mode;
  const float* a_scale;
  const float* b_scale;
  const void* bias;         // nullptr: none
  fp8kit_dtype bias_type;
  float* partials;          // split-K: [num_units][BLK_M * BLK_N] f32 (unused if splits == 1)
  unsigned* counters;       // split-K: [tiles * kConsumers] arrival counts, zero at launch
};

// ---- Device code: sm_90a only -------------------------------------------------
// NOTE: this is the file's one family-range guard. The .cu that includes this
// header refuses (#error) any device pass outside FP8KIT_HAS_WGMMA, so the
// #else branch below is only ever the host pass, which needs the kernel's
// signature for its launch stub and nothing else.
#if FP8KIT_HAS_WGMMA
namespace detail {

// wgmma operand lists: N/2 f32 accumulators, then the two descriptors and the
// scale-d flag (generated, one set per wgmma N).
#define FP8KIT_WGMMA_D64 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}"
#define FP8KIT_WGMMA_DESC64 "%32, %33"
#define FP8KIT_WGMMA_SCALE64 "%34"
#define FP8KIT_WGMMA_ARGS64(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define FP8KIT_WGMMA_D128 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" ", " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}"
#define FP8KIT_WGMMA_DESC128 "%64, %65"
#define FP8KIT_WGMMA_SCALE128 "%66"
#define FP8KIT_WGMMA_ARGS128(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
// D (+)= X . Y^T for one m64 x N x k32 step. X and Y come from shared-memory
// descriptors (both K-major: the only FP8 layout wgmma has). scale_d == 0
// overwrites D instead of accumulating (the first step of a tile).
#define FP8KIT_DEFINE_WGMMA(N, TX, TY)                                                          \
  __device__ __forceinline__ void wgmma_m64n##N##k32_##TX##_##TY(float(&d)[N / 2], uint64_t dx,   \
                                                                 uint64_t dy, uint32_t scale_d) { \
    asm volatile(                                                                               \
        "{\n.reg .pred p;\nsetp.ne.b32 p, " FP8KIT_WGMMA_SCALE##N ", 0;\n"                       \
        "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32." #TX "." #TY " " FP8KIT_WGMMA_D##N       \
        ", " FP8KIT_WGMMA_DESC##N ", p, 1, 1;\n}\n"                                              \
        : FP8KIT_WGMMA_ARGS##N(d)                                                               \
        : "l"(dx), "l"(dy), "r"(scale_d));                                                      \
  }
#define FP8KIT_DEFINE_WGMMA_TYPES(N)   \
  FP8KIT_DEFINE_WGMMA(N, e4m3, e4m3)   \
  FP8KIT_DEFINE_WGMMA(N, e4m3, e5m2)   \
  FP8KIT_DEFINE_WGMMA(N, e5m2, e4m3)   \
  FP8KIT_DEFINE_WGMMA(N, e5m2, e5m2)
FP8KIT_DEFINE_WGMMA_TYPES(64)
FP8KIT_DEFINE_WGMMA_TYPES(128)
#undef FP8KIT_DEFINE_WGMMA_TYPES
#undef FP8KIT_DEFINE_WGMMA

#define FP8KIT_WGMMA_SELECT(N)                                              \
  if constexpr (kX4 && kY4) wgmma_m64n##N##k32_e4m3_e4m3(d, dx, dy, scale_d); \
  else if constexpr (kX4) wgmma_m64n##N##k32_e4m3_e5m2(d, dx, dy, scale_d);   \
  else if constexpr (kY4) wgmma_m64n##N##k32_e5m2_e4m3(d, dx, dy, scale_d);   \
  else wgmma_m64n##N##k32_e5m2_e5m2(d, dx, dy, scale_d);

template <int N, fp8kit_dtype TX, fp8kit_dtype TY>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], uint64_t dx, uint64_t dy, uint32_t scale_d) {
  constexpr bool kX4 = (TX == FP8KIT_DTYPE_E4M3);
  constexpr bool kY4 = (TY == FP8KIT_DTYPE_E4M3);
  static_assert(N == 64 || N == 128, "wgmma N of a tile configuration");
  if constexpr (N == 64) {
    FP8KIT_WGMMA_SELECT(64)
  } else {
    FP8KIT_WGMMA_SELECT(128)
  }
}
#undef FP8KIT_WGMMA_SELECT

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Keeps the compiler from moving accumulator reads/writes across wgmma issue
// and wait (the registers are written asynchronously by the tensor cores).
template <int R>
__device__ __forceinline__ void fence_operands(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Shared-memory matrix descriptor of a K-major tile whose rows are 128 bytes,
// 128B-swizzled, 8-row groups 1024 bytes apart. The tile must start on a
// 1024-byte boundary (the descriptor's base offset is 0).
constexpr uint64_t kDescSwizzle128B = uint64_t{1} << 62;
constexpr uint64_t kDescLeadingByteOffset = uint64_t{1} << 16;  // unused for swizzled K-major; 1 by convention
constexpr int kDescStrideShift = 32;
constexpr uint32_t kDescAddrMask = 0x3FFFF;
// Moving one wgmma K step (32 FP8 = 32 bytes) along K inside a swizzled row is
// +32 bytes on the start address, which the descriptor holds in 16-byte units.
constexpr uint64_t kDescKStep = kWgmmaK / 16;

__device__ __forceinline__ uint64_t smem_desc(const void* tile) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  return static_cast<uint64_t>((addr & kDescAddrMask) >> 4) | kDescLeadingByteOffset |
         (static_cast<uint64_t>(kSwizzleAtomBytes >> 4) << kDescStrideShift) | kDescSwizzle128B;
}

__device__ __forceinline__ void wait_barrier(uint64_t* bar, uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

__device__ __forceinline__ void consumer_barrier(int consumer) {
  // Named barrier 1 + consumer: the 128 threads of one consumer warpgroup (0 is __syncthreads).
  asm volatile("bar.sync %0, %1;\n" ::"r"(1 + consumer), "n"(kWarpgroupThreads) : "memory");
}

struct Unit {
  int tile;            // linear tile index (before the split)
  int tx, ty;          // tile coordinates along X (kernel rows) and Y (kernel columns)
  int kb_begin, kb_end;  // K blocks of this split
};

// Work unit u -> tile and K range. Tiles are visited in groups of group_x
// tiles along X (X fastest inside a group), so that the units running at the
// same time share few X and Y panels and keep them in L2. A tile's splits
// are adjacent units.
__device__ __forceinline__ Unit decode_unit(const Sm90Args& p, int u) {
  Unit w;
  w.tile = u / p.splits;
  const int split = u - w.tile * p.splits;
  const int per_group = p.group_x * p.tiles_y;
  const int group = w.tile / per_group;
  const int first_x = group * p.group_x;
  const int gx = min(p.tiles_x - first_x, p.group_x);
  const int local = w.tile - group * per_group;
  w.tx = first_x + local % gx;
  w.ty = local / gx;
  w.kb_begin = split * p.kb_per_split;
  w.kb_end = min(p.k_blocks, w.kb_begin + p.kb_per_split);
  return w;
}

template <int kStages>
__device__ __forceinline__ void advance(int& stage, uint32_t& phase) {
  if (++stage == kStages) {
    stage = 0;
    phase ^= 1u;
  }
}

// Per-tensor / per-row / per-column scale of index i (BLOCK and NONE: 1, the
// block scales were applied in the K loop).
__device__ __forceinline__ float vector_scale(fp8kit_scale_mode mode, const float* s, int i) {
  if (mode == FP8KIT_SCALE_TENSOR) return __ldg(s);
  if (mode == FP8KIT_SCALE_ROW || mode == FP8KIT_SCALE_COL) return __ldg(s + i);
  return 1.0f;
}

// A bias element as loaded: its raw bits (bf16 / f16 in the low half), turned
// into a float only where it is used. NOTE: a conversion right after a load
// waits for the load there; kept raw, a load issued when a unit starts flies
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

// Fragment geometry of an m64 x BN f32 accumulator (wgmma D layout): thread t
// of a consumer warpgroup holds rows warp*16 + lane/4 + 8h (h = 0, 1) and
// columns 8j + 2*(lane%4) + e (e = 0, 1) for j < BN/8, at register 4j + 2h + e.
// A wide tile's second sub-tile holds the same rows + 64.
template <int kBlockN>
struct Fragment {
  int row0;  // kernel row of h = 0 (h = 1 is row0 + 8)
  int col0;  // kernel column of j = 0, e = 0
  __device__ __forceinline__ Fragment(int x0, int y0, int thread) {
    const int warp = thread / 32, lane = thread % 32;
    row0 = x0 + warp * 16 + lane / 4;
    col0 = y0 + 2 * (lane % 4);
  }
};

// Byte offset of (row, byte) in a 128B-swizzled chunk of 128-byte rows: the
// 16-byte unit index is XORed with row % 8 (what TMA's SWIZZLE_128B expects;
// it also spreads a warp's 8 rows over all banks).
__device__ __forceinline__ int swizzle128(int row, int byte) {
  return row * kOutChunkBytes + ((((byte >> 4) ^ (row & 7)) << 4) | (byte & 15));
}

// Two adjacent D elements, stored as one 4- or 8-byte access (the pair never
// straddles a 16-byte swizzle unit: its column is even).
template <typename OutT>
struct alignas(2 * sizeof(OutT)) Pair {
  OutT lo, hi;
};

// Staging geometry for output type OutT: D sub-tile (kOutRows, kOutCols) as
// 128-byte column chunks of (kOutRows, 128 B). The staging buffer holds a
// 16-bit sub-tile, so an f32 one goes out in two passes of half the chunks.
template <Tile T, typename OutT>
struct StoreShape {
  using Cfg = TileTraits<T>;
  static constexpr int kChunkCols = kOutChunkBytes / static_cast<int>(sizeof(OutT));
  static constexpr int kChunkBytes = Cfg::kOutRows * kOutChunkBytes;
  static constexpr int kChunks = Cfg::kOutCols / kChunkCols;
  static constexpr int kChunksPerPass = Cfg::kStagingBytes / kChunkBytes;
  static constexpr int kPasses = kChunks / kChunksPerPass;
  static constexpr int kPassCols = kChunksPerPass * kChunkCols;
  static_assert(kChunks % kChunksPerPass == 0, "passes hold whole chunks");
};

// Writes the chunks of pass `pass` of this thread's converted fragment into
// the warpgroup's staging buffer, 128B-swizzled.
template <Tile T, typename OutT>
__device__ __forceinline__ void stage_out(const float (&v)[TileTraits<T>::kAccRegs], uint8_t* staging, int thread,
                                          int pass) {
  using Cfg = TileTraits<T>;
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
          *reinterpret_cast<OutT*>(base + swizzle128(y + e, (x % S::kChunkCols) * sizeof(OutT))) =
              static_cast<OutT>(e ? v1 : v0);
      } else {  // D row = kernel row; the pair is adjacent in D
        const int chunk = (8 * j) / S::kChunkCols;  // compile-time after unrolling
        if (chunk / S::kChunksPerPass != pass) continue;
        uint8_t* base = staging + (chunk % S::kChunksPerPass) * S::kChunkBytes;
        *reinterpret_cast<Pair<OutT>*>(base + swizzle128(x, (y % S::kChunkCols) * sizeof(OutT))) =
            Pair<OutT>{static_cast<OutT>(v0), static_cast<OutT>(v1)};
      }
    }
}

// This thread's kernel column's scale and bias (threads < BN, one column
// each), loaded when a unit starts so that the loads fly during its K loop;
// shared with the warpgroup through shared memory in the epilogue.
struct ColFactor {
  float scale = 0.0f;
  uint32_t bias_bits = 0u;  // see load_bias_bits
};

template <Tile T>
__device__ __forceinline__ ColFactor load_col_factor(const Sm90Args& p, int ty, int thread) {
  using Cfg = TileTraits<T>;
  ColFactor c;
  const int y = ty * Cfg::kBlockN + thread;
  if (thread >= Cfg::kBlockN) return c;
  if constexpr (Cfg::kBlock) {  // both modes are BLOCK (the API's rule): applied in the K loop
    c.scale = 1.0f;
    if (!Cfg::kSwap && y < p.n) c.bias_bits = load_bias_bits(p.bias, p.bias_type, y);
  } else if constexpr (Cfg::kSwap) {  // kernel column = m
    if (y < p.m) c.scale = vector_scale(p.a_mode, p.a_scale, y);
  } else {  // kernel column = n
    if (y < p.n) {
      c.scale = vector_scale(p.b_mode, p.b_scale, y);
      c.bias_bits = load_bias_bits(p.bias, p.bias_type, y);
    }
  }
  return c;
}

// This thread's kernel rows' scales and biases (per sub-tile s and h), also
// loaded when a unit starts.
template <Tile T>
struct RowFactors {
  static constexpr int kSub = TileTraits<T>::kSubTiles;
  float scale[kSub][2];
  uint32_t bias_bits[kSub][2];  // swapped tiles only (kernel row = n)

  __device__ __forceinline__ void load(const Sm90Args& p, int row0) {
#pragma unroll
    for (int s = 0; s < kSub; ++s)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int x = row0 + s * kWgmmaM + 8 * h;
        scale[s][h] = TileTraits<T>::kBlock ? 1.0f : 0.0f;  // block tiles: scales applied in the K loop
        bias_bits[s][h] = 0u;
        if constexpr (TileTraits<T>::kSwap) {  // kernel row = n
          if (x < p.n) {
            if constexpr (!TileTraits<T>::kBlock) scale[s][h] = vector_scale(p.b_mode, p.b_scale, x);
            bias_bits[s][h] = load_bias_bits(p.bias, p.bias_type, x);
          }
        } else if (!TileTraits<T>::kBlock && x < p.m) {  // kernel row = m
          scale[s][h] = vector_scale(p.a_mode, p.a_scale, x);
        }
      }
  }
};

// Kernel row of sub-tile s's first row.
template <Tile T>
__device__ __forceinline__ int sub_row0(const Unit& w, int consumer, int s) {
  using Cfg = TileTraits<T>;
  return w.tx * Cfg::kBlockM + (consumer * Cfg::kSubTiles + s) * kWgmmaM;
}

// Stores this warpgroup's sub-tiles (scaled, in f32 registers) as OutT:
// staging, then TMA stores. TMA clips rows beyond M exactly, but columns only
// to 16-byte granules, so the tensor map ends at n_tma (N rounded down to 16
// bytes) and the few columns in [n_tma, N) are written by plain stores from
// the staging buffer.
// NOTE: a TMA box ending inside a 16-byte granule past N would write the
// whole granule, into D's padding (ldd > N), which may hold user data.
// NOTE: on entry the staging buffer is free (no store reads it) and every
// thread of the warpgroup is past its last read of it.
template <Tile T, typename OutT>
__device__ __forceinline__ void store_tile(const Sm90Args& p, const CUtensorMap* tmap_d, const Unit& w, int consumer,
                                           int thread, float (&acc)[TileTraits<T>::kSubTiles][TileTraits<T>::kAccRegs],
                                           uint8_t* staging) {
  using Cfg = TileTraits<T>;
  using S = StoreShape<T, OutT>;
  constexpr int elem = static_cast<int>(sizeof(OutT));
#pragma unroll
  for (int s = 0; s < Cfg::kSubTiles; ++s) {
    const int sub = sub_row0<T>(w, consumer, s);
    const int d_row0 = Cfg::kSwap ? w.ty * Cfg::kBlockN : sub;
    const int d_col0 = Cfg::kSwap ? sub : w.ty * Cfg::kBlockN;
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
        for (int c = 0; c < S::kChunksPerPass && col_lo + c * S::kChunkCols < p.n_tma; ++c) {
          const int32_t coords[2] = {col_lo + c * S::kChunkCols, d_row0};
          cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, tmap_d, coords,
                                          staging + c * S::kChunkBytes);
        }
        cuda::ptx::cp_async_bulk_commit_group();
      }
      const int tail_lo = max(p.n_tma, col_lo), tail_hi = min(p.n, col_lo + S::kPassCols);
      if (tail_lo < tail_hi) {  // uniform over the warpgroup; the next pass starts with a barrier
        const int width = tail_hi - tail_lo;
        for (int i = thread; i < Cfg::kOutRows * width; i += kWarpgroupThreads) {
          const int r = i / width, col = tail_lo + i % width - col_lo;
          if (d_row0 + r >= p.m) continue;
          const uint8_t* src = staging + (col / S::kChunkCols) * S::kChunkBytes + swizzle128(r, (col % S::kChunkCols) * elem);
          OutT* dst = static_cast<OutT*>(p.d) + int64_t{d_row0 + r} * p.ldd + col_lo + col;
          *dst = *reinterpret_cast<const OutT*>(src);
        }
      }
    }
  }
}

// Epilogue of one unit for one consumer warpgroup: split-K reduction when the
// unit is a split, then scales, bias, conversion and stores.
template <Tile T>
__device__ __forceinline__ void epilogue(const Sm90Args& p, const CUtensorMap* tmap_d, const Unit& w, int unit,
                                         int consumer, int thread,
                                         float (&acc)[TileTraits<T>::kSubTiles][TileTraits<T>::kAccRegs],
                                         const RowFactors<T>& rf, const ColFactor& cf, unsigned* last_flag,
                                         uint8_t* staging, bool& store_pending) {
  using Cfg = TileTraits<T>;
  constexpr int R = Cfg::kAccRegs;
  constexpr int BN = Cfg::kBlockN;
  if (p.splits > 1) {
    // Every split stores its partial sub-tiles (register-major, coalesced;
    // in decode tiles only elements inside D: a partial is as wide as the
    // tokens, not the tile's 64 columns), then counts itself in; the last to arrive
    // sums all partials in split order (deterministic) and runs the epilogue.
    constexpr int64_t kPartial = int64_t{R} * kWarpgroupThreads;  // one sub-tile
    constexpr int64_t kPerConsumer = kPartial * Cfg::kSubTiles;
    const int rows_x = Cfg::kSwap ? p.n : p.m, rows_y = Cfg::kSwap ? p.m : p.n;
    const Fragment<BN> f(sub_row0<T>(w, consumer, 0), w.ty * BN, thread);
    // (Swapped tiles only: in the others every element is stored, which
    // keeps the wide tiles' registers free of the predicates.)
    auto inside = [&](int s, int j, int h, int e) {
      if constexpr (!Cfg::kSwap) return true;
      return f.row0 + s * kWgmmaM + 8 * h < rows_x && f.col0 + 8 * j + e < rows_y;
    };
    float* mine = p.partials + (int64_t{unit} * kConsumers + consumer) * kPerConsumer;
#pragma unroll
    for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int r = 4 * j + 2 * h + e;
            if (inside(s, j, h, e)) __stcg(mine + s * kPartial + r * kWarpgroupThreads + thread, acc[s][r]);
          }
    __threadfence();
    consumer_barrier(consumer);
    unsigned* counter = p.counters + w.tile * kConsumers + consumer;
    if (thread == 0) last_flag[consumer] = (atomicAdd(counter, 1u) == static_cast<unsigned>(p.splits - 1));
    consumer_barrier(consumer);
    if (!last_flag[consumer]) return;
    __threadfence();
#pragma unroll
    for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
      for (int r = 0; r < R; ++r) acc[s][r] = 0.0f;
    for (int split = 0; split < p.splits; ++split) {
      const float* part = p.partials + (int64_t{w.tile * p.splits + split} * kConsumers + consumer) * kPerConsumer;
#pragma unroll
      for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int r = 4 * j + 2 * h + e;
              if (inside(s, j, h, e)) acc[s][r] += __ldcg(part + s * kPartial + r * kWarpgroupThreads + thread);
            }
    }
    if (thread == 0) *counter = 0u;  // left zero for the next launch on this workspace
  }

  float row_bias[Cfg::kSubTiles][2];
#pragma unroll
  for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
    for (int h = 0; h < 2; ++h) row_bias[s][h] = bias_value(rf.bias_bits[s][h], p.bias_type);

  // The column factors go through the staging buffer (sC: (2, BN) f32,
  // scale then bias), so it must be free of the previous unit's stores.
  if (thread == 0 && store_pending) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
  store_pending = true;
  consumer_barrier(consumer);
  float* col_factors = reinterpret_cast<float*>(staging);
  if (thread < BN) {
    col_factors[thread] = cf.scale;
    col_factors[BN + thread] = bias_value(cf.bias_bits, p.bias_type);
  }
  consumer_barrier(consumer);
  const int lane = thread % 32;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int y = 8 * j + 2 * (lane % 4);  // column within the tile of e = 0 (even: float2-aligned)
    const float2 cs = *reinterpret_cast<const float2*>(col_factors + y);
    const float2 cb = *reinterpret_cast<const float2*>(col_factors + BN + y);
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
  consumer_barrier(consumer);  // every read of sC is done before staging overwrites it
  switch (p.d_type) {
    case FP8KIT_DTYPE_BF16: store_tile<T, __nv_bfloat16>(p, tmap_d, w, consumer, thread, acc, staging); break;
    case FP8KIT_DTYPE_F16: store_tile<T, __half>(p, tmap_d, w, consumer, thread, acc, staging); break;
    default: store_tile<T, float>(p, tmap_d, w, consumer, thread, acc, staging); break;
  }
}

// One f32 from global into shared memory through cp.async (zero-filled when
// !valid; the address is not read then).
__device__ __forceinline__ void cp_async_f32(float* dst, const float* src, bool valid) {
  const uint32_t d = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 4 : 0) : "memory");
}

// The producer's scale warp: copies K block kb's scales of unit w into a
// stage's slot sS (layout in TileTraits), lane-strided, zero past M.
template <Tile T>
__device__ __forceinline__ void load_scale_slot(const Sm90Args& p, const Unit& w, int kb, float* slot, int lane) {
  using Cfg = TileTraits<T>;
  const float* a_kb = p.a_scale + int64_t{kb} * p.m;  // A BLOCK: [k_blocks, M], M-contiguous
  if constexpr (Cfg::kSwap) {  // rows: n (one 128-block), columns: m
    if (lane == 0) cp_async_f32(slot, p.b_scale + int64_t{w.tx} * p.k_blocks + kb, true);
    for (int c = lane; c < Cfg::kColScales; c += 32) {
      const int m = w.ty * Cfg::kBlockN + c;
      cp_async_f32(slot + Cfg::kColScaleOffset + c, m < p.m ? a_kb + m : a_kb, m < p.m);
    }
  } else {  // rows: m, columns: n (one 128-block)
    for (int r = lane; r < Cfg::kRowScales; r += 32) {
      const int m = w.tx * Cfg::kBlockM + r;
      cp_async_f32(slot + r, m < p.m ? a_kb + m : a_kb, m < p.m);
    }
    if (lane == 0) cp_async_f32(slot + Cfg::kColScaleOffset, p.b_scale + int64_t{w.ty} * p.k_blocks + kb, true);
  }
}

// A consumer's products of the two block scales of one K block, read from
// the stage's slot: per (s, h) when normal (the B side is uniform over the
// tile), per (j, e) when swapped (the A side runs along the columns).
template <Tile T>
struct BlockFactors {
  using Cfg = TileTraits<T>;
  static constexpr int kCount = Cfg::kSwap ? Cfg::kBlockN / 4 : 2 * Cfg::kSubTiles;
  float f[kCount];

  // `row` and `col`: this thread's first kernel row and column within the tile.
  __device__ __forceinline__ void read(const float* slot, int row, int col) {
    if constexpr (Cfg::kSwap) {
      const float b = slot[0];
#pragma unroll
      for (int j = 0; j < Cfg::kBlockN / 8; ++j) {
        const float2 a = *reinterpret_cast<const float2*>(slot + Cfg::kColScaleOffset + 8 * j + col);
        f[2 * j] = a.x * b;
        f[2 * j + 1] = a.y * b;
      }
    } else {
      const float b = slot[Cfg::kColScaleOffset];
#pragma unroll
      for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
        for (int h = 0; h < 2; ++h) f[2 * s + h] = slot[row + s * kWgmmaM + 8 * h] * b;
    }
  }
  __device__ __forceinline__ float operator()(int s, int j, int h, int e) const {
    if constexpr (Cfg::kSwap) return f[2 * j + e];
    return f[2 * s + h];
  }
};

// The consumer warpgroup's main loop over its units.
//
// Every 128-deep K block is summed by four wgmma k32 steps into an `acc`
// buffer, then promoted into the f32 `master` accumulator (times the block's
// two scales in block mode). NOTE: FP8 wgmma keeps only about 14 mantissa bits
// in its accumulator (the limit DeepGEMM measured); promoting each K block
// bounds that error by one block's magnitude instead of the whole K sum's.
// kDoubleAcc: two acc buffers alternate, so K block i+1's wgmma runs while
// block i is being promoted. Otherwise one acc buffer serves the sub-tiles in
// turn, and the other consumer's wgmma keeps the tensor pipe busy meanwhile.
template <Tile T, fp8kit_dtype TX, fp8kit_dtype TY>
__device__ __forceinline__ void consume(const Sm90Args& p, const CUtensorMap* tmap_d, const uint8_t* sx,
                                        const uint8_t* sy, const uint8_t* ss, uint64_t* full, uint64_t* empty,
                                        unsigned* last_flag,
                                        uint8_t* staging, int consumer, int thread) {
  using Cfg = TileTraits<T>;
  constexpr int R = Cfg::kAccRegs;
  constexpr int BN = Cfg::kBlockN;
  constexpr int kSub = Cfg::kSubTiles;
  const bool lane0 = (thread % 32) == 0;
  float acc0[R], acc1[R];     // K blocks of even / odd index within the unit (acc1: kDoubleAcc only)
  float master[kSub][R];      // the unit's promoted f32 sums, per sub-tile
#pragma unroll
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = 0.0f;
  int stage = 0;
  uint32_t phase = 0;
  bool store_pending = false;  // a TMA store from `staging` may still be reading it

  // Frees a stage for the producer: one arrive per consumer warp; in block
  // tiles one per consumer thread. NOTE: an arrive releases only the arriving
  // thread's own reads; each thread has read the stage's scale slot, which the
  // scale warp rewrites once the stage is free. Cheaper orderings did not
  // satisfy racecheck (v9): a warp barrier before lane 0's arrive (ptxas
  // drops it: the warp is converged), and the warpgroup's named barrier
  // before thread 0's; each was 2-7% faster in block mode.
  auto release_stage = [&](int s) {
    if constexpr (Cfg::kBlock) {  // (the arrive's returned state is not kept: one register pair less)
      const uint32_t bar = static_cast<uint32_t>(__cvta_generic_to_shared(&empty[s]));
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
    } else if (lane0) {
      cuda::ptx::mbarrier_arrive(&empty[s]);
    }
  };

  for (int u = blockIdx.x; u < p.num_units; u += gridDim.x) {
    const Unit w = decode_unit(p, u);
    const int nkb = w.kb_end - w.kb_begin;
    const Fragment<BN> f(sub_row0<T>(w, consumer, 0), w.ty * BN, thread);
    const ColFactor cf = load_col_factor<T>(p, w.ty, thread);
    RowFactors<T> rf;
    rf.load(p, f.row0);
#pragma unroll
    for (int s = 0; s < kSub; ++s)
#pragma unroll
      for (int r = 0; r < R; ++r) master[s][r] = 0.0f;
    // Products of the block scales in stage st's slot for this thread's
    // fragment (its first kernel row and column within the tile).
    auto slot_factors = [&](int st) {
      BlockFactors<T> fac;
      fac.read(reinterpret_cast<const float*>(ss + st * Cfg::kScaleSlotBytes), f.row0 - w.tx * Cfg::kBlockM,
               f.col0 - w.ty * BN);
      return fac;
    };

    if constexpr (!Cfg::kDoubleAcc) {
      // One accumulator, promoted per sub-tile. Block scales come with the
      // stage (sS, filled by the producer's scale warp). NOTE: loaded by the
      // consumers themselves (v5-v7), ahead into registers, they cost 16% at
      // 8192^3: ptxas moved the loads next to the scales' uses or put them
      // on the scoreboard those uses waited for, so each K block waited for
      // an L2 round trip.
      for (int i = 0; i < nkb; ++i) {
        wait_barrier(&full[stage], phase);
        BlockFactors<T> fac;
        if constexpr (Cfg::kBlock) fac = slot_factors(stage);
        const uint64_t dy = smem_desc(sy + stage * Cfg::kBytesY);
#pragma unroll
        for (int s = 0; s < kSub; ++s) {
          const uint64_t dx = smem_desc(sx + stage * Cfg::kBytesX + (consumer * kSub + s) * kWgmmaM * kBlockK);
          fence_operands(acc0);
          wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < kKSteps; ++kk)
            wgmma<BN, TX, TY>(acc0, dx + kk * kDescKStep, dy + kk * kDescKStep, kk > 0 ? 1u : 0u);
          wgmma_commit();
          wgmma_wait<0>();
          fence_operands(acc0);
          if (s == kSub - 1) release_stage(stage);  // the slot's scales were read at the top
          if constexpr (Cfg::kBlock) {
#pragma unroll
            for (int j = 0; j < BN / 8; ++j)
#pragma unroll
              for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int e = 0; e < 2; ++e)
                  master[s][4 * j + 2 * h + e] += acc0[4 * j + 2 * h + e] * fac(s, j, h, e);
          } else {
#pragma unroll
            for (int r = 0; r < R; ++r) master[s][r] += acc0[r];
          }
        }
        advance<Cfg::kStages>(stage, phase);
      }
    } else {
      int prev_stage = 0;
      // Waits for K block i's stage and issues its wgmma group into `a`.
      auto issue = [&](float (&a)[R]) {
        wait_barrier(&full[stage], phase);
        const uint64_t dx = smem_desc(sx + stage * Cfg::kBytesX + consumer * kWgmmaM * kBlockK);
        const uint64_t dy = smem_desc(sy + stage * Cfg::kBytesY);
        fence_operands(a);
        wgmma_fence();
  #pragma unroll
        for (int kk = 0; kk < kKSteps; ++kk)
          wgmma<BN, TX, TY>(a, dx + kk * kDescKStep, dy + kk * kDescKStep, kk > 0 ? 1u : 0u);
        wgmma_commit();
        fence_operands(a);
      };
      // Once `a`'s group has retired: frees its stage and promotes it.
      auto retire = [&](float (&a)[R]) {
        fence_operands(a);
        release_stage(prev_stage);
#pragma unroll
        for (int r = 0; r < R; ++r) master[0][r] += a[r];
      };
      issue(acc0);
      prev_stage = stage;
      advance<Cfg::kStages>(stage, phase);
      int i = 1;
      for (; i + 1 < nkb; i += 2) {
        issue(acc1);
        wgmma_wait<1>();
        retire(acc0);
        prev_stage = stage;
        advance<Cfg::kStages>(stage, phase);
        issue(acc0);
        wgmma_wait<1>();
        retire(acc1);
        prev_stage = stage;
        advance<Cfg::kStages>(stage, phase);
      }
      if (i < nkb) {  // an odd block left: acc1 takes it
        issue(acc1);
        wgmma_wait<1>();
        retire(acc0);
        prev_stage = stage;
        advance<Cfg::kStages>(stage, phase);
        wgmma_wait<0>();
        retire(acc1);
      } else {
        wgmma_wait<0>();
        retire(acc0);
      }
    }
    epilogue<T>(p, tmap_d, w, u, consumer, thread, master, rf, cf, last_flag, staging, store_pending);
  }
  // Shared memory must outlive the stores that read it.
  if (thread == 0) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
}

// The producer: one thread streams X and Y tiles of every K block of every
// unit through the stages, in the consumers' order.
template <Tile T>
__device__ __forceinline__ void produce(const CUtensorMap* tmap_x, const CUtensorMap* tmap_y, const Sm90Args& p,
                                        uint8_t* sx, uint8_t* sy, uint64_t* full, uint64_t* empty) {
  using Cfg = TileTraits<T>;
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(tmap_x) : "memory");
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(tmap_y) : "memory");
  int stage = 0;
  uint32_t phase = 0;
  for (int u = blockIdx.x; u < p.num_units; u += gridDim.x) {
    const Unit w = decode_unit(p, u);
    for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
      wait_barrier(&empty[stage], phase ^ 1u);
      // NOTE: the transaction count is the full box even where TMA zero-fills
      // out-of-bounds rows or the K tail.
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &full[stage], static_cast<uint32_t>(Cfg::kStageBytes));
      const int32_t cx[2] = {kb * kBlockK, w.tx * Cfg::kBlockM};
      const int32_t cy[2] = {kb * kBlockK, w.ty * Cfg::kBlockN};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sx + stage * Cfg::kBytesX,
                                      tmap_x, cx, &full[stage]);
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sy + stage * Cfg::kBytesY,
                                      tmap_y, cy, &full[stage]);
      advance<Cfg::kStages>(stage, phase);
    }
  }
}

// The scale warp (block tiles): fills each stage's scale slot in the same
// order with cp.async, whose completion each lane hands to the stage's
// `full` barrier (one arrive per lane, when its copies have landed): the
// warp never waits for a load, so it runs ahead like the TMA thread.
template <Tile T>
__device__ __forceinline__ void produce_scales(const Sm90Args& p, uint8_t* ss, uint64_t* full, uint64_t* empty,
                                               int lane) {
  using Cfg = TileTraits<T>;
  int stage = 0;
  uint32_t phase = 0;
  for (int u = blockIdx.x; u < p.num_units; u += gridDim.x) {
    const Unit w = decode_unit(p, u);
    for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
      wait_barrier(&empty[stage], phase ^ 1u);
      load_scale_slot<T>(p, w, kb, reinterpret_cast<float*>(ss + stage * Cfg::kScaleSlotBytes), lane);
      const uint32_t bar = static_cast<uint32_t>(__cvta_generic_to_shared(&full[stage]));
      asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(bar) : "memory");
      advance<Cfg::kStages>(stage, phase);
    }
  }
}

}  // namespace detail

template <Tile T, fp8kit_dtype TX, fp8kit_dtype TY>
__global__ void __launch_bounds__(kThreads, 1)
    sm90_fp8_gemm_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_y,
                         const __grid_constant__ CUtensorMap tmap_d, const Sm90Args p) {
  using Cfg = TileTraits<T>;
  extern __shared__ uint8_t smem_raw[];
  // Shared memory, from a 1024-byte boundary (the swizzle atom):
  //   sX[kStages]: (BLK_M, BLK_K) fp8, 128B-swizzled   (X rows x K)
  //   sY[kStages]: (BLK_N, BLK_K) fp8, 128B-swizzled   (Y rows x K)
  //   sD[kConsumers]: each consumer's D staging (see TileTraits), 1024-aligned;
  //                   in the epilogue it first carries the column factors
  //   sS[kStages]: block tiles' per-stage scale slots (see TileTraits)
  //   full[kStages], empty[kStages]: mbarriers; last_flag[kConsumers]
  // (indexing smem_raw keeps the pointer in the shared window for the compiler)
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  uint8_t* smem = smem_raw + ((kSwizzleAtomBytes - raw % kSwizzleAtomBytes) % kSwizzleAtomBytes);
  uint8_t* sx = smem;
  uint8_t* sy = smem + Cfg::kStages * Cfg::kBytesX;
  uint8_t* sd = smem + Cfg::kStages * Cfg::kStageBytes;
  uint8_t* ss = sd + kConsumers * Cfg::kStagingBytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(ss + Cfg::kStages * Cfg::kScaleSlotBytes);
  uint64_t* empty = full + Cfg::kStages;
  unsigned* last_flag = reinterpret_cast<unsigned*>(empty + Cfg::kStages);

  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::kStages; ++s) {
      // The producer's arrive (+ TMA bytes), and in block tiles the scale warp's.
      cuda::ptx::mbarrier_init(&full[s], 1 + (Cfg::kBlock ? kScaleWarpLanes : 0));
      // One arrive per consumer warp; in block tiles, per consumer thread.
      cuda::ptx::mbarrier_init(&empty[s], Cfg::kBlock ? kConsumers * kWarpgroupThreads : kConsumerWarps);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();

  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kProducerRegs));
    if (threadIdx.x == 0) detail::produce<T>(&tmap_x, &tmap_y, p, sx, sy, full, empty);
    if constexpr (Cfg::kBlock)
      if (threadIdx.x / 32 == kScaleWarp) detail::produce_scales<T>(p, ss, full, empty, threadIdx.x % 32);
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kConsumerRegs));
    const int consumer = warpgroup - 1;
    if (threadIdx.x % kWarpgroupThreads == 0) asm volatile("prefetch.tensormap [%0];\n" ::"l"(&tmap_d) : "memory");
    detail::consume<T, TX, TY>(p, &tmap_d, sx, sy, ss, full, empty, last_flag, sd + consumer * Cfg::kStagingBytes,
                               consumer, threadIdx.x % kWarpgroupThreads);
  }
}

#else  // host pass: the launch stub needs only the signature

template <Tile T, fp8kit_dtype TX, fp8kit_dtype TY>
__global__ void __launch_bounds__(kThreads, 1)
    sm90_fp8_gemm_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_y,
                         const __grid_constant__ CUtensorMap tmap_d, const Sm90Args p) {}

#endif  // FP8KIT_HAS_WGMMA

}  // namespace fp8kit::sm90
