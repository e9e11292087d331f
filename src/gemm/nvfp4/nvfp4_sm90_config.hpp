// The Hopper NVFP4 W4A16 GEMM (sm_90a; nvfp4_sm90_kernel.cuh): its tile, its
// shared memory as a struct, and the host's rule for the problems it takes.
// Plain C++: the host side and its tests include it without the CUDA compiler.
//
// Orientation "swapped", as the decode tiles: kernel rows are B's weight
// rows (the wgmma's M, A operand from registers: decoded E2M1 x E4M3), kernel
// columns are the tokens (the wgmma's N, B operand from shared memory: A's
// 16-bit rows, K-major, as TMA lands them). D^T = B A^T.
#pragma once

#include <climits>
#include <cstdint>
#include <initializer_list>

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
constexpr int kPackedRowBytes = kBlockK / kElementsPerByte;  // 32 bytes of a weight row per stage
constexpr int kTokenRowBytes = kBlockK * 2;                  // 128 bytes of a token row per stage
constexpr int kWeightTileBytes = kBlockW * kPackedRowBytes;  // 4 KB
// Swizzled B scales: the 512-byte tile of 128 rows x 4 blocks is exactly one
// stage's scales of the CTA's weight rows, contiguous: one bulk copy.
constexpr int kScaleTileBytes = kTileBytes;
static_assert(kBlockW == kTileRows && kBlockK == kTileBlocks * kBlock, "a stage's scales are one swizzled tile");
constexpr int kStagePad = 16;  // bytes after each staged D row: conflict-free stores along the weights
constexpr int staging_pitch(int out_bytes) { return kWgmmaM * out_bytes + kStagePad; }
constexpr int kSmemBudget = fp8kit::sm90::kSmemBytesMax - fp8kit::sm90::kSmemReserve;

// The token tiles, by width (the wgmma N): 256, the widest, decodes each
// weight once per 256 tokens and keeps 128 f32 accumulators per thread
// within the consumers' 232 registers; 128 doubles the grid where 256-token
// tiles leave SMs idle (host_choice below).
enum class Tokens { k256, k128 };
constexpr int tokens_of(Tokens t) { return t == Tokens::k256 ? 256 : 128; }

template <Tokens kT>
struct TileT {
  static constexpr int kBlockT = tokens_of(kT);
  static constexpr int kAccRegs = kBlockT / 2;  // m64 x kBlockT f32 over 128 threads
  static constexpr int kTokenTileBytes = kBlockT * kTokenRowBytes;
  static constexpr int kStageBytes = kTokenTileBytes + kWeightTileBytes;  // + the scale tile when swizzled
  // As many stages as the opt-in shared memory holds (6 of 36.5 KB, 8 of
  // 20.5 KB); the epilogue's staging of both consumers' f32 tiles fits in
  // the stages it reuses.
  static constexpr int kStages =
      kSmemBudget / (kStageBytes + kScaleTileBytes) < 8 ? kSmemBudget / (kStageBytes + kScaleTileBytes) : 8;
  static constexpr int kStagingBytes = kBlockT * staging_pitch(4);  // per consumer, the widest output (f32)
  static_assert(kConsumers * kStagingBytes <= kStages * kTokenTileBytes, "the epilogue's staging fits");
  // A K split's partial of one consumer (kAccRegs f32 per thread) lies in
  // that consumer's staging buffer, which its owner rank stages into.
  static constexpr int kPartialBytes = kAccRegs * kWarpgroupThreads * 4;
  static_assert(kPartialBytes <= kStagingBytes, "a consumer's partial fits its staging buffer");

  struct SharedStorage {
    // sT: (kBlockT, kBlockK) 16-bit tokens per stage, 128B-swizzled (TMA),
    // on a 1024-byte boundary (the wgmma descriptor's base offset is 0);
    // after the K loop, the consumers' staging buffers (a split's partials).
    alignas(kSwizzleAtomBytes) uint8_t tokens[kStages][kTokenTileBytes];
    // sW: (kBlockW, 32 bytes) packed weights per stage, unswizzled (TMA).
    alignas(kSwizzleAtomBytes) uint8_t weights[kStages][kWeightTileBytes];
    // sS: the stage's swizzled scale tile (swizzled B scales only; linear
    // ones are read from global memory by the consumers).
    alignas(16) uint8_t scales[kStages][kScaleTileBytes];
    uint64_t full[kStages];   // TMA bytes landed
    uint64_t empty[kStages];  // every consumer thread is done with the stage
  };
  // The dynamic shared memory starts at a 16-byte boundary; the kernel places
  // the struct at the next 1024-byte one.
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage)) + kSwizzleAtomBytes;
  static_assert(kSmemBytes <= fp8kit::sm90::kSmemBytesMax, "the stages fit the opt-in shared memory");
};

