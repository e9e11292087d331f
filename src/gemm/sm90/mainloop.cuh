// Mainloop of the native Hopper FP8 GEMM: the producer (one thread streams
// the X and Y tiles of every K block by TMA) and the consumers' K loop over
// one unit (wgmma into an accumulator, promoted per 128-deep K block).
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (types only)

#include "gemm/sm90/cluster.cuh"
#include "gemm/sm90/fragment.cuh"
#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/ptx.cuh"
#include "gemm/sm90/scales.cuh"
#include "gemm/sm90/shared_storage.hpp"
#include "gemm/sm90/tile_scheduler.cuh"

namespace fp8kit::sm90 {

// The producer: one thread streams X and Y tiles of every K block of every
// unit through the stages, in the consumers' order. Programmatic dependent
// launch (p.weights_first, opt-in: the caller promises the kernel before this
// one does not write B): the weight tiles of the first unit's first kStages
// K blocks go out before griddepcontrol.wait, everything else after it.
// Without it the stages fill in order: weights first would cost ~3% per
// launch by delaying the first stage's activations (docs/perf/log/2026-12-01-programmatic-launch.md).
// Dense normal block tiles with p.fine_scales_tma: A's block scales of each
// K block, a (1, BM) box of the [k_blocks, M] f32 tensor (tmap_s), go into
// the stage's slot with X, on the same barrier; TMA zero-fills rows past M.
template <class T>
__device__ __forceinline__ void produce(const CUtensorMap* tmap_x, const CUtensorMap* tmap_y,
                                        const CUtensorMap* tmap_s, const KernelArgs& p, SharedStorage<T>& smem) {
  using Cfg = T;
  ptx::prefetch_tensormap(tmap_x);
  ptx::prefetch_tensormap(tmap_y);
  const bool fine_tma = slots_by_tma<T>(p);
  if (fine_tma) ptx::prefetch_tensormap(tmap_s);
  // In a 2-CTA cluster the shared side goes out as this CTA's multicast half (cluster.cuh).
  const bool mcast_x = in_cluster<T>(p) && p.cluster.share_x;
  const bool mcast_y = in_cluster<T>(p) && !p.cluster.share_x;
  auto load_x = [&](int stage, const Unit& w, int kb) {
    if (fine_tma) {  // A's scales belong to this CTA's stage only, never multicast
      const int32_t c[2] = {w.x0, kb};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem.scales[stage], tmap_s,
                                      c, &smem.full[stage]);
    }
    if (mcast_x) return multicast_half<Cfg::kBlockM>(tmap_x, smem.x[stage], kb, w.x0, &smem.full[stage]);
    const int32_t c[2] = {kb * kBlockK, w.x0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem.x[stage], tmap_x, c,
                                    &smem.full[stage]);
  };
  auto load_y = [&](int stage, const Unit& w, int kb) {
    if (mcast_y) return multicast_half<Cfg::kBlockN>(tmap_y, smem.y[stage], kb, w.y0, &smem.full[stage]);
    const int32_t c[2] = {kb * kBlockK, w.y0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem.y[stage], tmap_y, c,
                                    &smem.full[stage]);
  };
  // The transaction count is the full box even where TMA zero-fills
  // out-of-bounds rows or the K tail. Grouped tiles: the host's count, since
  // masked decode loads a box of fewer token rows than the tile has.
  uint32_t stage_bytes = static_cast<uint32_t>(Cfg::kStageBytes);
  if constexpr (Cfg::kGrouped) stage_bytes = static_cast<uint32_t>(p.grouped.stage_tx_bytes);
  if (fine_tma) stage_bytes += static_cast<uint32_t>(Cfg::kScaleSlotBytes);
  auto expect_stage = [&](int stage) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &smem.full[stage], stage_bytes);
  };
  // K blocks of the first unit whose stage is already filled (the stages
  // start empty, so they need no wait on `empty`).
  int ahead = 0;
  const int units = unit_count<T>(p, smem);
  if (p.weights_first && first_unit<T>(p) < units) {
    const Unit w = unit_of<T>(p, first_unit<T>(p), smem);
    ahead = min(Cfg::kStages, w.kb_end - w.kb_begin);
    for (int i = 0; i < ahead; ++i) {
      expect_stage(i);
      if constexpr (Cfg::kWeightsAreX) load_x(i, w, w.kb_begin + i);
      else load_y(i, w, w.kb_begin + i);
    }
    ptx::griddep_wait();
    for (int i = 0; i < ahead; ++i) {
      if constexpr (Cfg::kWeightsAreX) load_y(i, w, w.kb_begin + i);
      else load_x(i, w, w.kb_begin + i);
    }
  }
  PipelineState<Cfg::kStages> ps;
  for (int u = first_unit<T>(p); u < units; u = next_unit<T>(p, u)) {
    const Unit w = unit_of<T>(p, u, smem);
    for (int kb = w.kb_begin; kb < w.kb_end; ++kb, ps.advance()) {
      if (ahead > 0) {
        --ahead;
        continue;
      }
      ptx::wait_barrier(&smem.empty[ps.stage], ps.phase ^ 1u);
      expect_stage(ps.stage);
      load_x(ps.stage, w, kb);
      load_y(ps.stage, w, kb);
    }
  }
  // Cluster teardown (cluster.cuh): every stage's last release, the peer's
  // remote arrivals included, has landed before this CTA may exit.
  if (in_cluster<T>(p))
    for (int i = 0; i < Cfg::kStages; ++i, ps.advance()) ptx::wait_barrier(&smem.empty[ps.stage], ps.phase ^ 1u);
}

