// Cluster split of the native Hopper FP8 GEMM: split-K whose partials stay
// on chip. The S = p.cluster_splits CTAs of a cluster (launched with the
// cluster dimension S along the grid, plan.hpp) run the S K ranges of one
// tile, one unit per CTA (grid = tiles x S, so a CTA's producer has nothing
// left to load once its consumers are past their K loop, and the stages are
// free). The partials then meet in a binary tree over the cluster ranks:
// at level l (step 2^l) rank r with bit l set hands its sum to rank r - step
// and is done; rank r with the low l + 1 bits clear adds rank r + step's
// (when there is one). Rank 0 (the leader) ends with the whole K sum and
// runs the epilogue. The tree is fixed by S alone, so the sum order is the
// same on every run (deterministic). No workspace, no counters, no memset.
//
// A hand-off, per consumer warpgroup (consumer c of one CTA meets consumer
// c of the other; each holds the same rows of the tile), with no cluster
// barrier and no cluster-scope release on its path:
//   receiver: once both its consumers are past their K loops (its stage
//             memory is free) and it has read the previous level's slot,
//             arms cluster_ready[l] with the partial's bytes and arrives
//             (relaxed) on the sender's slot_free;
//   sender:   waits on its slot_free, writes its f32 accumulators into the
//             receiver's slot by st.async (counted on the receiver's
//             cluster_ready[l]) and is done;
//   receiver: waits on cluster_ready[l] and adds the slot from its own
//             shared memory.
// No CTA reads another's memory, and every remote write or arrive targets a
// CTA that waits for it, so no CTA has to outlive another. The barriers of
// every CTA are initialised before the kernel's cluster barrier.
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include <cstdint>

#include <cuda/ptx>

#include "gemm/sm90/fragment.cuh"
#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/ptx.cuh"
#include "gemm/sm90/shared_storage.hpp"

namespace fp8kit::sm90 {

// Named barrier of both consumer warpgroups (1 + consumer are each one's).
constexpr int kConsumersBarrier = 1 + kConsumers;

// Slot layout, per consumer: [sub-tile][register / 4][thread] float4, so that
// a warp's 16-byte stores and loads cover 512 contiguous bytes.
template <class T>
struct ClusterSlot {
  using Cfg = T;
  static constexpr int kQuads = Cfg::kAccRegs / 4;
  static constexpr int kFloats = Cfg::kSubTiles * Cfg::kAccRegs * kWarpgroupThreads;
  static_assert(Cfg::kAccRegs % 4 == 0, "registers move four at a time");
  // x and y are adjacent (x's size is a multiple of y's alignment): the
  // slots run across both.
  static_assert(sizeof(SharedStorage<T>::x) % kSwizzleAtomBytes == 0, "the Y stages follow the X stages");
  static_assert(kConsumers * kFloats * sizeof(float) <= sizeof(SharedStorage<T>::x) + sizeof(SharedStorage<T>::y),
                "both consumers' partials fit the stage memory");
  __device__ static float4* of(SharedStorage<T>& smem, int consumer) {
    return reinterpret_cast<float4*>(smem.x[0]) + consumer * (kFloats / 4);
  }
};

// ready: the receiver's own arrive (with the bytes); slot_free: the receiver's.
__device__ __forceinline__ void init_cluster_barriers(uint64_t (&ready)[kClusterLevels][kConsumers],
                                                      uint64_t (&slot_free)[kConsumers]) {
  for (int c = 0; c < kConsumers; ++c) {
    for (int l = 0; l < kClusterLevels; ++l) cuda::ptx::mbarrier_init(&ready[l][c], 1);
    cuda::ptx::mbarrier_init(&slot_free[c], 1);
  }
}

// The cluster's reduction for one consumer warpgroup, after its K loop.
// `regs`: the registers that carry D (swapped tiles: the token columns'
// first p.partial_regs, a multiple of 4; the others: all). Returns true in
// the leader, whose `acc` then holds the tile's whole K sum; false in the
// others (they are done).
template <class T>
__device__ __forceinline__ bool cluster_reduce(const KernelArgs& p, SharedStorage<T>& smem, int consumer, int thread,
                                               Accumulators<T>& acc) {
  using Cfg = T;
  using Slot = ClusterSlot<T>;
  const int quads = Cfg::kSwap ? p.partial_regs / 4 : Slot::kQuads;
  const uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();
  const int splits = p.cluster_splits;
  float4* slot = Slot::of(smem, consumer);
  const uint32_t bytes = static_cast<uint32_t>(Cfg::kSubTiles * quads * kWarpgroupThreads * sizeof(float4));
  // Both consumers are past their K loops: the stage memory may take partials.
  ptx::named_barrier<kConsumers * kWarpgroupThreads>(kConsumersBarrier);
  for (int level = 0, step = 1; step < splits; ++level, step *= 2) {
    if (rank & step) {  // sender at this level: its lower bits are clear, it has received what it had to
      ptx::wait_barrier(&smem.slot_free[consumer], 0);
      const uint32_t remote = ptx::cluster_address(slot, rank - step);
      const uint32_t ready = ptx::cluster_address(&smem.cluster_ready[level][consumer], rank - step);
#pragma unroll
      for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
        for (int q = 0; q < Slot::kQuads; ++q)
          if (q < quads)
            ptx::st_async_f32x4(
                remote + static_cast<uint32_t>(((s * Slot::kQuads + q) * kWarpgroupThreads + thread) * sizeof(float4)),
                make_float4(acc[s][4 * q], acc[s][4 * q + 1], acc[s][4 * q + 2], acc[s][4 * q + 3]), ready);
      return false;
    }
    if (rank + step < static_cast<uint32_t>(splits)) {  // receiver: adds rank + step's partial
      // Every thread of this consumer has read the previous level's slot.
      if (level > 0) ptx::named_barrier<kWarpgroupThreads>(1 + consumer);
      if (thread == 0) {
        cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             &smem.cluster_ready[level][consumer], bytes);
        ptx::arrive_cluster_relaxed(ptx::cluster_address(&smem.slot_free[consumer], rank + step));
      }
      ptx::wait_barrier_cluster(&smem.cluster_ready[level][consumer], 0);
#pragma unroll
      for (int s = 0; s < Cfg::kSubTiles; ++s)
#pragma unroll
        for (int q = 0; q < Slot::kQuads; ++q)
          if (q < quads) {
            const float4 v = slot[(s * Slot::kQuads + q) * kWarpgroupThreads + thread];
            acc[s][4 * q] += v.x;
            acc[s][4 * q + 1] += v.y;
            acc[s][4 * q + 2] += v.z;
            acc[s][4 * q + 3] += v.w;
          }
    }
  }
  return true;
}

}  // namespace fp8kit::sm90
