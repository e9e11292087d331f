// Geometry of the consumers' wgmma accumulators in the native Hopper FP8
// GEMM: which kernel rows and columns a thread's registers hold.
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include "gemm/sm90/tile_config.hpp"
#include "gemm/sm90/tile_scheduler.cuh"

namespace fp8kit::sm90 {

template <class T>
using Accumulators = float[T::kSubTiles][T::kAccRegs];

// Kernel row of sub-tile s's first row.
template <class T>
__device__ __forceinline__ int sub_row0(const Unit& w, int consumer, int s) {
  using Cfg = T;
  return w.x0 + (consumer * Cfg::kSubTiles + s) * kWgmmaM;
}

// Fragment geometry of an m64 x BN f32 accumulator (wgmma D layout): thread t
// of a consumer warpgroup holds rows warp*16 + lane/4 + 8h (h = 0, 1) and
// columns 8j + 2*(lane%4) + e (e = 0, 1) for j < BN/8, at register 4j + 2h + e.
// A 256 x 128 tile's second sub-tile holds the same rows + 64.
struct Fragment {
  int row0;  // kernel row of h = 0 (h = 1 is row0 + 8)
  int col0;  // kernel column of j = 0, e = 0
  __device__ __forceinline__ Fragment(int x0, int y0, int thread) {
    const int warp = thread / 32, lane = thread % 32;
    row0 = x0 + warp * 16 + lane / 4;
    col0 = y0 + 2 * (lane % 4);
  }
};

}  // namespace fp8kit::sm90
