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
// TMA); warpgroups 1 and 2 are consumers, each owning 64 rows of the
// 128-row tile (wgmma m64) and all BN columns.
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

#if FP8KIT_HAS_WGMMA
#include <cuda/ptx>
#endif

namespace fp8kit::sm90 {

// ---- Pipeline shape (compile time) -------------------------------------------
constexpr int kBlockM = 128;           // kernel rows per tile: 2 consumer warpgroups x wgmma m64
constexpr int kBlockK = 128;           // K per stage: one 128-byte swizzle row of FP8
constexpr int kWgmmaM = 64;
constexpr int kWgmmaK = 32;            // FP8 wgmma K
constexpr int kKSteps = kBlockK / kWgmmaK;
constexpr int kWarpgroupThreads = 128;
constexpr int kConsumers = 2;
constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
constexpr int kConsumerWarps = kConsumers * kWarpgroupThreads / 32;
constexpr int kProducerRegs = 40;      // setmaxnreg: producer gives registers away
constexpr int kConsumerRegs = 232;     // (65536 - 128 * 40) / 256, rounded down to 8
constexpr int kSwizzleAtomBytes = 1024;  // 8 rows x 128 B: the 128B swizzle period
constexpr int kSmemBytesMax = 232448;    // sm_90 opt-in dynamic shared memory per block
constexpr int kSmemReserve = 2048;       // barriers, split-K flags, alignment slack
constexpr int kOutBoxRows = 64;          // rows of a D store box (both tiles' D sub-tiles are 64 rows)
constexpr int kOutChunkBytes = 128;      // bytes of a D store box row: one 128B swizzle row

// Tile configurations. BN is the wgmma N (kernel columns per tile).
//   kLarge:      normal,  BN 128, per-tensor / row / col scales
//   kLargeBlock: normal,  BN 128, block scales (master + partial accumulators)
//   kSmall:      swapped, BN 64,  M <= 64 (decode), any non-block scales
//   kSmallBlock: swapped, BN 64,  block scales
enum class Tile { kLarge, kLargeBlock, kSmall, kSmallBlock };

template <Tile T>
struct TileTraits {
  static constexpr bool kSwap = (T == Tile::kSmall || T == Tile::kSmallBlock);
  static constexpr bool kBlock = (T == Tile::kLargeBlock || T == Tile::kSmallBlock);
  // 128 for the large tiles: the m64 x BN f32 accumulators (wgmma's, two of
  // them in the non-block tiles, and the promoted master) must fit the
  // consumers' 232 registers.
  static constexpr int kBlockN = kSwap ? 64 : 128;
  static constexpr int kBytesX = kBlockM * kBlockK;  // sX stage: (BLK_M, BLK_K) fp8
  static constexpr int kBytesY = kBlockN * kBlockK;  // sY stage: (BLK_N, BLK_K) fp8
  static constexpr int kStageBytes = kBytesX + kBytesY;
  // Epilogue staging, per consumer warpgroup: its D sub-tile of kOutRows x
  // kOutCols (normal: 64 m x BN n; swapped: BN m x 64 n), at most f32, as
  // 128-byte-wide column chunks, 128B-swizzled, for TMA stores.
  static constexpr int kOutRows = kSwap ? kBlockN : kWgmmaM;
  static constexpr int kOutCols = kSwap ? kWgmmaM : kBlockN;
  static constexpr int kStagingBytes = kOutRows * kOutCols * static_cast<int>(sizeof(float));
  static constexpr int kStages = (kSmemBytesMax - kSmemReserve - kConsumers * kStagingBytes) / kStageBytes;
  static constexpr int kSmemBytes = kStages * kStageBytes + kConsumers * kStagingBytes + kSmemReserve;
  static constexpr int kAccRegs = kBlockN / 2;  // f32 per thread for m64 x BN
  // Two wgmma accumulators (K block i+1 runs while block i is promoted) plus
  // the master: 3 x 64 registers at BN 128, which leaves no room for the block
  // scales' registers under the consumers' 232 (ptxas spills): block tiles
  // keep one accumulator and wait for each block before promoting it.
  static constexpr bool kDoubleAcc = !kBlock;
};

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
  float* partials;          // split-K: [num_units][kBlockM * kBlockN] f32 (unused if splits == 1)
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

__device__ __forceinline__ float load_bias(const void* bias, fp8kit_dtype type, int n) {
  if (bias == nullptr) return 0.0f;
  if (type == FP8KIT_DTYPE_BF16) return __bfloat162float(static_cast<const __nv_bfloat16*>(bias)[n]);
  if (type == FP8KIT_DTYPE_F16) return __half2float(static_cast<const __half*>(bias)[n]);
  return __ldg(static_cast<const float*>(bias) + n);
}

// Fragment geometry of an m64 x BN f32 accumulator (wgmma D layout): thread t
// of a consumer warpgroup holds rows warp*16 + lane/4 + 8h (h = 0, 1) and
// columns 8j + 2*(lane%4) + e (e = 0, 1) for j < BN/8, at register 4j + 2h + e.
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

// Writes this thread's converted fragment into the warpgroup's staging
// buffer: D sub-tile (kOutRows, kOutCols) of OutT as chunks of
// (kOutRows, 128 B), each 128B-swizzled.
template <Tile T, typename OutT>
__device__ __forceinline__ void stage_out(const float (&v)[TileTraits<T>::kAccRegs], uint8_t* staging, int thread) {
  using Cfg = TileTraits<T>;
  constexpr int kChunkCols = kOutChunkBytes / static_cast<int>(sizeof(OutT));
  constexpr int kChunkBytes = Cfg::kOutRows * kOutChunkBytes;
  const int warp = thread / 32, lane = thread % 32;
#pragma unroll
  for (int j = 0; j < Cfg::kBlockN / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int x = warp * 16 + lane / 4 + 8 * h;  // kernel row within the warpgroup's 64
      const int y = 8 * j + 2 * (lane % 4);        // kernel column within the tile (e = 0)
      const float v0 = v[4 * j + 2 * h], v1 = v[4 * j + 2 * h + 1];
      if constexpr (Cfg::kSwap) {  // D row = kernel column, D column = kernel row
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int col = x;
          uint8_t* chunk = staging + (col / kChunkCols) * kChunkBytes;
          *reinterpret_cast<OutT*>(chunk + swizzle128(y + e, (col % kChunkCols) * sizeof(OutT))) =
              static_cast<OutT>(e ? v1 : v0);
        }
      } else {  // D row = kernel row; the pair is adjacent in D
        uint8_t* chunk = staging + (y / kChunkCols) * kChunkBytes;
        *reinterpret_cast<Pair<OutT>*>(chunk + swizzle128(x, (y % kChunkCols) * sizeof(OutT))) =
            Pair<OutT>{static_cast<OutT>(v0), static_cast<OutT>(v1)};
      }
    }
}