// Named barriers (0 is __syncthreads).
enum Barrier : int {
  kConsumersDone = 1,   // both consumers past their last read of the stages: the staging may start
  kStagingBase = 2,     // + consumer: one consumer's 128 threads around its staging buffer
};

// The portable cluster size: the most CTAs that split one tile's K.
constexpr int kMaxSplit = 8;

// The host's plan of a prefill problem: the token tile and the K split (S
// CTAs of a cluster take consecutive K ranges of one tile; consumer c's
// partials meet in rank c, which finishes its 64 weight rows of the tile).
struct Plan {
  Tokens tokens;
  int splits;
};

// The plan's cost, in tokens x K blocks of one CTA: the fewest waves of
// CTAs times each CTA's time, plus the split's hand-off.
// - A CTA's K block costs its tokens (the tensor work) plus the decode's
//   cost that no wgmma hides, counted as kDecodeTokens tokens: fitted to the
//   H200 (both tiles forced, docs/perf/log/2026-12-03-nvfp4-sm90-wgmma.md:
//   4096^3 takes 1.42x as long at 128 tokens, 512 x 4096^2 (one wave either
//   way) 0.75x; 2048 x 7168 x 2048 at 1.23x is predicted at 1.24).
// - Each CTA adds kFixedBlocks blocks: the launch, the pipeline's fill
//   before the first wgmma and the epilogue's staged store.
// - A split adds, per rank past the first, the owner's read of one partial
//   (64 weight rows x the tile's tokens in f32) through distributed shared
//   memory and the wait for the slowest rank, counted as kRankTokens per
//   token of the tile.
// kFixedBlocks and kRankTokens are fitted to an H100 sweep of both tiles at
// splits 1-8 over 11 shapes of 32-4096 tokens, kDecodeTokens kept (the same
// error; dev/nvfp4/fit_prefill_plan.py,
// docs/perf/log/2026-12-07-nvfp4-prefill-split.md): a CTA's fixed cost is
// about 20 of its blocks (64 x 4096 x 4096 unsplit 36.7 us, split in two
// 25.3, in three 24.2, where its K blocks alone would give 18 and 12).
// `wave[s]`: CTAs resident at once in clusters of s (the device's answer; 0
// where a size cannot run). `m` is the tokens of one group of `groups`
// alike (dense: 1 group of M; grouped: the experts at the rows per expert
// the host knows, nvfp4_sm90_gemm.cu), `max_split` the most CTAs a tile's K
// may be split over (grouped: 1). No CTA of a split is left without K
// blocks. Ties keep the wider tile (fewer decodes, less L2 traffic), then
// the smaller split.
constexpr int64_t kDecodeTokens = 180;
constexpr int64_t kFixedBlocks = 20;
constexpr int64_t kRankTokens = 8;
inline Plan choose_plan(int64_t m, int64_t n, int64_t k, const int (&wave)[kMaxSplit + 1], int64_t groups = 1,
                        int max_split = kMaxSplit) {
  const int64_t nkb = ceil_div(k, int64_t{kBlockK});
  Plan best{Tokens::k256, 1};
  int64_t best_cost = INT64_MAX;
  for (const Tokens t : {Tokens::k256, Tokens::k128}) {
    const int64_t tokens = tokens_of(t);
    const int64_t tiles = groups * ceil_div(n, int64_t{kBlockW}) * ceil_div(m, tokens);
    for (int s = 1; s <= max_split; ++s) {
      const int64_t per = ceil_div(nkb, int64_t{s});
      if (wave[s] <= 0 || (s > 1 && (s - 1) * per >= nkb)) continue;
      const int64_t cost = ceil_div(tiles * s, int64_t{wave[s]}) * (per + kFixedBlocks) * (tokens + kDecodeTokens) +
                           (s - 1) * tokens * kRankTokens;
      if (cost < best_cost) best = {t, s}, best_cost = cost;
    }
  }
  return best;
}

// A grouped problem goes to this path from that many rows per expert (the
// host's estimate: contiguous T / E, masked max_m). Qwen3-30B-A3B gate_up,
// 128 experts, contiguous, both paths forced on an H100: at 16 rows per
// expert sm75_hmma 174 us against 227, at 32 rows 379 against 227 (this
// path's time flat: one token tile per expert either way); sm75_hmma's
// time, linear between the two, meets 227 us at about 20 rows.
constexpr int64_t kMinGroupedTokens = 20;

}  // namespace fp8kit::nvfp4::sm90w
