// Native Hopper FP8 GEMM kernel (sm_90a): TMA loads into 128B-swizzled shared
// memory, wgmma.mma_async m64nNk32 with f32 accumulators, warp
// specialisation, a persistent grid with grouped rasterisation, and split-K
// with a deterministic in-kernel reduction. Its parts, by role:
//   ptx.cuh             PTX helpers (wgmma with generated operand lists, barriers, setmaxnreg)
//   tile_config.hpp     tile configurations;  shared_storage.hpp  the shared-memory layout
//   kernel_args.hpp     the arguments, in kernel-row / kernel-column (X / Y) terms
//   tile_scheduler.cuh  work units of the persistent grid; fragment.cuh  accumulator geometry
//   mainloop.cuh        TMA producer and the consumers' K loop
//   cluster.cuh         2-CTA clusters: multicast halves, the peer's releases, start and teardown
//   scales.cuh          scales and bias; block scales and the scale warp
//   epilogue.cuh        split-K reduction, scales, conversion, TMA stores
//   cluster_split.cuh   split-K through a cluster's distributed shared memory
// The host side (tensor maps, plan, launch) is path.cu and plan.hpp (grouped:
// grouped_path.cu, grouped_plan.hpp); both launch from kernel_table.cuh.
//
// Thread block: 3 warpgroups. Warpgroup 0 is the producer (one thread issues
// TMA; in block-scale tiles its warp 1, the scale warp, copies the scales:
// each K block's into the stage, or in the dense normal tiles B's by chunks
// of K blocks while A's come by TMA or from warp 2: tile_config.hpp);
// warpgroups 1 and 2 are consumers, each owning half of the tile's kernel
// rows (one or two wgmma m64 sub-tiles) and all BN columns.
//
// Block scales (1x128 on A, 128x128 on B): each 128-deep K block's wgmma sum
// is promoted into an f32 master accumulator with the two scales of that K
// block (as DeepGEMM does); operands are never dequantised.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (types only; the driver is reached through cudart)

// The grouped tiles' block scan (tile_scheduler.cuh). CUB declares kernels of
// its own, which the host pass's launch stubs must see as the device pass does.
#include <cub/block/block_scan.cuh>

#include "arch/config.hpp"
#include "fp8kit/fp8kit.h"
#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/shared_storage.hpp"
#include "gemm/sm90/tile_config.hpp"

// This is the kernel's one family-range guard. path.cu refuses (#error) any
// device pass outside FP8KIT_HAS_WGMMA, so the #else branch below is only
// ever the host pass, which needs the kernel's signature for its launch stub.
#if FP8KIT_HAS_WGMMA
#include "gemm/sm90/cluster.cuh"
#include "gemm/sm90/cluster_split.cuh"
#include "gemm/sm90/epilogue.cuh"
#include "gemm/sm90/mainloop.cuh"
#include "gemm/sm90/ptx.cuh"
#include "gemm/sm90/scales.cuh"
#include "gemm/sm90/tile_scheduler.cuh"

