// Pipeline shape of the native Hopper FP8 GEMM (sm_90a): the tile
// configurations and their shared-memory layout, compile-time constants that
// the kernel (sm90_fp8_gemm.cuh) and the host heuristics
// (sm90_fp8_gemm_config.hpp) share. Plain C++: the host side and its tests
// include it without the CUDA compiler.
#pragma once

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
constexpr int kProducerRegs = 40;      // setmaxnreg: producer gives registers away
constexpr int kScaleWarp = 1;          // block tiles: the producer warpgroup's warp that loads the scales
constexpr int kScaleWarpLanes = 32;
constexpr int kConsumerRegs = 232;     // (65536 - 128 * 40) / 256, rounded down to 8
constexpr int kSwizzleAtomBytes = 1024;  // 8 rows x 128 B: the 128B swizzle period
constexpr int kSmemBytesMax = 232448;    // sm_90 opt-in dynamic shared memory per block
constexpr int kSmemReserve = 2048;       // barriers, split-K flags, alignment slack
constexpr int kOutBoxRows = 64;          // rows of a D store box (every tile's D sub-tiles are 64 rows)
constexpr int kOutChunkBytes = 128;      // bytes of a D store box row: one 128B swizzle row
constexpr int kMaxBlockM = 256;          // the largest tile's kernel rows (TMA boxes hold at most 256)

// Tile configurations. BM x BN kernel rows x columns; BN is the wgmma N.
//   kLarge:      normal,  128 x 128, per-tensor / row / col scales
//   kLargeBlock: normal,  128 x 128, block scales (master + partial accumulators)
//   kWide:       normal,  256 x 128, per-tensor / row / col scales
//   kWideBlock:  normal,  256 x 128, block scales
//   kSmall:      swapped, 128 x 64,  M <= 64 (decode), any non-block scales
//   kSmallBlock: swapped, 128 x 64,  block scales
// The wide tiles read 48 KB of X and Y per 8.4 MFLOP against the 128 x 128
// tiles' 32 KB per 4.2 MFLOP: a quarter less L2 traffic per FLOP, for a
// coarser grid (the host picks them only where the waves come out even).
enum class Tile { kLarge, kLargeBlock, kSmall, kSmallBlock, kWide, kWideBlock };

template <Tile T>
struct TileTraits {
  static constexpr bool kSwap = (T == Tile::kSmall || T == Tile::kSmallBlock);
  static constexpr bool kBlock = (T == Tile::kLargeBlock || T == Tile::kSmallBlock || T == Tile::kWideBlock);
  static constexpr bool kWideTile = (T == Tile::kWide || T == Tile::kWideBlock);
  static constexpr int kBlockM = kWideTile ? 256 : 128;
  // m64 sub-tiles per consumer warpgroup: 1, or 2 in the wide tiles.
  static constexpr int kSubTiles = kBlockM / (kConsumers * kWgmmaM);
  // 128 for the normal tiles: the m64 x BN f32 accumulators must fit the
  // consumers' 232 registers (two wgmma accumulators and the master at
  // 128 x 128; one accumulator and two masters in the wide tiles).
  static constexpr int kBlockN = kSwap ? 64 : 128;
  static constexpr int kBytesX = kBlockM * kBlockK;  // sX stage: (BLK_M, BLK_K) fp8
  static constexpr int kBytesY = kBlockN * kBlockK;  // sY stage: (BLK_N, BLK_K) fp8
  static constexpr int kStageBytes = kBytesX + kBytesY;
  // Epilogue staging, per consumer warpgroup: one D sub-tile of kOutRows x
  // kOutCols (normal: 64 m x BN n; swapped: BN m x 64 n) of a 16-bit type, as
  // 128-byte-wide column chunks, 128B-swizzled, for TMA stores. An f32
  // sub-tile goes out in two passes, and the wide tiles' two sub-tiles one
  // after the other: sized for f32, it would cost a pipeline stage.
  static constexpr int kOutRows = kSwap ? kBlockN : kWgmmaM;
  static constexpr int kOutCols = kSwap ? kWgmmaM : kBlockN;
  static constexpr int kStagingBytes = kOutRows * kOutCols * 2;
  static constexpr int kFixedBytes = kConsumers * kStagingBytes + kSmemReserve;
  // Block tiles: each stage also carries its K block's scales (sS: the
  // kernel rows' then the kernel columns', f32), loaded by the producer's
  // scale warp. Normal: BM A scales + 1 B scale; swapped: 1 B scale + BN A
  // scales. Rounded to 16 bytes.
  static constexpr int kRowScales = kSwap ? 1 : kBlockM;
  static constexpr int kColScales = kSwap ? kBlockN : 1;
  static constexpr int kColScaleOffset = kSwap ? 4 : kBlockM;  // 16-byte aligned: read as float2
  static constexpr int kScaleSlotBytes = kBlock ? (kColScaleOffset + kColScales + 3) / 4 * 16 : 0;
  static constexpr int kStages = (kSmemBytesMax - kFixedBytes) / (kStageBytes + kScaleSlotBytes);
  static constexpr int kSmemBytes = kStages * (kStageBytes + kScaleSlotBytes) + kFixedBytes;
  static constexpr int kAccRegs = kBlockN / 2;  // f32 per thread for m64 x BN
  // Two wgmma accumulators (K block i+1 runs while block i is promoted) plus
  // the master: 3 x 64 registers at BN 128. Block tiles keep one, and wait for
  // each block before promoting it: double-buffered (v9, with the scales from
  // shared memory it fits 232 registers) they ran 10% slower on the suite
  // than v8's single accumulator. So do the wide tiles (two masters): their
  // consumers' sub-tiles alternate, and the other consumer's wgmma fills the
  // tensor pipe during a promotion.
  static constexpr bool kDoubleAcc = !kBlock && kSubTiles == 1;
  static_assert(kBlockM <= kMaxBlockM, "a TMA box holds at most 256 rows");
  // NOTE: the wide block tile gets 3 stages (its scale slots cost the
  // fourth); measured on the H200, 3 and 4 stages run the wide tiles at the
  // same speed (docs/perf.md, v8).
  static_assert(kStages >= 3, "fewer than three stages cannot hide the TMA latency");
  static_assert(2 * kBlockN * sizeof(float) <= kStagingBytes, "the column factors pass through the staging buffer");
};

}  // namespace fp8kit::sm90
