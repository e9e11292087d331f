// Ping-pong schedule of the native Hopper FP8 GEMM (the k128x128PingPong
// tiles): consumer c runs the CTA's local units c, c + 2, c + 4, ... whole
// (both m64 sub-tiles of a 128 x 128 tile, one wgmma accumulator and two f32
// masters: 192 registers, the 256 x 128 tiles' per-consumer K loop). The
// producer and the scale warp load every unit's K blocks in order, as in the
// cooperative tiles; each consumer walks the same ring of stages and passes
// over the other's K blocks without waiting on them (it knows their count
// from the unit), and only the owner of a stage frees it
// (TileConfig::kEmptyArrivals). The order of the units in the ring is the
// ordering: consumer c + 1's unit reaches the stages while c finishes its K
// loop, so c's epilogue runs under c + 1's wgmma. There is no order barrier
// between the two K loops (CUTLASS's ping-pong kernel has one): a lone FP8
// consumer idles the tensor pipe while it waits for and promotes each
// sub-tile's K block, so letting the two loops overlap where the ring lets
// them (up to kStages K blocks at each hand-over) fills those gaps.
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include <cuda.h>  // CUtensorMap (types only)

#include "gemm/sm90/epilogue.cuh"
#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/mainloop.cuh"
#include "gemm/sm90/ptx.cuh"
#include "gemm/sm90/scales.cuh"
#include "gemm/sm90/shared_storage.hpp"
#include "gemm/sm90/tile_scheduler.cuh"

namespace fp8kit::sm90 {

template <Tile T, fp8kit_dtype TX, fp8kit_dtype TY>
__device__ __forceinline__ void consume_pingpong(const KernelArgs& p, const CUtensorMap* tmap_d,
                                                 SharedStorage<T>& smem, int consumer, int thread) {
  using Cfg = TileConfig<T>;
  static_assert(Cfg::kPingPong && !Cfg::kDoubleAcc && !Cfg::kSplitK, "a ping-pong tile");
  constexpr int R = Cfg::kAccRegs;
  float acc0[R], acc1[R];  // acc1: unused without kDoubleAcc (mma_unit's signature)
  Accumulators<T> master;
#pragma unroll
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = 0.0f;
  PipelineState<Cfg::kStages> ps;
  bool store_pending = false;
  ptx::griddep_wait();
  const int units = unit_count<T>(p, smem);
  int local = 0;  // the unit's index among this CTA's units
  for (int u = first_unit(); u < units; u = next_unit(u), ++local) {
    const Unit w = unit_of<T>(p, u, smem);
    if (local % kConsumers != consumer) {
      ps.skip(w.kb_end - w.kb_begin);
      continue;
    }
    const ColFactor cf = load_col_factor<T>(p, w, thread);
    RowFactors<T> rf;
    rf.load(p, w, Fragment(sub_row0<T>(w, consumer, 0), w.y0, thread).row0);
    mma_unit<T, TX, TY>(w, smem, ps, consumer, thread, acc0, acc1, master);
    epilogue<T>(p, tmap_d, w, u, consumer, thread, master, rf, cf, smem, store_pending);
  }
  if (thread == 0) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
}

}  // namespace fp8kit::sm90