namespace fp8kit::sm90 {

// A consumer warpgroup's units: factors loaded when a unit starts (they fly
// during its K loop), the K loop, the epilogue.
template <class T, fp8kit_dtype TX, fp8kit_dtype TY>
__device__ __forceinline__ void consume(const KernelArgs& p, const CUtensorMap* tmap_d, SharedStorage<T>& smem,
                                        int consumer, int thread) {
  using Cfg = T;
  constexpr int R = Cfg::kAccRegs;
  float acc0[R], acc1[R];  // K blocks of even / odd index within the unit (acc1: kDoubleAcc only)
  Accumulators<T> master;  // the unit's promoted f32 sums, per sub-tile
#pragma unroll
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = 0.0f;
  PipelineState<Cfg::kStages> ps;
  PipelineState<kCoarseChunkBuffers> cs;  // B's block-scale chunks (dense normal block tiles)
  bool store_pending = false;  // a TMA store from the staging buffer may still be reading it
  ptx::griddep_wait();  // scales, bias, D and the split-K workspace belong to the stream's order
  const int units = unit_count<T>(p, smem);
  for (int u = first_unit<T>(p); u < units; u = next_unit<T>(p, u)) {
    const Unit w = unit_of<T>(p, u, smem);
    const ColFactor cf = load_col_factor<T>(p, w, thread);
    RowFactors<T> rf;
    rf.load(p, w, Fragment(sub_row0<T>(w, consumer, 0), w.y0, thread).row0);
    if constexpr (Cfg::kFastOnly) fast_unit<T, TX, TY>(w, p, smem, ps, consumer, thread, master);
    else mma_unit<T, TX, TY>(w, p, smem, ps, cs, consumer, thread, acc0, acc1, master);
    if constexpr (Cfg::kClusterSplit)
      if (p.cluster_splits > 1) {  // a cluster split: only its leader stores the tile
        if (!cluster_reduce<T>(p, smem, consumer, thread, master)) continue;
      }
    if (!w.pad) epilogue<T>(p, tmap_d, w, u, consumer, thread, master, rf, cf, smem, store_pending);
  }
  // Shared memory must outlive the stores that read it.
  if (thread == 0) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
}

template <class T, fp8kit_dtype TX, fp8kit_dtype TY>
__global__ void __launch_bounds__(kThreads, 1)
    sm90_fp8_gemm_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_y,
                         const __grid_constant__ CUtensorMap tmap_d, const __grid_constant__ CUtensorMap tmap_s,
                         const KernelArgs p) {
  using Cfg = T;
  extern __shared__ uint8_t smem_raw[];
  // The storage starts at the next 1024-byte boundary (the swizzle atom);
  // indexing smem_raw keeps the pointer in the shared window for the compiler.
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  SharedStorage<T>& smem = *reinterpret_cast<SharedStorage<T>*>(
      smem_raw + ((kSwizzleAtomBytes - raw % kSwizzleAtomBytes) % kSwizzleAtomBytes));

  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  // Grouped tiles: the operand maps' descriptors are fetched while the CTA
  // builds its unit table, not after it, in front of the first TMA load.
  if constexpr (Cfg::kGrouped)
    if (threadIdx.x == kWarpgroupThreads) {
      ptx::prefetch_tensormap(&tmap_x);
      ptx::prefetch_tensormap(&tmap_y);
    }
  if (threadIdx.x == 0) {
    // Block tiles whose slots the scale warp fills (all but the dense normal
    // ones with A's scales by TMA): its lanes arrive on `full`, and every
    // consumer thread on `empty`.
    const bool warp_slots = Cfg::kBlock && !slots_by_tma<T>(p);
    for (int s = 0; s < Cfg::kStages; ++s) {
      // The producer's arrive (+ TMA bytes), and the scale warp's lanes.
      cuda::ptx::mbarrier_init(&smem.full[s], 1 + (warp_slots ? kScaleWarpLanes : 0));
      // One arrive per consumer warp, or per consumer thread (and the peer's
      // warps in a cluster: cluster.cuh).
      cuda::ptx::mbarrier_init(&smem.empty[s],
                               empty_arrivals<T>(p, warp_slots ? kConsumers * kWarpgroupThreads : kConsumerWarps));
    }
    if constexpr (Cfg::kCoarseChunks)
      for (int c = 0; c < kCoarseChunkBuffers; ++c) {
        cuda::ptx::mbarrier_init(&smem.coarse_full[c], kScaleWarpLanes);
        cuda::ptx::mbarrier_init(&smem.coarse_empty[c], kConsumers * kWarpgroupThreads);
      }
    if constexpr (Cfg::kClusterSplit)
      if (p.cluster_splits > 1) init_cluster_barriers(smem.cluster_ready, smem.slot_free);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  build_group_table<T>(p, smem);  // grouped tiles only
  sync_after_init<T>(p);
  // A cluster split: every CTA's barriers are initialised (and visible, by
  // the fence above) before any CTA arrives on another's (cluster_split.cuh).
  if constexpr (Cfg::kClusterSplit)
    if (p.cluster_splits > 1) {
      cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
      cuda::ptx::barrier_cluster_wait();
    }
  // Programmatic dependent launch: the next kernel of the stream may start
  // its CTAs on idle SMs now; it waits (griddepcontrol.wait) for this whole
  // grid before it reads anything this one writes.
  ptx::griddep_launch_dependents();

  if (warpgroup == 0) {
    ptx::setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x == 0) produce<T>(&tmap_x, &tmap_y, &tmap_s, p, smem);
    const int warp = threadIdx.x / 32;
    if constexpr (Cfg::kCoarseChunks) {
      if (warp == kScaleWarp) produce_coarse<T>(p, smem, threadIdx.x % 32);
      if (warp == kSlotWarp && !p.fine_scales_tma) produce_scales<T>(p, smem, threadIdx.x % 32);
    } else if constexpr (Cfg::kBlock) {
      if (warp == kScaleWarp) produce_scales<T>(p, smem, threadIdx.x % 32);
    }
  } else {
    ptx::setmaxnreg_inc<kConsumerRegs>();
    const int consumer = warpgroup - 1;
    if (threadIdx.x % kWarpgroupThreads == 0) ptx::prefetch_tensormap(&tmap_d);
    consume<T, TX, TY>(p, &tmap_d, smem, consumer, threadIdx.x % kWarpgroupThreads);
  }
}

}  // namespace fp8kit::sm90

#else  // host pass: the launch stub needs only the signature

namespace fp8kit::sm90 {

template <class T, fp8kit_dtype TX, fp8kit_dtype TY>
__global__ void __launch_bounds__(kThreads, 1)
    sm90_fp8_gemm_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_y,
                         const __grid_constant__ CUtensorMap tmap_d, const __grid_constant__ CUtensorMap tmap_s,
                         const KernelArgs p) {}

}  // namespace fp8kit::sm90

#endif  // FP8KIT_HAS_WGMMA
