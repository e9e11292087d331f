// The Hopper NVFP4 decode kernel (sm_90a; nvfp4_sm90_decode_kernel.cuh):
// its tile, its shared memory as a struct, the permutation of K it shares
// with the token warps, and the host's choice of K split. Plain C++: the host
// side and its tests include it without the CUDA compiler.
//
// Orientation as the prefill kernel (nvfp4_sm90_config.hpp): kernel rows are
// B's weight rows (wgmma M, A from registers), kernel columns the at most 16
// tokens (wgmma N = 16, B from shared memory).
//
// The K permutation. Within each 64-deep K block, wgmma step s (of 4) slot j
// (of 16) holds K element
//     pi(s, j) = 16 t + 8 (s / 2) + 4 e + 2 (s % 2) + h,
// t = (j % 8) / 2, e = j % 2, h = j / 8 (every bit of pi from one source: a
// bijection). Thread (g, t) of a consumer warp then finds all its A slots of
// the block in bytes 8t .. 8t + 7 of its two rows: word v (elements
// 16t + 8v .. + 7, one scale block) placed as pairs (r, r + 4)
// (nvfp4_placed.cuh, place_e2m1x8) is steps 2v and 2v + 1. The token warps
// write the tokens in the same order, so the dot product is the GEMM's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/math.hpp"
#include "core/nvfp4_layout.hpp"
#include "gemm/nvfp4/nvfp4_sm90_config.hpp"

