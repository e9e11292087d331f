// The NVFP4 GEMM's tile shapes and the host's choice between them, as plain
// C++ (no CUDA) so CPU tests pin the choice. Every shape consumes 64 K
// elements per pipeline stage: 32 bytes of each packed NVFP4 row (two 16-byte
// chunks, two K groups of 32) and one 32-bit word of 4 E4M3 scales per row.
//
//   M16N64   4 warps side by side along N, each 16 x 16 (one m16 tile, two n8
//            tiles): decode (M <= 32), where the weights stream at 0.56 bytes
//            per element and many small CTAs keep the memory system busy.
//   M128N128 8 warps (2 x 4), each 64 x 32: prefill; 3 stages keep a 16-bit A
//            within Turing's 64 KiB of shared memory per block.
#pragma once

#include <cstdint>

#include "core/device.hpp"
#include "core/math.hpp"

namespace fp8kit::nvfp4 {

enum class TileId { M16N64, M128N128 };

struct TileShape {
  TileId id;
  const char* name;
  int block_m, block_n, warps_m, warps_n, stages;
  static constexpr int kStageK = 64;           // K elements per stage
  static constexpr int kPackedRowBytes = kStageK / 2;
  static constexpr int kScaleWordBytes = 4;    // 4 blocks of 16 per stage row
  constexpr int warps() const { return warps_m * warps_n; }
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
  constexpr int smem_bytes(bool a16) const { return stages * stage_bytes(a16); }
};

constexpr TileShape kTileShapes[] = {
    {TileId::M16N64, "m16n64", 16, 64, 1, 4, 4},
    {TileId::M128N128, "m128n128", 128, 128, 2, 4, 3},
};
constexpr int kTileCount = 2;

constexpr const TileShape& tile_shape(TileId id) { return kTileShapes[static_cast<int>(id)]; }
static_assert(tile_shape(TileId::M16N64).id == TileId::M16N64 && tile_shape(TileId::M128N128).id == TileId::M128N128,
              "kTileShapes is indexed by TileId");

// Rows per CTA up to which the decode shape wins: below it a 128-row tile
// would run mostly empty MMAs; up to two decode CTAs along M re-read B from L2.
constexpr int64_t kDecodeRowsMax = 32;

// The shape for `rows` output rows per problem (dense: M; grouped: the rows
// an expert can have, masked max_m or contiguous T / E) whose shared memory
// fits the device, or -1 if none fits.
inline int choose_tile(int64_t rows, bool a16, const DeviceInfo& dev) {
  const TileId want = rows <= kDecodeRowsMax ? TileId::M16N64 : TileId::M128N128;
  if (tile_shape(want).smem_bytes(a16) <= dev.smem_per_block_optin) return static_cast<int>(want);
  for (const TileShape& t : kTileShapes)
    if (t.smem_bytes(a16) <= dev.smem_per_block_optin) return static_cast<int>(t.id);
  return -1;
}

}  // namespace fp8kit::nvfp4
