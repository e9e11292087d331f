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
// A D store box row (a staging chunk's row): the widest of TMA's swizzle
// spans (32, 64, 128 bytes) that divides the sub-tile's 16-bit row, so that
// every output type's sub-tile is whole chunks: 128 bytes at 64, 128, 192 and
// 256 columns, 64 at 160 (out_chunk_bytes).
constexpr int kMaxOutChunkBytes = 128;
constexpr int kMinOutChunkBytes = 32;
constexpr int kMaxBlockM = 256;          // the largest tile's kernel rows (TMA boxes hold at most 256)
constexpr int kMaxColFactorsPerThread = 2;  // ceil(largest BN / 128)
// The widest D sub-tile staged whole: a wider one (the 128 x 256 tile) is
// staged in halves, which keeps its fourth pipeline stage (whole, its two
// 32 KB staging buffers would leave three).
constexpr int kMaxStagedCols = 192;
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

// ---- The tiles, as data ---------------------------------------------------
// A kernel is a tile shape (the table below) instantiated for a problem kind;
// everything else of its configuration (TileConfig) is derived from the two.
// Device templates take the configuration type, TileConfig<S, K>, as `T`.
//
// Problem kind: the dense GEMM, or the grouped one over the (expert, tile)
// units of a grouped launch (tile_scheduler.cuh), whose shared memory also
// holds the experts' unit table.
enum class Kind { kDense, kGrouped };

// Tile shapes, by kernel rows x columns (BN is the wgmma N) and scale kind.
// A new shape is appended: the existing kernels keep their names.
enum class Shape {
  k128x128,
  k128x128Block,
  k128x64Swap,
  k128x64SwapBlock,
  k256x128,
  k256x128Block,
  k128x192,
  k128x192Block,
  k128x16Swap,
  k128x256,
  k128x160,
  k128x160Block,
  kCount,
};
constexpr int kShapeCount = static_cast<int>(Shape::kCount);

struct ShapeRow {
  Shape shape;       // its own index in kShapes
  const char* name;  // in kernel names: "128x64,swap,block"
  int block_m;       // kernel rows (X): 128, or 256 (each consumer holds two m64 sub-tiles)
  int block_n;       // kernel columns (Y), the wgmma N
  bool swap;         // X = B, Y = A: the decode orientation (M <= 64)
  bool block_scales;  // 1x128 / 128x128 block scales, applied per K block
  bool dense, grouped;  // the problem kinds it is instantiated for
  // Dense only. 2-CTA clusters with TMA multicast of the shared operand
  // (cluster.cuh): the 256 x 128 block tile alone, where sharing its 256-row
  // X tile saves a third of the L2 reads (3.6% faster on the suite's
  // clustered block rows); at 128 x 128 (a quarter saved), and in the vector
  // modes' tiles, multicast measured 0-1% and the cluster code cost the
  // kernels 2-4% when not clustered (docs/perf/log/2026-12-01-cluster-multicast.md).
  bool clusters;
  // Dense only. The cluster split (split-K through a cluster's distributed
  // shared memory, cluster_split.cuh), in the tiles its plan rule takes: the
  // swapped decode tiles (plan.hpp); in the 128 x 128 tiles its code cost 2-4%
  // unsplit (docs/perf/log/2026-12-01-integrated-run.md).
  bool cluster_split;
  // FAST accumulation only: its m64 x BN accumulator alone takes the
  // registers a promoted tile needs twice (the 128 x 256 tile, 128 f32 per
  // consumer thread). The host plans it only for FAST (plan.hpp,
  // grouped_plan.hpp) and its launches refuse the promoted mode (path.cu,
  // grouped_path.cu).
  bool fast_only;
};

