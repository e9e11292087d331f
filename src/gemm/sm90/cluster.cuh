// 2-CTA clusters of the native Hopper FP8 GEMM (ClusterArgs in
// kernel_args.hpp): the CTAs of a cluster run paired units in lock step
// (pair_unit in tile_scheduler.cuh), load half of the shared operand tile
// each and multicast it to both, and release every stage to both producers.
// The protocol, per stage:
//   full   each CTA's producer expects the whole stage (its own tile of the
//          other side, both halves of the shared one); the peer's half lands
//          with the peer's complete_tx.
//   empty  the local consumers' arrivals (as without a cluster) plus one per
//          consumer warp of the peer, whose TMA writes the shared half into
//          this CTA's stage: neither producer refills a stage until both
//          CTAs' consumers are done with it.
// Start: a cluster barrier after the barriers' init (the peer may multicast
// into this CTA's stages right after it). End: the producer waits once more
// on every stage's `empty`, so that no arrival of the peer is still on its
// way when the CTA exits (the peer's multicasts have landed: this CTA's
// consumers waited for them).
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include <cstdint>

#include <cuda/ptx>

#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/ptx.cuh"
#include "gemm/sm90/tile_config.hpp"

namespace fp8kit::sm90 {

constexpr uint16_t kClusterMask = 0b11;  // multicast to both CTAs of a 2-CTA cluster

template <class T>
__device__ __forceinline__ bool in_cluster(const KernelArgs& p) {
  return T::kClusters && p.cluster.size > 1;
}

// Consumer arrivals on one stage's `empty` barrier: `local` from this CTA's
// consumers, plus one per consumer warp of the peer in a cluster.
template <class T>
__device__ __forceinline__ uint32_t empty_arrivals(const KernelArgs& p, uint32_t local) {
  return local + (in_cluster<T>(p) ? kConsumerWarps : 0u);
}

// Every thread of the CTA, once the barriers are initialised: in a cluster,
// also the peer's (its TMA and arrivals may target this CTA's barriers next).
template <class T>
__device__ __forceinline__ void sync_after_init(const KernelArgs& p) {
  if (in_cluster<T>(p)) {
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
    cuda::ptx::barrier_cluster_wait();
  } else {
    __syncthreads();
  }
}

// This CTA's half of the shared operand tile (kRows rows of kBlockK bytes,
// 128B-swizzled, at `dst`; `row0` its first row in the tensor map, whose box
// is kRows / 2 rows) into the same place of both CTAs' stage. The halves sit
// a multiple of the 1024-byte swizzle atom apart, so the swizzle pattern is
// that of one whole-tile load.
template <int kRows>
__device__ __forceinline__ void multicast_half(const CUtensorMap* map, uint8_t* dst, int kb, int row0, uint64_t* full) {
  constexpr int kHalf = kRows / 2;
  static_assert(kHalf * kBlockK % kSwizzleAtomBytes == 0, "a half tile is whole swizzle atoms");
  const int rank = static_cast<int>(cuda::ptx::get_sreg_cluster_ctarank());
  const int32_t c[2] = {kb * kBlockK, row0 + rank * kHalf};
  const uint16_t mask = kClusterMask;  // taken by reference: a value of device code
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst + rank * kHalf * kBlockK, map,
                                  c, full, mask);
}

// One arrival on the peer CTA's copy of `bar` (same offset in its shared
// memory), with the arrive's default release at CTA scope, as CUTLASS's
// ClusterBarrier does: it orders this warp's finished wgmma reads of its own
// stage, which is all the peer's refill needs. cuda::ptx's
// release.cluster form compiles to MEMBAR.ALL.GPU before every arrive, on
// the consumers' path once per K block: it made the clustered kernel up to
// 2.2x slower (docs/perf/log/2026-12-01-cluster-multicast.md).
__device__ __forceinline__ void arrive_peer(uint64_t* bar) {
  const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  const uint32_t peer = cuda::ptx::get_sreg_cluster_ctarank() ^ 1u;
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(local),
      "r"(peer)
      : "memory");
}

}  // namespace fp8kit::sm90