// Frees a stage for the producer: one arrive per consumer warp; in block
// tiles whose slot the scale warp fills, one per consumer thread. An arrive
// releases only the arriving thread's own reads, and each thread has read
// the stage's scale slot, which the scale warp rewrites once the stage is
// free (cheaper orderings failed racecheck: docs/perf/log/2026-11-30-pipeline-and-tiles.md). Where TMA fills
// the slot (`slot_by_tma`), the warp's reads are ordered before lane 0's
// arrive by __syncwarp, as for the operand tiles. In a 2-CTA cluster each
// warp also frees the stage for the peer's producer, whose multicast writes
// its operand tiles (not the scale slot, which stays per CTA): one arrive per
// warp there.
template <class T>
__device__ __forceinline__ void release_stage(SharedStorage<T>& smem, int stage, bool lane0, bool paired,
                                              bool slot_by_tma) {
  if (T::kBlock && !slot_by_tma) {
    ptx::arrive_no_state(&smem.empty[stage]);
  } else {
    if constexpr (T::kBlock) __syncwarp();
    if (lane0) cuda::ptx::mbarrier_arrive(&smem.empty[stage]);
  }
  if (paired && lane0) arrive_peer(&smem.empty[stage]);
}

// Issues the four k32 steps of one K block from stage `st` into `a`, X rows
// from `x_row`; the first overwrites `a` unless `accumulate`.
template <class T, fp8kit_dtype TX, fp8kit_dtype TY>
__device__ __forceinline__ void issue_block(float (&a)[T::kAccRegs], SharedStorage<T>& smem, int st, int x_row,
                                            bool accumulate) {
  const uint64_t dx = ptx::smem_desc(&smem.x[st][x_row * kBlockK]);
  const uint64_t dy = ptx::smem_desc(smem.y[st]);
  ptx::fence_operands(a);
  ptx::wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kKSteps; ++kk)
    ptx::wgmma<T::kBlockN, TX, TY>(a, dx + kk * ptx::kDescKStep, dy + kk * ptx::kDescKStep,
                                   (accumulate || kk > 0) ? 1u : 0u);
  ptx::wgmma_commit();
}

// Zeroes unit w's sums; false for an empty split of a cluster
// (cluster_split.cuh), for which nothing was loaded.
template <class T>
__device__ __forceinline__ bool start_unit(const Unit& w, float (&master)[T::kSubTiles][T::kAccRegs]) {
#pragma unroll
  for (int s = 0; s < T::kSubTiles; ++s)
#pragma unroll
    for (int r = 0; r < T::kAccRegs; ++r) master[s][r] = 0.0f;
  return w.kb_end > w.kb_begin;
}