namespace fp8kit::nvfp4::sm90w {

constexpr int kDecodeTokens16 = 16;  // the wgmma N: M <= 16
// Below kDecodeMinTokens tokens HMMA's 8-token decode tile (sm75_hmma) does
// half this kernel's tensor work and never splits K, while this kernel's
// decode costs fewer instructions per weight; it takes such a problem only
// where its split rule gives a tile at most kDecodeFewTokensMaxSplit CTAs
// (the hand-off it then pays is short). On an H100, graph-timed with the
// token floor at 1 (docs/perf/log/2026-12-06-nvfp4-decode-unrolled.md):
// unsplit or split in two it is faster (1 x 28672 x 4096 30.9 against 35.2
// us, 8 x 28672 x 4096 29.7 against 38.4, 1 x 14336 x 2048 11.1 against
// 13.3), split in four or more slower (4 x 7168 x 2048 8.8 against 8.4,
// 1 x 4096 x 4096 9.8 against 7.6).
constexpr int kDecodeMinTokens = 9;
constexpr int kDecodeFewTokensMaxSplit = 2;
// NVFP4 tokens (W4A4) add the token warps' decode to each CTA's fixed cost
// (the raw tokens' fill, the scale ring's lead), which a CTA's few K blocks
// do not repay once the split is high; HMMA's decode tile then wins at every
// split. On an H100, 16 tokens, graph-timed, every split forced
// (docs/perf/log/2026-12-06-nvfp4-w4a4-decode.md): split 1 .. 5 at 0.75 ..
// 0.87 of HMMA's time (16 x 5120 x 5120 split in five 0.80), split 6 .. 8 at
// 1.04 .. 1.09 at best (16 x 4096 x 4096, 16 x 4096 x 14336, 16 x 2048 x 7168).
constexpr int kDecodeA4MaxSplit = 5;
// Whether this kernel takes m <= kDecodeTokens16 tokens (NVFP4 ones where
// `a4`) whose K split (the plan's, choose_decode_split) is `splits` CTAs per
// weight tile.
constexpr bool decode_takes_tokens(int64_t m, bool a4, int splits) {
  if (m < kDecodeMinTokens) return splits <= kDecodeFewTokensMaxSplit;
  return !a4 || splits <= kDecodeA4MaxSplit;
}
constexpr int kDecodeAccRegs = kDecodeTokens16 / 2;  // m64 x n16 f32 over 128 threads
constexpr int kDecodeTokenBytes = kDecodeTokens16 * kTokenRowBytes;  // 2 KB per stage
// NVFP4 tokens (W4A4) land packed, 32 bytes of a token per stage, and the
// token warps decode them into sT as the 16-bit tokens.
constexpr int kDecodePackedTokenBytes = kDecodeTokens16 * kPackedRowBytes;
constexpr int kDecodeCtasPerSm = 2;  // two CTAs' decode hides each other's waits
constexpr int kDecodeStages = 8;     // 8.5 KB each: two CTAs in 140 KB, 72 KB of weights in flight per SM
constexpr int kDecodeMaxSplit = kMaxSplit;
// Threads of the producer warpgroup: thread 0 issues the TMA copies, the two
// warps from kTokenWarp permute the tokens (and decode NVFP4 ones: one warp
// alone, about 220 instructions per block, gated the consumers); the rest
// idle.
constexpr int kTokenWarp = 1;
constexpr int kTokenThreads = 64;
// Blocks ahead that the token warps issue NVFP4 tokens' scale loads: an L2
// round trip under a saturated HBM is about two blocks of a CTA's stream
// (ncu on 16 x 28672 x 4096: the warp waited on a scale load every block
// when it was used the block after), and a linear word is 4 registers.
constexpr int kTokenScaleAhead = 4;

struct DecodeStorage {
  // sT: (16 tokens, 64 K) 16-bit per stage in the permuted K order, 128B-swizzled
  // (the wgmma's B); on a 1024-byte boundary.
  alignas(kSwizzleAtomBytes) uint8_t tokens[kDecodeStages][kDecodeTokenBytes];
  // sR: the same block as TMA lands it (natural K order; 16-bit tokens
  // 128B-swizzled, NVFP4 ones packed, (16 tokens, 32 bytes)).
  alignas(kSwizzleAtomBytes) uint8_t raw[kDecodeStages][kDecodeTokenBytes];
  // sW: (kBlockW, 32 bytes) packed weights per stage (TMA); after the K
  // loop, the epilogue's staging.
  // After the leader's K loop, sT, sR and sW (adjacent) take the other
  // ranks' partials: (splits - 1, consumer, kDecodeAccRegs / 4, thread) float4.
  alignas(kSwizzleAtomBytes) uint8_t weights[kDecodeStages][kWeightTileBytes];
  // sS: the stage's swizzled scale tile (swizzled B scales only).
  alignas(16) uint8_t scales[kDecodeStages][kScaleTileBytes];
  uint64_t full[kDecodeStages];   // TMA bytes landed (raw tokens, weights, scales)
  uint64_t ready[kDecodeStages];  // the token warps have written sT
  uint64_t empty[kDecodeStages];  // every consumer thread is done with the stage
  uint64_t slots_free;             // a non-leader: the leader's stage memory may take its partials
  uint64_t partials_full;          // the leader: every other rank's partials have landed (st.async)
};
constexpr int kDecodeSmemBytes = static_cast<int>(sizeof(DecodeStorage)) + kSwizzleAtomBytes;
static_assert(kDecodeCtasPerSm * kDecodeSmemBytes <= fp8kit::sm90::kSmemBytesMax, "two CTAs per SM");
// One rank's partials: two consumers x 128 threads x the accumulators.
constexpr int kDecodeSlotBytes = kConsumers * kWarpgroupThreads * kDecodeAccRegs * 4;
static_assert(offsetof(DecodeStorage, raw) == sizeof(DecodeStorage::tokens) &&
                  offsetof(DecodeStorage, weights) == offsetof(DecodeStorage, raw) + sizeof(DecodeStorage::raw),
              "sT, sR and sW are adjacent");
static_assert((kDecodeMaxSplit - 1) * kDecodeSlotBytes <=
                  static_cast<int>(sizeof(DecodeStorage::tokens) + sizeof(DecodeStorage::raw) + sizeof(DecodeStorage::weights)),
              "every other rank's partials fit the leader's stage memory");
static_assert(kConsumers * kDecodeTokens16 * staging_pitch(4) <= static_cast<int>(sizeof(DecodeStorage::weights)),
              "the epilogue's staging fits sW");

// The host's K split: S CTAs of a cluster share a weight tile's K blocks.
// Time ~ waves of CTAs x (a CTA's K blocks + its fixed cost) + the split's
// hand-off, all in K blocks of a CTA's stream. The fixed cost: the
// pipeline's fill (about one HBM round trip, ~4 blocks at an SM's share of
// the bandwidth) and the epilogue. The hand-off: each other rank's partials
// (8 KB) land in the leader by st.async, which adds them one rank after
// another; fitted to the H200 sweep of every split over 10 shapes
// (docs/perf/log/2026-12-04-nvfp4-decode-profile.md), when the hand-off
// still passed two cluster barriers: one block per rank past the first
// (4096 x 4096: 6 CTAs per cluster, 10.1 us, where 7 took 11.3).
constexpr int kDecodeFixedBlocks = 8;
constexpr int kDecodeRankBlocks = 1;
// wave[s]: CTAs resident at once in clusters of s (the device's answer;
// 0 where a size cannot run). Returns S in 1..kDecodeMaxSplit; no CTA of a
// split stays without K blocks; ties keep the smaller split.
inline int choose_decode_split(int64_t n, int64_t k, const int (&wave)[kDecodeMaxSplit + 1]) {
  const int64_t tiles = ceil_div(n, int64_t{kBlockW});
  const int64_t nkb = ceil_div(k, int64_t{kBlockK});
  int best = 1;
  int64_t best_cost = INT64_MAX;
  for (int s = 1; s <= kDecodeMaxSplit; ++s) {
    const int64_t per = ceil_div(nkb, int64_t{s});
    if (wave[s] <= 0 || (s - 1) * per >= nkb) continue;
    const int64_t cost =
        ceil_div(tiles * s, int64_t{wave[s]}) * (per + kDecodeFixedBlocks) + int64_t{kDecodeRankBlocks} * (s - 1);
    if (cost < best_cost) best = s, best_cost = cost;
  }
  return best;
}

}  // namespace fp8kit::nvfp4::sm90w