// Epilogue of one unit for one consumer warpgroup: split-K reduction when the
// unit is a split, then scales, bias, conversion and predicated stores.
template <Tile T>
__device__ __forceinline__ void epilogue(const Sm90Args& p, const CUtensorMap* tmap_d, const Unit& w, int unit,
                                         int consumer, int thread, float (&acc)[TileTraits<T>::kAccRegs],
                                         unsigned* last_flag, uint8_t* staging, bool& store_pending) {
  using Cfg = TileTraits<T>;
  constexpr int R = Cfg::kAccRegs;
  if (p.splits > 1) {
    // Every split stores its partial tile (register-major, coalesced), then
    // counts itself in; the last to arrive sums all partials in split order
    // (deterministic) and runs the epilogue.
    constexpr int64_t kPartial = int64_t{R} * kWarpgroupThreads;
    float* mine = p.partials + (int64_t{unit} * kConsumers + consumer) * kPartial;
#pragma unroll
    for (int r = 0; r < R; ++r) __stcg(mine + r * kWarpgroupThreads + thread, acc[r]);
    __threadfence();
    consumer_barrier(consumer);
    unsigned* counter = p.counters + w.tile * kConsumers + consumer;
    if (thread == 0) last_flag[consumer] = (atomicAdd(counter, 1u) == static_cast<unsigned>(p.splits - 1));
    consumer_barrier(consumer);
    if (!last_flag[consumer]) return;
    __threadfence();
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = 0.0f;
    for (int s = 0; s < p.splits; ++s) {
      const float* part = p.partials + (int64_t{w.tile * p.splits + s} * kConsumers + consumer) * kPartial;
#pragma unroll
      for (int r = 0; r < R; ++r) acc[r] += __ldcg(part + r * kWarpgroupThreads + thread);
    }
    if (thread == 0) *counter = 0u;  // left zero for the next launch on this workspace
  }

  const Fragment<Cfg::kBlockN> f(w.tx * kBlockM + consumer * kWgmmaM, w.ty * Cfg::kBlockN, thread);
  // Per-row factors (kernel rows): the scale and bias that depend on the row.
  float row_scale[2], row_bias[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int x = f.row0 + 8 * h;
    if constexpr (Cfg::kSwap) {  // kernel row = n
      const bool ok = x < p.n;
      row_scale[h] = ok ? vector_scale(p.b_mode, p.b_scale, x) : 0.0f;
      row_bias[h] = ok ? load_bias(p.bias, p.bias_type, x) : 0.0f;
    } else {  // kernel row = m
      row_scale[h] = x < p.m ? vector_scale(p.a_mode, p.a_scale, x) : 0.0f;
      row_bias[h] = 0.0f;
    }
  }
  // Every scale and bias is loaded and applied in place first (the loads all
  // fly at once), then the tile is converted into shared memory and stored.
#pragma unroll
  for (int j = 0; j < Cfg::kBlockN / 8; ++j) {
    const int y = f.col0 + 8 * j;  // kernel column of e = 0
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      float col_scale, col_bias;
      if constexpr (Cfg::kSwap) {  // kernel column = m
        col_scale = y + e < p.m ? vector_scale(p.a_mode, p.a_scale, y + e) : 0.0f;
        col_bias = 0.0f;
      } else {  // kernel column = n
        const bool ok = y + e < p.n;
        col_scale = ok ? vector_scale(p.b_mode, p.b_scale, y + e) : 0.0f;
        col_bias = ok ? load_bias(p.bias, p.bias_type, y + e) : 0.0f;
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float& v = acc[4 * j + 2 * h + e];
        v = v * (row_scale[h] * col_scale) + (row_bias[h] + col_bias);
      }
    }
  }
  // The previous unit's TMA store must have read the staging buffer.
  if (thread == 0 && store_pending) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
  store_pending = true;
  consumer_barrier(consumer);
  switch (p.d_type) {
    case FP8KIT_DTYPE_BF16: stage_out<T, __nv_bfloat16>(acc, staging, thread); break;
    case FP8KIT_DTYPE_F16: stage_out<T, __half>(acc, staging, thread); break;
    default: stage_out<T, float>(acc, staging, thread); break;
  }
  // The staged tile goes out through the async proxy: make the generic-proxy
  // writes visible to it, then one thread issues the stores. TMA clips rows
  // beyond M exactly, but columns only to 16-byte granules, so the tensor map
  // ends at n_tma (N rounded down to 16 bytes) and the few columns in
  // [n_tma, N) are written by plain stores from the staging buffer.
  // NOTE: a TMA box ending inside a 16-byte granule past N would write the
  // whole granule, into D's padding (ldd > N), which may hold user data.
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  consumer_barrier(consumer);
  const int elem = p.d_type == FP8KIT_DTYPE_F32 ? 4 : 2;
  const int chunk_cols = kOutChunkBytes / elem;
  const int sub = w.tx * kBlockM + consumer * kWgmmaM;  // this warpgroup's first kernel row
  const int d_row0 = Cfg::kSwap ? w.ty * Cfg::kBlockN : sub;
  const int d_col0 = Cfg::kSwap ? sub : w.ty * Cfg::kBlockN;
  if (thread == 0) {
    for (int c = 0; c * chunk_cols < Cfg::kOutCols && d_col0 + c * chunk_cols < p.n_tma; ++c) {
      const int32_t coords[2] = {d_col0 + c * chunk_cols, d_row0};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, tmap_d, coords,
                                      staging + c * Cfg::kOutRows * kOutChunkBytes);
    }
    cuda::ptx::cp_async_bulk_commit_group();
  }
  const int tail_lo = max(p.n_tma, d_col0), tail_hi = min(p.n, d_col0 + Cfg::kOutCols);
  if (tail_lo < tail_hi) {  // uniform over the warpgroup; staging is not rewritten before the next barrier
    const int width = tail_hi - tail_lo;
    for (int i = thread; i < Cfg::kOutRows * width; i += kWarpgroupThreads) {
      const int r = i / width, col = tail_lo + i % width - d_col0;
      if (d_row0 + r >= p.m) continue;
      const uint8_t* src = staging + (col / chunk_cols) * (Cfg::kOutRows * kOutChunkBytes) +
                           swizzle128(r, (col % chunk_cols) * elem);
      uint8_t* dst = static_cast<uint8_t*>(p.d) + (int64_t{d_row0 + r} * p.ldd + d_col0 + col) * elem;
      if (elem == 4)
        *reinterpret_cast<uint32_t*>(dst) = *reinterpret_cast<const uint32_t*>(src);
      else
        *reinterpret_cast<uint16_t*>(dst) = *reinterpret_cast<const uint16_t*>(src);
    }
  }
}

