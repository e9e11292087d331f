// Tile configurations of the native Hopper FP8 GEMM (sm_90a): compile-time
// constants that the kernel (kernel.cuh and its parts) and the host plan
// (plan.hpp) share. Plain C++: the host side and its tests include it
// without the CUDA compiler. The shared-memory layout is shared_storage.hpp.
#pragma once

#include <numeric>

#include "core/scale_layout.hpp"  // kScaleBlock

namespace fp8kit::sm90 {

// ---- Pipeline shape (compile time) -------------------------------------------
constexpr int kBlockK = 128;           // K per stage: one 128-byte swizzle row of FP8
constexpr int kWgmmaM = 64;
constexpr int kWgmmaK = 32;            // FP8 wgmma K
constexpr int kKSteps = kBlockK / kWgmmaK;
constexpr int kWarpgroupThreads = 128;
constexpr int kConsumers = 2;
constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
constexpr int kConsumerWarps = kConsumers * kWarpgroupThreads / 32;
// setmaxnreg moves registers inside the CTA's allocation at launch, kThreads
// x kLaunchRegs (ptxas's count under __launch_bounds__(kThreads, 1)): the
// producer warpgroup gives registers away so that the consumers can grow.
// An increase past the allocation never returns (the consumers would wait
// for registers nobody frees).
constexpr int kRegisterFile = 65536;
constexpr int kRegisterGranule = 8;  // setmaxnreg counts, and per-thread allocations, are multiples of 8
constexpr int kLaunchRegs = kRegisterFile / kThreads / kRegisterGranule * kRegisterGranule;  // 168
constexpr int kProducerRegs = 40;
constexpr int kScaleWarp = 1;          // block tiles: the producer warpgroup's warp that loads the scales
constexpr int kSlotWarp = 2;           // dense normal block tiles: the one that fills A's slots without TMA
constexpr int kScaleWarpLanes = 32;
constexpr int kConsumerRegs = 232;     // (kThreads * kLaunchRegs - 128 * kProducerRegs) / 256
static_assert(kWarpgroupThreads * kProducerRegs + kConsumers * kWarpgroupThreads * kConsumerRegs <=
                  kThreads * kLaunchRegs,
              "setmaxnreg stays inside the CTA's registers");
static_assert(kProducerRegs % kRegisterGranule == 0 && kConsumerRegs % kRegisterGranule == 0, "setmaxnreg counts");
constexpr int kSwizzleAtomBytes = 1024;  // 8 rows x 128 B: the 128B swizzle period
constexpr int kSmemBytesMax = 232448;    // sm_90 opt-in dynamic shared memory per block (227 KB)
constexpr int kSmemReserve = 2048;       // barriers, split-K flags, alignment slack
constexpr int kOutBoxRows = 64;          // rows of a D store box (every tile's D sub-tiles are 64 rows)
constexpr int kOutChunkBytes = 128;      // bytes of a D store box row: one 128B swizzle row
constexpr int kMaxBlockM = 256;          // the largest tile's kernel rows (TMA boxes hold at most 256)
constexpr int kWideBlockN = 192;         // kernel columns of the 128 x 192 tiles
constexpr int kMaxColFactorsPerThread = 2;  // ceil(largest BN / 128)
constexpr int kTmaSmemAlign = 128;       // shared-memory destinations of TMA tensor copies
// Dense normal block tiles (TileConfig::kCoarseChunks): B's block scales of
// 64 K blocks (K = 8192) per chunk, two chunk buffers (one filling while the
// consumers read the other).
constexpr int kCoarseChunkBlocks = 64;
constexpr int kCoarseChunkBuffers = 2;
// Cluster split (cluster_split.cuh): at most 8 CTAs of a cluster (the portable
// cluster size) split one tile's K range, reduced in a tree of 3 levels.
constexpr int kMaxClusterSplit = 8;
constexpr int kClusterLevels = 3;  // log2(kMaxClusterSplit)

// Tile configurations, named by kernel rows x columns (BN is the wgmma N):
//   k128x128, k128x128Block:         normal (X = A), non-block / block scales
//   k256x128, k256x128Block:         normal, each consumer holds two m64 sub-tiles
//   k128x64Swap, k128x64SwapBlock:   swapped (X = B) for M <= 64 (decode)
//   k128x192, k128x192Block:         normal, 192 columns (one accumulator):
//                                    where N's 128-wide tiles leave a
//                                    ragged last wave (plan.hpp)
//   kGrouped*:                       the same four 128-row tiles over the
//                                    (expert, tile) units of a grouped launch
//                                    (tile_scheduler.cuh); their shared memory
//                                    also holds the experts' unit table
//   kGrouped128x16Swap:              grouped only: masked decode of at most 16
//                                    tokens per expert (wgmma N = 16: a quarter
//                                    of the 64-token tile's tensor work and
//                                    token bytes, 11 stages instead of 8)
// The 256 x 128 tiles read 48 KB of X and Y per 8.4 MFLOP against the
// 128 x 128 tiles' 32 KB per 4.2 MFLOP: a quarter less L2 traffic per FLOP,
// for a coarser grid (the host picks them only where the waves come out even).
enum class Tile {
  k128x128,
  k128x128Block,
  k128x64Swap,
  k128x64SwapBlock,
  k256x128,
  k256x128Block,
  k128x192,
  k128x192Block,
  kGrouped128x128,
  kGrouped128x128Block,
  kGrouped128x64Swap,
  kGrouped128x64SwapBlock,
  kGrouped128x16Swap,
};
constexpr int kTileCount = 8;         // the dense tiles (the first eight)
constexpr int kGroupedTileCount = 5;  // the grouped ones after them
// Grouped launches: experts one CTA's unit table holds (2 ints each: 8 KiB
// at 1024, which costs the 128 x 128 tile its sixth stage; the other tiles
// had the room). The host refuses more experts (grouped_path.cu).
constexpr int kMaxGroupedExperts = 1024;

// 2-CTA clusters with TMA multicast of the shared operand (cluster.cuh)
// are compiled into the 256 x 128 block tile only, where sharing its
// 256-row X tile saves a third of the L2 reads: 3.6% faster on the suite's
// clustered block rows. At 128 x 128 (a quarter saved), and in the vector
// modes' tiles, multicast measured 0-1% and the cluster code cost the
// kernels 2-4% when not clustered (docs/perf.md, v13-mcast). The plan
// (plan.hpp, cluster_legal) asks this too.
constexpr bool tile_has_clusters(Tile t) { return t == Tile::k256x128Block; }
// The cluster split (split-K through a cluster's distributed shared memory,
// cluster_split.cuh) is compiled into the tiles its plan rule takes: the
// swapped decode tiles (plan.hpp); the others compile none of its code (in
// the 128 x 128 tiles it cost 2-4% unsplit: docs/perf.md, v13 integrated run).
constexpr bool tile_has_cluster_split(Tile t) { return t == Tile::k128x64Swap || t == Tile::k128x64SwapBlock; }

// Dense normal block tiles (TileConfig::kCoarseChunks below): A's and B's
// block scales reach the consumers by separate routes.
constexpr bool tile_has_coarse_chunks(Tile t) {
  return t == Tile::k128x128Block || t == Tile::k256x128Block || t == Tile::k128x192Block;
}

template <Tile T>
struct TileConfig {
  static constexpr bool kGrouped = static_cast<int>(T) >= kTileCount;
  static constexpr bool kSwap = (T == Tile::k128x64Swap || T == Tile::k128x64SwapBlock ||
                                 T == Tile::kGrouped128x64Swap || T == Tile::kGrouped128x64SwapBlock ||
                                 T == Tile::kGrouped128x16Swap);
  static constexpr bool kBlock = (T == Tile::k128x128Block || T == Tile::k128x64SwapBlock || T == Tile::k256x128Block ||
                                  T == Tile::k128x192Block || T == Tile::kGrouped128x128Block ||
                                  T == Tile::kGrouped128x64SwapBlock);
  static constexpr bool kWideN = (T == Tile::k128x192 || T == Tile::k128x192Block);
  static constexpr bool kWideTile = (T == Tile::k256x128 || T == Tile::k256x128Block);
  // 2-CTA clusters with multicast (cluster.cuh); the other tiles compile no cluster code.
  static constexpr bool kClusters = tile_has_clusters(T);
  static constexpr bool kClusterSplit = tile_has_cluster_split(T);
  static constexpr int kBlockM = kWideTile ? 256 : 128;
  // m64 sub-tiles per consumer warpgroup: 1, or 2 in the 256 x 128 tiles.
  static constexpr int kSubTiles = kBlockM / (kConsumers * kWgmmaM);
  // 128 for the other normal tiles: the m64 x BN f32 accumulators must fit
  // the consumers' 232 registers (two wgmma accumulators and the master at
  // 128 x 128; one accumulator and two masters at 256 x 128; one
  // accumulator and the master, 2 x 96, at 128 x 192).
  // Swapped: the tokens, 64, or 16 in the masked decode tile.
  static constexpr int kBlockN = T == Tile::kGrouped128x16Swap ? 16 : kSwap ? 64 : kWideN ? kWideBlockN : 128;
  // Which side carries what (the kernel-argument struct is in X / Y terms;
  // these are the facts of the orientation the device code still needs).
  // B is the weight: it does not depend on the kernel before (see the
  // producer's programmatic-dependent-launch prefetch). The bias runs along
  // N; block scales are per row on A's side and per 128-block on B's.
  static constexpr bool kWeightsAreX = kSwap;
  static constexpr bool kBiasAlongX = kSwap;
  static constexpr bool kRowBlockScalesOnX = !kSwap;
  static constexpr int kBytesX = kBlockM * kBlockK;  // X stage: (BLK_M, BLK_K) fp8
  static constexpr int kBytesY = kBlockN * kBlockK;  // Y stage: (BLK_N, BLK_K) fp8
  static constexpr int kStageBytes = kBytesX + kBytesY;
  // Epilogue staging, per consumer warpgroup: one D sub-tile of kOutRows x
  // kOutCols (normal: 64 m x BN n; swapped: BN m x 64 n) of a 16-bit type, as
  // 128-byte-wide column chunks, 128B-swizzled, for TMA stores. An f32
  // sub-tile goes out in two passes, and the 256 x 128 tiles' two sub-tiles
  // one after the other: sized for f32, it would cost a pipeline stage.
  static constexpr int kOutRows = kSwap ? kBlockN : kWgmmaM;
  static constexpr int kOutCols = kSwap ? kWgmmaM : kBlockN;
  static constexpr int kStagingBytes = kOutRows * kOutCols * 2;
  // Kernel columns whose scale and bias each consumer thread loads when a
  // unit starts (one per thread up to BN = 128; two at 128 x 192).
  static constexpr int kColFactorsPerThread = (kBlockN + kWarpgroupThreads - 1) / kWarpgroupThreads;
  // D's tensor map stores boxes of kOutBoxRows rows; a tile of fewer D rows
  // per sub-tile (the 16-token decode tile) stores by plain stores only.
  static constexpr bool kTmaStores = kOutRows == kOutBoxRows;
  static constexpr int kGroupTableBytes = kGrouped ? 2 * kMaxGroupedExperts * static_cast<int>(sizeof(int)) : 0;
  static constexpr int kFixedBytes = kConsumers * kStagingBytes + kSmemReserve + kGroupTableBytes;
  // Block tiles: each stage also carries its K block's scales (a scale slot:
  // the kernel rows' then the kernel columns', f32), loaded by the producer's
  // scale warp. Normal: BM A scales + one B scale per column group;
  // swapped: 1 B scale + BN A scales. Rounded to 16 bytes. A column group
  // is gcd(BN, 128) columns, which never straddle a 128-block of B since
  // y0 = ty * BN is a multiple of it: one group at BN = 128; three of 64 at
  // 128 x 192, whose tiles straddle two blocks, so a consumer multiplies each
  // column by its group's scale with no predicate.
  static constexpr int kScaleGroupCols = kRowBlockScalesOnX ? std::gcd(kBlockN, kScaleBlock) : kBlockN;
  static constexpr int kScaleGroups = kBlockN / kScaleGroupCols;
  // The dense normal block tiles split the two sides (as DeepGEMM does):
  // A's per-row scales of each K block come with the stage (its slot holds
  // only them, BM f32, by TMA where the host can encode A's scales as a
  // tensor map, else by the scale warp), and B's per-128-block scales of a
  // unit's K range come in chunks of kCoarseChunkBlocks K blocks, which the
  // scale warp copies once into one of two chunk buffers. With TMA filling
  // the slot, no thread writes what a consumer reads per stage, and one
  // arrive per warp frees it (mainloop.cuh, release_stage).
  static constexpr bool kCoarseChunks = tile_has_coarse_chunks(T);
  static constexpr int kRowScales = kRowBlockScalesOnX ? kBlockM : 1;
  static constexpr int kColScales = kCoarseChunks ? 0 : kRowBlockScalesOnX ? kScaleGroups : kBlockN;
  static constexpr int kColScaleOffset = kRowBlockScalesOnX ? kBlockM : 4;  // 16-byte aligned: read as float2
  // TMA writes whole slots at 128-byte boundaries: BM f32 is 512 or 1024 bytes.
  static constexpr int kScaleSlotAlign = kCoarseChunks ? kTmaSmemAlign : 16;
  static constexpr int kScaleSlotFloats = kBlock ? (kColScaleOffset + kColScales + 3) / 4 * 4 : 0;
  static constexpr int kScaleSlotBytes = kScaleSlotFloats * 4;
  static constexpr int kCoarseChunkFloats = kCoarseChunks ? kCoarseChunkBlocks * kScaleGroups : 0;
  static constexpr int kCoarseBytes = kCoarseChunkBuffers * kCoarseChunkFloats * 4;
  static constexpr int kStages = (kSmemBytesMax - kFixedBytes - kCoarseBytes) / (kStageBytes + kScaleSlotBytes);
  static constexpr int kAccRegs = kBlockN / 2;  // f32 per thread for m64 x BN
  // Two wgmma accumulators (K block i+1 runs while block i is promoted) plus
  // the master: 3 x 64 registers at BN 128. Block tiles keep one and wait
  // for each block before promoting it (double-buffered they ran 10% slower
  // on the suite: docs/perf.md); so do the 256 x 128 tiles (two masters)
  // and the 128 x 192 ones (a second accumulator does not fit): the other
  // consumer's wgmma fills the tensor pipe during a promotion.
  static constexpr bool kDoubleAcc = !kBlock && kSubTiles == 1 && kBlockN <= 128;
  static_assert(kBlockM <= kMaxBlockM, "a TMA box holds at most 256 rows");
  // The 256 x 128 block tile gets 3 stages (its scale slots cost the fourth;
  // 3 and 4 run at the same speed: docs/perf.md).
  static_assert(kStages >= 3, "fewer than three stages cannot hide the TMA latency");
  static_assert(!kCoarseChunks || kScaleSlotBytes % kTmaSmemAlign == 0, "every stage's slot starts where TMA may write");
  static_assert(2 * kBlockN * sizeof(float) <= kStagingBytes, "the column factors pass through the staging buffer");
  static_assert(kBlockN % 8 == 0 && kBlockN <= 256, "wgmma N");
  static_assert(kColFactorsPerThread <= kMaxColFactorsPerThread, "ColFactor holds every column a thread loads");
  static_assert(kOutCols % (kOutChunkBytes / 2) == 0, "D sub-tiles are whole 128-byte chunks for every output type");
};

}  // namespace fp8kit::sm90