// FAST accumulation (p.fast_accum, non-block tiles; the only way of the
// FAST-only tiles): no promotion; each sub-tile's wgmma accumulates all of
// unit w's K blocks into `master` itself, one K block's groups in flight
// while the next is issued. Waiting down to kSub groups retires the
// previous block's, whose stage is then freed.
template <class T, fp8kit_dtype TX, fp8kit_dtype TY>
__device__ __forceinline__ void fast_unit(const Unit& w, const KernelArgs& p, SharedStorage<T>& smem,
                                          PipelineState<T::kStages>& ps, int consumer, int thread,
                                          float (&master)[T::kSubTiles][T::kAccRegs]) {
  constexpr int kSub = T::kSubTiles;
  const bool lane0 = (thread % 32) == 0;
  const bool paired = in_cluster<T>(p);
  const bool slot_by_tma = slots_by_tma<T>(p);
  const int nkb = w.kb_end - w.kb_begin;
  if (!start_unit<T>(w, master)) return;
  int prev_stage = 0;
  for (int i = 0; i < nkb; ++i, ps.advance()) {
    ptx::wait_barrier(&smem.full[ps.stage], ps.phase);
#pragma unroll
    for (int s = 0; s < kSub; ++s)
      issue_block<T, TX, TY>(master[s], smem, ps.stage, (consumer * kSub + s) * kWgmmaM, true);
    if (i > 0) {
      ptx::wgmma_wait<kSub>();
      release_stage<T>(smem, prev_stage, lane0, paired, slot_by_tma);
    }
    prev_stage = ps.stage;
  }
  ptx::wgmma_wait<0>();
#pragma unroll
  for (int s = 0; s < kSub; ++s) ptx::fence_operands(master[s]);
  release_stage<T>(smem, prev_stage, lane0, paired, slot_by_tma);
}

