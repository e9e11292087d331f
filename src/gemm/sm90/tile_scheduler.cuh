// Persistent tile scheduler of the native Hopper FP8 GEMM: CTA b runs work
// units b, b + grid, b + 2 grid, ...; a unit is one tile's K range (a split).
// Also the pipeline position (stage, phase) every role walks in the same order.
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/tile_config.hpp"

namespace fp8kit::sm90 {

struct Unit {
  int tile;              // linear tile index (before the split)
  int tx, ty;            // tile coordinates along X (kernel rows) and Y (kernel columns)
  int kb_begin, kb_end;  // K blocks of this split
};

// Work unit u -> tile and K range. Tiles are visited in groups of group_x
// tiles along X (X fastest inside a group), so that the units running at the
// same time share few X and Y panels and keep them in L2. A tile's splits
// are adjacent units.
__device__ __forceinline__ Unit unit_of(const KernelArgs& p, int u) {
  Unit w;
  w.tile = u / p.splits;
  const int split = u - w.tile * p.splits;
  const int per_group = p.group_x * p.tiles_y;
  const int group = w.tile / per_group;
  const int first_x = group * p.group_x;
  const int gx = min(p.tiles_x - first_x, p.group_x);
  const int local = w.tile - group * per_group;
  w.tx = first_x + local % gx;
  w.ty = local / gx;
  w.kb_begin = split * p.kb_per_split;
  w.kb_end = min(p.k_blocks, w.kb_begin + p.kb_per_split);
  return w;
}

// The CTA's units in order: for (int u = first_unit(); u < p.num_units; u = next_unit(u)).
__device__ __forceinline__ int first_unit() { return blockIdx.x; }
__device__ __forceinline__ int next_unit(int u) { return u + gridDim.x; }

// Position in the ring of kStages stages; the phase flips at each wrap.
template <int kStages>
struct PipelineState {
  int stage = 0;
  uint32_t phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1u;
    }
  }
};

}  // namespace fp8kit::sm90
