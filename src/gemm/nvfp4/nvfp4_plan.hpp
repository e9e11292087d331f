// The NVFP4 GEMM's tile shapes and the host's choice between them, as plain
// C++ (no CUDA) so CPU tests pin the choice. Two kinds:
//
//   CTA tiles (nvfp4_tile.cuh): every shape consumes 64 K elements per
//   pipeline stage: 32 bytes of each packed NVFP4 row (two 16-byte chunks,
//   two K groups of 32) and one 32-bit word of 4 E4M3 scales per row.
//     M16N64   4 warps side by side along N, each 16 x 16: 17-32 rows.
//     M128N128 8 warps (2 x 4), each 64 x 32: prefill; 3 stages keep a
//              16-bit A within Turing's 64 KiB of shared memory per block.
//   Decode tiles (nvfp4_decode.cuh, HMMA policies only): block_m tokens,
//   block_n weight rows (16 per warp along N), warps_k warps splitting K in
//   128-element chunks; shared memory holds a ring of `stages` chunks of
//   weights per thread (cp.async, stages - 1 in flight) and the K split's
//   partial sums. 8 warps per CTA, 16 rows per warp along N; how many along
//   N and how many split K is the host's choice per problem
//   (choose_decode_warps_n), two CTAs per SM (the 128-register bound).
//   Four stages: 3 x 32 bytes in flight per thread, 48 KB per SM at two
//   CTAs, twice what the HBM's latency times an SM's share of its bandwidth
//   asks (about 0.7 us x 32 GB/s).
//     DecodeM8    8 tokens (one n8 tile): M <= 8.
//     DecodeM16   16 tokens (two n8 tiles): 9-16 tokens. The CTAs of one SM
//                 walk K in the same order, so they share token loads in L1.
#pragma once

#include <cstdint>

#include "core/device.hpp"
#include "core/math.hpp"

