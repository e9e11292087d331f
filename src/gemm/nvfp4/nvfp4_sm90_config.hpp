// The Hopper NVFP4 W4A16 GEMM (sm_90a; nvfp4_sm90_kernel.cuh): its tile, its
// shared memory as a struct, and the host's rule for the problems it takes.
// Plain C++: the host side and its tests include it without the CUDA compiler.
//
// Orientation "swapped", as the decode tiles: kernel rows are B's weight
// rows (the wgmma's M, A operand from registers: decoded E2M1 x E4M3), kernel
// columns are the tokens (the wgmma's N, B operand from shared memory: A's
// 16-bit rows, K-major, as TMA lands them). D^T = B A^T.
#pragma once

#include <cstdint>

#include "core/nvfp4_layout.hpp"
#include "gemm/sm90/tile_config.hpp"

namespace fp8kit::nvfp4::sm90w {

using fp8kit::sm90::kConsumers;
using fp8kit::sm90::kSwizzleAtomBytes;
using fp8kit::sm90::kThreads;
using fp8kit::sm90::kWarpgroupThreads;
using fp8kit::sm90::kWgmmaM;

constexpr int kBlockK = 64;                 // K per stage: one 128-byte swizzle row of 16-bit tokens
constexpr int kWgmmaK = 16;                 // 16-bit wgmma K
constexpr int kKSteps = kBlockK / kWgmmaK;  // 4 wgmma per stage and consumer
constexpr int kBlockW = kConsumers * kWgmmaM;  // 128 weight rows: one m64 per consumer
// 256 tokens, the widest wgmma N: each weight is decoded once per 256 tokens
// (the decode's ALU work is a quarter of the tensor work's issue time at
// this width, measured in docs/perf/log/2026-12-03-nvfp4-sm90-wgmma.md), and
// the 128 f32 accumulators per thread fit the consumers' 232 registers.
constexpr int kBlockT = 256;
constexpr int kAccRegs = kBlockT / 2;       // m64 x n256 f32 over 128 threads
constexpr int kPackedRowBytes = kBlockK / kElementsPerByte;  // 32 bytes of a weight row per stage
constexpr int kTokenRowBytes = kBlockK * 2;                  // 128 bytes of a token row per stage
constexpr int kTokenTileBytes = kBlockT * kTokenRowBytes;    // 32 KB
constexpr int kWeightTileBytes = kBlockW * kPackedRowBytes;  // 4 KB
// Swizzled B scales: the 512-byte tile of 128 rows x 4 blocks is exactly one
// stage's scales of the CTA's weight rows, contiguous: one bulk copy.
constexpr int kScaleTileBytes = kTileBytes;
static_assert(kBlockW == kTileRows && kBlockK == kTileBlocks * kBlock, "a stage's scales are one swizzled tile");
constexpr int kStageBytes = kTokenTileBytes + kWeightTileBytes;
// Five stages: 182.5 KB, and the epilogue's staging of both consumers' f32
// tiles (2 x 256 x 272 bytes) fits in the stages it reuses.
constexpr int kStages = 5;
constexpr int kStagePad = 16;  // bytes after each staged D row: conflict-free stores along the weights
constexpr int staging_pitch(int out_bytes) { return kWgmmaM * out_bytes + kStagePad; }
constexpr int kStagingBytes = kBlockT * staging_pitch(4);  // per consumer, the widest output (f32)

struct SharedStorage {
  // sT: (kBlockT, kBlockK) 16-bit tokens per stage, 128B-swizzled (TMA), on
  // a 1024-byte boundary (the wgmma descriptor's base offset is 0).
  alignas(kSwizzleAtomBytes) uint8_t tokens[kStages][kTokenTileBytes];
  // sW: (kBlockW, 32 bytes) packed weights per stage, unswizzled (TMA).
  alignas(kSwizzleAtomBytes) uint8_t weights[kStages][kWeightTileBytes];
  // sS: the stage's swizzled scale tile (swizzled B scales only; linear ones
  // are read from global memory by the consumers).
  alignas(16) uint8_t scales[kStages][kScaleTileBytes];
  uint64_t full[kStages];   // TMA bytes landed
  uint64_t empty[kStages];  // every consumer warp is done with the stage
};
// The dynamic shared memory starts at a 16-byte boundary; the kernel places
// the struct at the next 1024-byte one.
constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage)) + kSwizzleAtomBytes;
static_assert(kConsumers * kStagingBytes <= kStages * kStageBytes, "the epilogue's staging fits in the stages");
static_assert(kSmemBytes <= fp8kit::sm90::kSmemBytesMax, "the stages fit the opt-in shared memory");

// Named barriers (0 is __syncthreads).
enum Barrier : int {
  kConsumersDone = 1,   // both consumers past their last read of the stages: the staging may start
  kStagingBase = 2,     // + consumer: one consumer's 128 threads around its staging buffer
};

// Tokens from which the host prefers this path (W4A16, Hopper): below it a
// 256-token tile runs mostly empty MMAs, and the decode and CTA tiles
// (nvfp4_plan.hpp) are faster (measured in the perf log named above).
constexpr int64_t kMinTokens = 64;

}  // namespace fp8kit::nvfp4::sm90w