// Block scales of K block kb for this thread's fragment: one per kernel row
// (h) and one per kernel column (j, e). The side of B is uniform over the
// tile (tiles are 128-aligned on B's rows: BLK_M = 128 when swapped, BN = 128
// when not).
template <Tile T>
struct BlockScales {
  static constexpr bool kSwap = TileTraits<T>::kSwap;
  static constexpr int kCols = kSwap ? TileTraits<T>::kBlockN / 4 : 1;
  float row[kSwap ? 1 : 2];
  float col[kCols];

  __device__ __forceinline__ void load(const Sm90Args& p, const Unit& w, const Fragment<TileTraits<T>::kBlockN>& f,
                                       int kb) {
    const float* a_kb = p.a_scale + int64_t{kb} * p.m;  // A BLOCK: [k_blocks, M], M-contiguous
    if constexpr (kSwap) {
      row[0] = __ldg(p.b_scale + int64_t{w.tx} * p.k_blocks + kb);
#pragma unroll
      for (int j = 0; j < kCols / 2; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int m = f.col0 + 8 * j + e;
          col[2 * j + e] = m < p.m ? __ldg(a_kb + m) : 0.0f;
        }
    } else {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = f.row0 + 8 * h;
        row[h] = m < p.m ? __ldg(a_kb + m) : 0.0f;
      }
      col[0] = __ldg(p.b_scale + int64_t{w.ty} * p.k_blocks + kb);
    }
  }

  __device__ __forceinline__ float factor(int j, int h, int e) const {
    if constexpr (kSwap) return row[0] * col[2 * j + e];
    return row[h] * col[0];
  }
};