// The 256 x 128 tiles read 48 KB of X and Y per 8.4 MFLOP against the
// 128 x 128 tiles' 32 KB per 4.2 MFLOP: a quarter less L2 traffic per FLOP,
// for a coarser grid (the host picks them only where the waves come out
// even). The 128 x 192 tiles (one accumulator) serve N whose 128-wide tiles
// leave a ragged last wave (plan.hpp). The 128 x 16 swapped tile is masked
// grouped decode of at most 16 tokens per expert (wgmma N = 16: a quarter of
// the 64-token tile's tensor work and token bytes, 11 stages instead of 8).
// The 128 x 256 tile (FAST only) reads the 256 x 128 tile's bytes per FLOP
// from L2, and per k32 step one m64n256 wgmma per consumer reads 20 KB of
// shared memory where the 256 x 128 tile's two m64n128 read 24 KB; grouped,
// it serves large routed batches (the same 128-token A tiles as 128 x 128,
// half the units).
// The 128 x 160 tiles (one accumulator, as 128 x 192) fill the waves where
// 128-, 192- and 256-wide tiles leave a ragged last one (N = 2112: 14 tiles
// across, where 128-wide make 17; DeepGEMM's BLOCK_N 160), in the vector
// modes and with block scales.
//                 shape                  name                 BM   BN   swap   block  dense  grouped clusters csplit fast
constexpr ShapeRow kShapes[] = {
    {Shape::k128x128,         "128x128",           128, 128, false, false, true,  true,  false, false, false},
    {Shape::k128x128Block,    "128x128,block",     128, 128, false, true,  true,  true,  false, false, false},
    {Shape::k128x64Swap,      "128x64,swap",       128, 64,  true,  false, true,  true,  false, true,  false},
    {Shape::k128x64SwapBlock, "128x64,swap,block", 128, 64,  true,  true,  true,  true,  false, true,  false},
    {Shape::k256x128,         "256x128",           256, 128, false, false, true,  false, false, false, false},
    {Shape::k256x128Block,    "256x128,block",     256, 128, false, true,  true,  false, true,  false, false},
    {Shape::k128x192,         "128x192",           128, 192, false, false, true,  false, false, false, false},
    {Shape::k128x192Block,    "128x192,block",     128, 192, false, true,  true,  false, false, false, false},
    {Shape::k128x16Swap,      "128x16,swap",       128, 16,  true,  false, false, true,  false, false, false},
    {Shape::k128x256,         "128x256",           128, 256, false, false, true,  true,  false, false, true},
    {Shape::k128x160,         "128x160",           128, 160, false, false, true,  false, false, false, false},
    {Shape::k128x160Block,    "128x160,block",     128, 160, false, true,  true,  false, false, false, false},
};

constexpr bool shapes_are_indexed() {
  if (static_cast<int>(sizeof kShapes / sizeof kShapes[0]) != kShapeCount) return false;
  for (int i = 0; i < kShapeCount; ++i)
    if (static_cast<int>(kShapes[i].shape) != i) return false;
  return true;
}
static_assert(shapes_are_indexed(), "kShapes has one row per Shape, in enum order");

// A shape's row. Shape values come from the enum alone, so the index is in range.
constexpr const ShapeRow& row(Shape s) { return kShapes[static_cast<int>(s)]; }
constexpr bool instantiated(Shape s, Kind k) { return k == Kind::kDense ? row(s).dense : row(s).grouped; }

// D sub-tiles: kernel rows x columns in the normal tiles, the swapped tiles'
// 64 weight rows as D's columns.
constexpr int out_cols(Shape s) { return row(s).swap ? kWgmmaM : row(s).block_n; }
// The D store box row of a tile (kMaxOutChunkBytes); the host encodes D's
// tensor map with boxes of it and the swizzle of that span.
constexpr int out_chunk_bytes(Shape s) { return std::gcd(out_cols(s) * 2, kMaxOutChunkBytes); }

// Kernels of a problem kind (its shapes times the 2 x 2 operand type pairs).
constexpr int kernels_of(Kind k) {
  int n = 0;
  for (const ShapeRow& r : kShapes) n += (k == Kind::kDense ? r.dense : r.grouped) ? 4 : 0;
  return n;
}
constexpr int kGroupedKernelCount = kernels_of(Kind::kGrouped);

// How the kernels are named in a binary (demangled; core/registry.hpp's
// KernelMatch): the template, and the problem kind among its arguments.
constexpr const char* kKernelName = "fp8kit::sm90::sm90_fp8_gemm_kernel<";
constexpr const char* kDenseKind = "(fp8kit::sm90::Kind)0>";
constexpr const char* kGroupedKind = "(fp8kit::sm90::Kind)1>";

// Grouped launches: experts one CTA's unit table holds (2 ints each: 8 KiB
// at 1024, which costs the 128 x 128 tile its sixth stage; the other tiles
// had the room). The host refuses more experts (grouped_path.cu).
constexpr int kMaxGroupedExperts = 1024;