namespace fp8kit::nvfp4 {

enum class TileId { M16N64, M128N128, DecodeM8, DecodeM16 };
enum class TileKind { Cta, Decode };

struct TileShape {
  TileId id;
  const char* name;
  TileKind kind;
  int block_m, block_n, warps_m, warps_n, warps_k, stages;
  int min_blocks;  // __launch_bounds__: CTAs per SM the registers must allow
  static constexpr int kStageK = 64;           // K elements per stage
  static constexpr int kPackedRowBytes = kStageK / 2;
  static constexpr int kScaleWordBytes = 4;    // 4 blocks of 16 per stage row
  static constexpr int kDecodeChunkK = 128;    // decode: K elements per warp and chunk (16 bytes per lane and row)
  static constexpr int kPartialBytes = 4;      // decode: one f32 partial sum
  static constexpr int kDecodeStageBytes = 2 * 16;  // decode: a thread's two rows of one chunk
  constexpr int warps() const { return warps_m * warps_n * warps_k; }
  constexpr int threads() const { return 32 * warps(); }
  constexpr int warp_m() const { return block_m / warps_m; }
  constexpr int warp_n() const { return block_n / warps_n; }
  // Bytes of one stage: A's rows (16-bit or packed), B's rows, their scales.
  constexpr int a_tile_bytes(bool a16) const { return block_m * (a16 ? 2 * kStageK : kPackedRowBytes); }
  constexpr int b_tile_bytes() const { return block_n * kPackedRowBytes; }
  constexpr int a_scale_bytes(bool a16) const { return a16 ? 0 : block_m * kScaleWordBytes; }
  constexpr int b_scale_bytes() const { return block_n * kScaleWordBytes; }
  constexpr int stage_bytes(bool a16) const {
    return a_tile_bytes(a16) + b_tile_bytes() + a_scale_bytes(a16) + b_scale_bytes();
  }
  // Decode: the K split's partial sums, whatever the split (warps_k x
  // block_n = 128 rows x K-warps).
  constexpr int decode_reduction_bytes() const { return warps_k * block_m * block_n * kPartialBytes; }
  constexpr int smem_bytes(bool a16) const {
    return kind == TileKind::Decode ? decode_reduction_bytes() + stages * threads() * kDecodeStageBytes
                                    : stages * stage_bytes(a16);
  }
};

constexpr TileShape kTileShapes[] = {
    {TileId::M16N64, "m16n64", TileKind::Cta, 16, 64, 1, 4, 1, 4, 1},
    {TileId::M128N128, "m128n128", TileKind::Cta, 128, 128, 2, 4, 1, 3, 1},
    {TileId::DecodeM8, "decode_m8", TileKind::Decode, 8, 16, 1, 1, 8, 4, 2},
    {TileId::DecodeM16, "decode_m16", TileKind::Decode, 16, 16, 1, 1, 8, 4, 2},
};
constexpr int kTileCount = 4;

constexpr const TileShape& tile_shape(TileId id) { return kTileShapes[static_cast<int>(id)]; }
constexpr bool indexed_by_id() {
  for (int i = 0; i < kTileCount; ++i)
    if (static_cast<int>(kTileShapes[i].id) != i) return false;
  return sizeof(kTileShapes) / sizeof(kTileShapes[0]) == kTileCount;
}
static_assert(indexed_by_id(), "kTileShapes is indexed by TileId");

// Rows per CTA up to which the 16-row CTA tile wins when there is no decode
// tile (the block-scaled FP4 policy): below it a 128-row tile would run
// mostly empty MMAs; up to two 16-row CTAs along M re-read B from L2.
constexpr int64_t kDecodeRowsMax = 32;

// Decode tiles: warps along N of the CTA's 8 (the rest split K): the most
// whose grid still fills two CTAs per SM (what the 128-register bound lets
// reside). Swept on the H200 (docs/perf/log/2026-12-02-nvfp4-decode-tile.md):
// more warps along N cut the CTAs' fixed costs and the tokens' L2 reads,
// which pays where the grid stays full (grouped decode over many experts:
// 130 us at 8 against 189 at 1, Qwen3 gate_up, 16 tokens); a grid below two
// CTAs per SM loses more (1 x 4096 x 4096: 7.4 us at 1, 10.5 at 2).
constexpr int kDecodeWarps = tile_shape(TileId::DecodeM8).warps();
constexpr int kDecodeWarpRows = tile_shape(TileId::DecodeM8).block_n;  // a warp's rows, the MMA's M
static_assert(tile_shape(TileId::DecodeM16).warps() == kDecodeWarps &&
                  tile_shape(TileId::DecodeM16).block_n == kDecodeWarpRows,
              "the decode tiles differ in tokens only");
constexpr int kDecodeCtasPerSm = 2;
constexpr double kDecodeFullGrid = 0.9;  // 237 CTAs count as filling 132 SMs twice

// Columns of D per CTA: the tile's, times a decode tile's warps along N.
constexpr int cta_columns(TileShape t, int decode_warps_n) {
  return t.block_n * (t.kind == TileKind::Decode ? decode_warps_n : 1);
}

inline int choose_decode_warps_n(int64_t n, int64_t m_slots, int sm_count) {
  for (int w = kDecodeWarps; w > 1; w /= 2)
    if (static_cast<double>(m_slots * ceil_div(n, int64_t{kDecodeWarpRows} * w)) >=
        kDecodeFullGrid * kDecodeCtasPerSm * sm_count)
      return w;
  return 1;
}

// The shape for `rows` output rows per problem (dense: M; grouped: the rows
// an expert can have, masked max_m or contiguous T / E) whose shared memory
// fits the device, or -1 if none fits. `decode_tiles`: the family carries
// the decode tiles (the HMMA policies do; the block-scaled FP4 mma does not).
inline int choose_tile(int64_t rows, bool a16, const DeviceInfo& dev, bool decode_tiles = true) {
  TileId want = rows <= kDecodeRowsMax ? TileId::M16N64 : TileId::M128N128;
  if (decode_tiles && rows <= tile_shape(TileId::DecodeM16).block_m)
    want = rows <= tile_shape(TileId::DecodeM8).block_m ? TileId::DecodeM8 : TileId::DecodeM16;
  if (tile_shape(want).smem_bytes(a16) <= dev.smem_per_block_optin) return static_cast<int>(want);
  for (const TileShape& t : kTileShapes)
    if ((decode_tiles || t.kind == TileKind::Cta) && t.smem_bytes(a16) <= dev.smem_per_block_optin)
      return static_cast<int>(t.id);
  return -1;
}

}  // namespace fp8kit::nvfp4