// One consumer warpgroup's K loop over unit w: every 128-deep K block is
// summed by four wgmma k32 steps into an accumulator, then promoted into the
// f32 `master` (times the block's two scales in block tiles). FP8 wgmma
// keeps only about 14 mantissa bits in its accumulator; promoting each K
// block bounds that error by one block's magnitude instead of the whole K
// sum's. kDoubleAcc: two accumulators alternate, so K block i+1's wgmma runs
// while block i is promoted. Otherwise one accumulator serves the sub-tiles
// in turn, and the other consumer's wgmma keeps the tensor pipe busy.
// FAST accumulation: fast_unit.
// `acc0` and `acc1` live across units (the caller's), `master` is set here.
// `cs`: the position in B's scale chunks (dense normal block tiles, the caller's).
template <class T, fp8kit_dtype TX, fp8kit_dtype TY>
__device__ __forceinline__ void mma_unit(const Unit& w, const KernelArgs& p, SharedStorage<T>& smem,
                                         PipelineState<T::kStages>& ps,
                                         PipelineState<kCoarseChunkBuffers>& cs, int consumer, int thread,
                                         float (&acc0)[T::kAccRegs],
                                         float (&acc1)[T::kAccRegs],
                                         float (&master)[T::kSubTiles][T::kAccRegs]) {
  using Cfg = T;
  constexpr int R = Cfg::kAccRegs;
  constexpr int BN = Cfg::kBlockN;
  constexpr int kSub = Cfg::kSubTiles;
  static_assert(!Cfg::kFastOnly, "FAST-only tiles sum by fast_unit alone");
  if constexpr (!Cfg::kBlock)
    if (p.fast_accum) return fast_unit<T, TX, TY>(w, p, smem, ps, consumer, thread, master);
  const bool lane0 = (thread % 32) == 0;
  const bool paired = in_cluster<T>(p);
  const bool slot_by_tma = slots_by_tma<T>(p);
  const int nkb = w.kb_end - w.kb_begin;
  if (!start_unit<T>(w, master)) return;

  if constexpr (!Cfg::kDoubleAcc) {
    // One accumulator, promoted per sub-tile. Block scales come with the
    // stage (its scale slot, filled by the producer's scale warp): loaded
    // ahead into registers by the consumers, they cost 16% (docs/perf/log/2026-12-01-programmatic-launch.md).
    // Dense normal block tiles: B's scales come by chunks of K blocks
    // (scales.cuh); every thread frees a chunk once it has read its last
    // block's, and the scale warp refills it. Elsewhere one chunk spans the unit.
    const Fragment f(sub_row0<T>(w, consumer, 0), w.y0, thread);
    const int chunk_blocks = Cfg::kCoarseChunks ? kCoarseChunkBlocks : nkb;
    for (int c0 = 0; c0 < nkb; c0 += chunk_blocks) {
      const float* coarse = nullptr;
      if constexpr (Cfg::kCoarseChunks) {
        ptx::wait_barrier(&smem.coarse_full[cs.stage], cs.phase);
        coarse = smem.coarse[cs.stage];
      }
      const int c1 = min(nkb, c0 + chunk_blocks);
      for (int i = c0; i < c1; ++i) {
        ptx::wait_barrier(&smem.full[ps.stage], ps.phase);
        BlockFactors<T> fac;
        if constexpr (Cfg::kBlock) {
          const float* slot = smem.scales[ps.stage];
          fac.read(slot, Cfg::kCoarseChunks ? coarse + (i - c0) * Cfg::kScaleGroups : slot + Cfg::kColScaleOffset,
                   f.row0 - w.x0, f.col0 - w.y0);
        }
#pragma unroll
        for (int s = 0; s < kSub; ++s) {
          issue_block<T, TX, TY>(acc0, smem, ps.stage, (consumer * kSub + s) * kWgmmaM, false);
          ptx::wgmma_wait<0>();
          ptx::fence_operands(acc0);
          // The slot's scales were read at the top.
          if (s == kSub - 1) release_stage<T>(smem, ps.stage, lane0, paired, slot_by_tma);
          if constexpr (Cfg::kBlock) {
#pragma unroll
            for (int j = 0; j < BN / 8; ++j)
#pragma unroll
              for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int e = 0; e < 2; ++e)
                  master[s][4 * j + 2 * h + e] += acc0[4 * j + 2 * h + e] * fac(s, j, h, e);
          } else {
#pragma unroll
            for (int r = 0; r < R; ++r) master[s][r] += acc0[r];
          }
        }
        ps.advance();
      }
      if constexpr (Cfg::kCoarseChunks) {
        ptx::arrive_no_state(&smem.coarse_empty[cs.stage]);
        cs.advance();
      }
    }
  } else {
    int prev_stage = 0;
    // Waits for K block i's stage and issues its wgmma group into `a`.
    auto issue = [&](float (&a)[R]) {
      ptx::wait_barrier(&smem.full[ps.stage], ps.phase);
      issue_block<T, TX, TY>(a, smem, ps.stage, consumer * kWgmmaM, false);
      ptx::fence_operands(a);
    };
    // Once `a`'s group has retired: frees its stage and promotes it.
    auto retire = [&](float (&a)[R]) {
      ptx::fence_operands(a);
      release_stage<T>(smem, prev_stage, lane0, paired, false);
#pragma unroll
      for (int r = 0; r < R; ++r) master[0][r] += a[r];
    };
    auto next = [&] {
      prev_stage = ps.stage;
      ps.advance();
    };
    issue(acc0);
    next();
    int i = 1;
    for (; i + 1 < nkb; i += 2) {
      issue(acc1);
      ptx::wgmma_wait<1>();
      retire(acc0);
      next();
      issue(acc0);
      ptx::wgmma_wait<1>();
      retire(acc1);
      next();
    }
    if (i < nkb) {  // an odd block left: acc1 takes it
      issue(acc1);
      ptx::wgmma_wait<1>();
      retire(acc0);
      next();
      ptx::wgmma_wait<0>();
      retire(acc1);
    } else {
      ptx::wgmma_wait<0>();
      retire(acc0);
    }
  }
}

}  // namespace fp8kit::sm90