template <Shape S, Kind K>
struct TileConfig {
  static_assert(instantiated(S, K), "a shape is instantiated only for the problem kinds its row names");
  static constexpr Shape kShape = S;
  static constexpr Kind kKind = K;
  static constexpr bool kGrouped = K == Kind::kGrouped;
  static constexpr bool kSwap = row(S).swap;
  static constexpr bool kBlock = row(S).block_scales;
  // 2-CTA clusters with multicast (cluster.cuh); the other tiles compile no cluster code.
  static constexpr bool kClusters = row(S).clusters && !kGrouped;
  static constexpr bool kClusterSplit = row(S).cluster_split && !kGrouped;
  static constexpr bool kFastOnly = row(S).fast_only;
  static constexpr int kBlockM = row(S).block_m;
  // m64 sub-tiles per consumer warpgroup: 1, or 2 in the 256 x 128 tiles.
  static constexpr int kSubTiles = kBlockM / (kConsumers * kWgmmaM);
  // 128 for the other normal tiles: the m64 x BN f32 accumulators must fit
  // the consumers' 232 registers (two wgmma accumulators and the master at
  // 128 x 128; one accumulator and two masters at 256 x 128; one
  // accumulator and the master, 2 x 96, at 128 x 192, 2 x 80 at 128 x 160;
  // at 128 x 256, FAST only, the one accumulator's 128).
  // Swapped: the tokens, 64, or 16 in the masked decode tile.
  static constexpr int kBlockN = row(S).block_n;
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
  // column chunks kOutChunkBytes wide, swizzled over that span, for TMA stores. An f32
  // sub-tile goes out in two passes, and the 256 x 128 tiles' two sub-tiles
  // one after the other: sized for f32, it would cost a pipeline stage.
  // Sub-tiles wider than kMaxStagedCols go out in halves (twice the passes),
  // grouped in quarters: the unit table (8 KB) beside half-sized buffers
  // would cost the 128 x 256 tile its fourth stage (dense, it has 1 KB left).
  static constexpr int kOutRows = kSwap ? kBlockN : kWgmmaM;
  static constexpr int kOutCols = out_cols(S);
  static constexpr int kOutChunkBytes = out_chunk_bytes(S);
  static constexpr int kStagingParts = kOutCols > kMaxStagedCols ? (kGrouped ? 4 : 2) : 1;
  static constexpr int kStagingBytes = kOutRows * kOutCols * 2 / kStagingParts;
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
  // 128 x 192 and five of 32 at 128 x 160, whose tiles straddle two blocks,
  // so a consumer multiplies each column by its group's scale with no
  // predicate.
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
  static constexpr bool kCoarseChunks = kBlock && !kSwap && !kGrouped;
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
  // for each block before promoting it (double-buffered they measured
  // slower: docs/perf/log/2026-11-30-pipeline-and-tiles.md); so do the 256 x 128 tiles (two masters)
  // and the 128 x 160 and 128 x 192 ones (a second accumulator does not fit): the other
  // consumer's wgmma fills the tensor pipe during a promotion.
  static constexpr bool kDoubleAcc = !kBlock && kSubTiles == 1 && kBlockN <= 128;
  static_assert(kBlockM <= kMaxBlockM, "a TMA box holds at most 256 rows");
  // The 256 x 128 block tile gets 3 stages (its scale slots cost the fourth).
  static_assert(kStages >= 3, "fewer than three stages cannot hide the TMA latency");
  static_assert(!kCoarseChunks || kScaleSlotBytes % kTmaSmemAlign == 0, "every stage's slot starts where TMA may write");
  static_assert(2 * kBlockN * sizeof(float) <= kStagingBytes, "the column factors pass through the staging buffer");
  static_assert(kBlockN % 8 == 0 && kBlockN <= 256, "wgmma N");
  static_assert(kColFactorsPerThread <= kMaxColFactorsPerThread, "ColFactor holds every column a thread loads");
  static_assert(kOutChunkBytes >= kMinOutChunkBytes, "a D store box row is a TMA swizzle span");
  static_assert(!kFastOnly || (!kBlock && !kSwap && !kClusters && !kClusterSplit),
                "a FAST-only tile is a normal vector-scale tile without cluster code");
};

}  // namespace fp8kit::sm90