// The consumer warpgroup's main loop over its units.
//
// Every 128-deep K block is summed by four wgmma k32 steps into an `acc`
// buffer, then promoted into the f32 `master` accumulator (times the block's
// two scales in block mode). NOTE: FP8 wgmma keeps only about 14 mantissa bits
// in its accumulator (the limit DeepGEMM measured); promoting each K block
// bounds that error by one block's magnitude instead of the whole K sum's.
// Two acc buffers alternate: K block i+1's wgmma runs while block i is being
// promoted, so the tensor cores never wait for the promotion.
template <Tile T, fp8kit_dtype TX, fp8kit_dtype TY>
__device__ __forceinline__ void consume(const Sm90Args& p, const CUtensorMap* tmap_d, const uint8_t* sx,
                                        const uint8_t* sy, uint64_t* full, uint64_t* empty, unsigned* last_flag,
                                        uint8_t* staging, int consumer, int thread) {
  using Cfg = TileTraits<T>;
  constexpr int R = Cfg::kAccRegs;
  constexpr int BN = Cfg::kBlockN;
  const bool lane0 = (thread % 32) == 0;
  float acc0[R], acc1[R];  // K blocks of even / odd index within the unit
  float master[R];         // the unit's promoted f32 sum
#pragma unroll
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = 0.0f;
  int stage = 0;
  uint32_t phase = 0;
  bool store_pending = false;  // a TMA store from `staging` may still be reading it

  for (int u = blockIdx.x; u < p.num_units; u += gridDim.x) {
    const Unit w = decode_unit(p, u);
    const int nkb = w.kb_end - w.kb_begin;
    const Fragment<BN> f(w.tx * kBlockM + consumer * kWgmmaM, w.ty * BN, thread);
#pragma unroll
    for (int r = 0; r < R; ++r) master[r] = 0.0f;
    // Block scales of the K block in each acc buffer, loaded when the block
    // is issued: the loads fly during its wgmma.
    BlockScales<T> scales0, scales1;
    int prev_stage = 0;

    // Waits for K block i's stage and issues its wgmma group into `a`.
    auto issue = [&](float (&a)[R], BlockScales<T>* sc, int i) {
      if constexpr (Cfg::kBlock)
        if (sc) sc->load(p, w, f, w.kb_begin + i);
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
    auto retire = [&](float (&a)[R], const BlockScales<T>& sc) {
      fence_operands(a);
      if (lane0) cuda::ptx::mbarrier_arrive(&empty[prev_stage]);
      if constexpr (Cfg::kBlock) {
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int e = 0; e < 2; ++e) master[4 * j + 2 * h + e] += a[4 * j + 2 * h + e] * sc.factor(j, h, e);
      } else {
#pragma unroll
        for (int r = 0; r < R; ++r) master[r] += a[r];
      }
    };

    if constexpr (!Cfg::kDoubleAcc) {
      // One accumulator: the scales are loaded a whole K block ahead instead,
      // into two register sets used in turn (unrolled by two). NOTE: copying
      // a set that is still loading would stall on the load right there, in
      // the middle of the next block's wgmma issue.
      auto step = [&](int i, const BlockScales<T>& sc) {
        issue(acc0, nullptr, i);
        prev_stage = stage;
        advance<Cfg::kStages>(stage, phase);
        wgmma_wait<0>();
        retire(acc0, sc);
      };
      if constexpr (Cfg::kBlock) scales0.load(p, w, f, w.kb_begin);
      for (int i = 0; i < nkb; i += 2) {
        if constexpr (Cfg::kBlock)
          if (i + 1 < nkb) scales1.load(p, w, f, w.kb_begin + i + 1);
        step(i, scales0);
        if (i + 1 == nkb) break;
        if constexpr (Cfg::kBlock)
          if (i + 2 < nkb) scales0.load(p, w, f, w.kb_begin + i + 2);
        step(i + 1, scales1);
      }
      epilogue<T>(p, tmap_d, w, u, consumer, thread, master, last_flag, staging, store_pending);
      continue;
    }
    issue(acc0, &scales0, 0);
    prev_stage = stage;
    advance<Cfg::kStages>(stage, phase);
    int i = 1;
    for (; i + 1 < nkb; i += 2) {
      issue(acc1, &scales1, i);
      wgmma_wait<1>();
      retire(acc0, scales0);
      prev_stage = stage;
      advance<Cfg::kStages>(stage, phase);
      issue(acc0, &scales0, i + 1);
      wgmma_wait<1>();
      retire(acc1, scales1);
      prev_stage = stage;
      advance<Cfg::kStages>(stage, phase);
    }
    if (i < nkb) {  // an odd block left: acc1 takes it
      issue(acc1, &scales1, i);
      wgmma_wait<1>();
      retire(acc0, scales0);
      prev_stage = stage;
      advance<Cfg::kStages>(stage, phase);
      wgmma_wait<0>();
      retire(acc1, scales1);
    } else {
      wgmma_wait<0>();
      retire(acc0, scales0);
    }
    epilogue<T>(p, tmap_d, w, u, consumer, thread, master, last_flag, staging, store_pending);
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
      const int32_t cx[2] = {kb * kBlockK, w.tx * kBlockM};
      const int32_t cy[2] = {kb * kBlockK, w.ty * Cfg::kBlockN};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sx + stage * Cfg::kBytesX,
                                      tmap_x, cx, &full[stage]);
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sy + stage * Cfg::kBytesY,
                                      tmap_y, cy, &full[stage]);
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
  //   sD[kConsumers]: each consumer's D staging (see TileTraits), 1024-aligned
  //   full[kStages], empty[kStages]: mbarriers; last_flag[kConsumers]
  // (indexing smem_raw keeps the pointer in the shared window for the compiler)
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  uint8_t* smem = smem_raw + ((kSwizzleAtomBytes - raw % kSwizzleAtomBytes) % kSwizzleAtomBytes);
  uint8_t* sx = smem;
  uint8_t* sy = smem + Cfg::kStages * Cfg::kBytesX;
  uint8_t* sd = smem + Cfg::kStages * Cfg::kStageBytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(sd + kConsumers * Cfg::kStagingBytes);
  uint64_t* empty = full + Cfg::kStages;
  unsigned* last_flag = reinterpret_cast<unsigned*>(empty + Cfg::kStages);

  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::kStages; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);                // the producer's arrive (+ TMA bytes)
      cuda::ptx::mbarrier_init(&empty[s], kConsumerWarps);  // one arrive per consumer warp
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();

  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kProducerRegs));
    if (threadIdx.x == 0) detail::produce<T>(&tmap_x, &tmap_y, p, sx, sy, full, empty);
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kConsumerRegs));
    const int consumer = warpgroup - 1;
    if (threadIdx.x % kWarpgroupThreads == 0) asm volatile("prefetch.tensormap [%0];\n" ::"l"(&tmap_d) : "memory");
    detail::consume<T, TX, TY>(p, &tmap_d, sx, sy, full, empty, last_flag, sd + consumer * Cfg::kStagingBytes,
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
