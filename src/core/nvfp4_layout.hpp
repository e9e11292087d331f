// The NVFP4 format as numbers (fp8kit/nvfp4.h states it): the block size,
// the K granule, the swizzled scale layout's formula and the sizes of scale
// buffers. One definition for the entry points, the kernels (constexpr, so
// device code compiled with --expt-relaxed-constexpr uses it too), the
// reference and the tests.
#pragma once

#include <cstdint>

#include "core/math.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit::nvfp4 {

constexpr int kBlock = FP8KIT_NVFP4_BLOCK;        // K elements per E4M3 scale
constexpr int kKGranule = FP8KIT_NVFP4_K_GRANULE;  // a GEMM's K is a multiple of this
constexpr int kQuantKGranule = kBlock;             // the quantiser's K is a multiple of this
constexpr int kElementsPerByte = 2;
// The swizzled layout's tile: 128 rows x 4 blocks in 512 bytes, as 32 lines
// of 16 bytes; line (r % 32) holds rows r % 32 + {0, 32, 64, 96} x 4 blocks.
constexpr int kTileRows = 128;
constexpr int kTileBlocks = 4;
constexpr int kTileBytes = kTileRows * kTileBlocks;
constexpr int kLineRows = 32;
constexpr int kLineBytes = 16;
constexpr float kE2m1Max = 6.f;

// Scale blocks per row of K elements (k a multiple of kBlock), and that
// rounded up to the tile's 4.
constexpr int64_t blocks_of(int64_t k) { return k / kBlock; }
constexpr int64_t padded_blocks(int64_t k) { return round_up(blocks_of(k), kTileBlocks); }

// Byte of (row, block kb) in the swizzled layout of a matrix with
// `padded_blocks` (Kb4) blocks per row.
constexpr int64_t swizzled_offset(int64_t row, int64_t kb, int64_t kb4) {
  return ((row / kTileRows) * (kb4 / kTileBlocks) + kb / kTileBlocks) * kTileBytes + (row % kLineRows) * kLineBytes +
         ((row % kTileRows) / kLineRows) * kTileBlocks + kb % kTileBlocks;
}

constexpr int64_t linear_offset(int64_t row, int64_t kb, int64_t blocks) { return row * blocks + kb; }

constexpr bool is_swizzled(int layout) { return layout == FP8KIT_NVFP4_SCALES_SWIZZLED; }
constexpr bool is_scale_layout(int layout) {
  return layout == FP8KIT_NVFP4_SCALES_SWIZZLED || layout == FP8KIT_NVFP4_SCALES_LINEAR;
}

// Bytes of the scales of a [rows, k] operand in `layout` (checked).
constexpr int64_t scale_bytes(int64_t rows, int64_t k, int layout) {
  return is_swizzled(layout) ? round_up(rows, kTileRows) * padded_blocks(k) : rows * blocks_of(k);
}

// Alignment the kernels need of a scale buffer: swizzled ones are read a
// 16-byte line at a time, linear rows may start at any byte.
constexpr int scale_alignment(int layout) { return is_swizzled(layout) ? kLineBytes : 1; }

}  // namespace fp8kit::nvfp4
