// Shared memory of one CTA of the native Hopper FP8 GEMM, as a struct (plain
// C++: the host sizes the launch from it). The dynamic shared memory starts
// at a 16-byte boundary; the kernel places this struct at the next 1024-byte
// one (the 128B swizzle atom), which kSmemBytes pays for.
#pragma once

#include <cstdint>

#include "gemm/sm90/tile_config.hpp"

namespace fp8kit::sm90 {

// Grouped tiles: the experts' unit table, built by the CTA from the device
// group array when it starts (tile_scheduler.cuh). Empty for dense tiles (a
// base class, so that it costs them no byte).
template <bool kGrouped>
struct GroupTable {};
template <>
struct GroupTable<true> {
  int unit_end[kMaxGroupedExperts];  // units of experts 0..e: inclusive prefix of their tile counts
  int row_end[kMaxGroupedExperts];   // the (clamped) end of expert e's rows in A / D
};

template <class T>
struct SharedStorage : GroupTable<T::kGrouped> {
  using Cfg = T;
  // The mainloop's stages: (BLK_M, BLK_K) X and (BLK_N, BLK_K) Y FP8 tiles,
  // 128B-swizzled, each on a 1024-byte boundary (the wgmma descriptors'
  // base offset is 0).
  alignas(kSwizzleAtomBytes) uint8_t x[Cfg::kStages][Cfg::kBytesX];
  alignas(kSwizzleAtomBytes) uint8_t y[Cfg::kStages][Cfg::kBytesY];
  // Each consumer's epilogue buffer: first the unit's column factors
  // ((2, BN) f32: scale then bias), then the D staging of the TMA stores.
  union Epilogue {
    alignas(kSwizzleAtomBytes) uint8_t staging[Cfg::kStagingBytes];
    float col_factors[2][Cfg::kBlockN];
  };
  Epilogue epilogue[kConsumers];
  // Block tiles: each stage's scale slot (layout in TileConfig); one float
  // per stage elsewhere (unused), so that the member always exists.
  alignas(Cfg::kScaleSlotAlign) float scales[Cfg::kStages][Cfg::kBlock ? Cfg::kScaleSlotFloats : 1];
  // Dense normal block tiles: B's block scales of a chunk of a unit's K
  // blocks, (kCoarseChunkBlocks, kScaleGroups) f32 (at least one float).
  float coarse[kCoarseChunkBuffers][Cfg::kCoarseChunks ? Cfg::kCoarseChunkFloats : 1];
  uint64_t full[Cfg::kStages];   // TMA bytes (+ the scale warp's arrivals) landed
  uint64_t empty[Cfg::kStages];  // the consumers are done with the stage
  uint64_t coarse_full[kCoarseChunkBuffers];   // the scale warp's copies of a chunk landed
  uint64_t coarse_empty[kCoarseChunkBuffers];  // every consumer thread has read its last K block
  unsigned last_flag[kConsumers];  // split-K: this consumer's tile part arrived last
  // Cluster split (cluster_split.cuh), per consumer: the partner's partial of
  // tree level l has landed in this CTA's slot; this CTA's receiver has freed
  // its slot for this CTA's partial.
  uint64_t cluster_ready[kClusterLevels][kConsumers];
  uint64_t slot_free[kConsumers];

  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage)) + kSwizzleAtomBytes;
};

template <class T>
constexpr int smem_bytes() {
  static_assert(SharedStorage<T>::kSmemBytes <= kSmemBytesMax, "the tile's stages fit the opt-in shared memory");
  return SharedStorage<T>::kSmemBytes;
}

}  // namespace fp8kit::sm90
