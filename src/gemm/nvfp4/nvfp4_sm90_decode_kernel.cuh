// The Hopper NVFP4 decode kernel (sm_90a), M <= 16, W4A16 and W4A4: a
// weight stream decoded in registers into m64n16k16 wgmma
// (nvfp4_sm90_decode_config.hpp states the tile and the K permutation).
//
// CTA: 3 warpgroups, two CTAs per SM. Warpgroup 0: thread 0 the producer
// (per 64-deep K block one TMA box of the 16 tokens into sR: 16 rows x 128
// bytes, 128B-swizzled, or 16 x 32 packed bytes of NVFP4 tokens; one of 128
// weight rows x 32 packed bytes into sW; the swizzled scale tile into sS;
// all on the stage's `full` barrier), the two warps from kTokenWarp the
// token warps (sR -> sT in the permuted K order, NVFP4 tokens decoded
// exactly to bf16 on the way, then `ready`).
// Warpgroups 1 and 2 are the consumers, 64 weight rows each: per K block a
// thread reads bytes 8t .. 8t + 7 of its rows r = 16 w + g and r + 8 (one
// LDS.64 each) and their block-t scales, decodes them exactly (value x scale
// x 2^-7, nvfp4_placed.cuh) into the A registers of four wgmma, decoding
// block i + 1 while block i's run.
//
// K split: the S CTAs of a cluster (launched with the cluster dimension S,
// grid = tiles x S) take consecutive K ranges of one weight tile; their
// consumers' accumulators then meet in the leader (rank 0), which runs the
// epilogue (nvfp4_sm90_common.cuh, store_tile). The hand-off has no cluster
// barrier on its path: once both of the leader's consumers are past their
// K loops, the leader signals each rank's `slots_free`; each rank then
// st.async-es its partials into the leader's stage memory, counted on the
// leader's `partials_full`, and exits; the leader adds them in rank order
// (deterministic). A cluster barrier arrived on at the start (after the
// mbarrier initialisation) and waited on only before the first remote access
// makes every CTA's barriers visible to the others.
//
// Programmatic launch: the producer issues the first stages' weights and
// scales before griddepcontrol.wait (the weights are never written by the
// kernel before), the tokens after it; every other access follows a token.
#pragma once

#include <cuda.h>  // CUtensorMap (types only)
#include <cuda/ptx>

#include <cstdint>

#include "gemm/nvfp4/nvfp4_gemm.cuh"
#include "gemm/nvfp4/nvfp4_sm90_decode_config.hpp"

// As the prefill kernel: device code for sm_90a only (nvfp4_sm90_gemm.cu
// refuses any other device pass).
#if FP8KIT_HAS_WGMMA
#include "gemm/nvfp4/nvfp4_placed.cuh"
#include "gemm/nvfp4/nvfp4_sm90_common.cuh"
#include "gemm/nvfp4/nvfp4_sm90_wgmma.cuh"
#endif

namespace fp8kit::nvfp4::sm90w {

#if FP8KIT_HAS_WGMMA

template <bool kA4>
__device__ __forceinline__ void produce_decode(const CUtensorMap* tmap_t, const CUtensorMap* tmap_w,
                                               const Nvfp4Params& p, TileOrigin o, KRange r, DecodeStorage& s) {
  constexpr int kTokenBytes = kA4 ? kDecodePackedTokenBytes : kDecodeTokenBytes;
  constexpr int kTokenBlockK = kA4 ? kPackedRowBytes : kBlockK;  // a K block in the token map's elements
  hptx::prefetch_tensormap(tmap_t);
  hptx::prefetch_tensormap(tmap_w);
  const bool scale_tiles = is_swizzled(p.b_scale_layout);
  const uint8_t* scale_row = p.b_scale + int64_t{o.w0 / kTileRows} * (padded_blocks(p.k) / kTileBlocks) * kTileBytes;
  const uint32_t stage_bytes =
      static_cast<uint32_t>(kTokenBytes + kWeightTileBytes + (scale_tiles ? kScaleTileBytes : 0));
  auto weights = [&](int i) {
    const int st = i % kDecodeStages, kb = r.kb0 + i;
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &s.full[st], stage_bytes);
    const int32_t cw[2] = {kb * kPackedRowBytes, o.w0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, s.weights[st], tmap_w, cw,
                                    &s.full[st]);
    if (scale_tiles)
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, s.scales[st],
                               scale_row + int64_t{kb} * kTileBytes, static_cast<uint32_t>(kScaleTileBytes),
                               &s.full[st]);
  };
  auto tokens = [&](int i) {
    const int st = i % kDecodeStages;
    const int32_t ct[2] = {(r.kb0 + i) * kTokenBlockK, 0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, s.raw[st], tmap_t, ct,
                                    &s.full[st]);
  };
  const int first = r.count < kDecodeStages ? r.count : kDecodeStages;  // the stages start empty
  for (int i = 0; i < first; ++i) weights(i);
  hptx::griddep_wait();
  for (int i = 0; i < first; ++i) tokens(i);
  for (int i = first; i < r.count; ++i) {
    hptx::wait_barrier(&s.empty[i % kDecodeStages], ((i / kDecodeStages) & 1u) ^ 1u);
    weights(i);
    tokens(i);
  }
}

// One landed block of tokens (stage st) into the permuted order, by the
// token warps' thread u: token n = u / 4, half a = (u / 2) % 2, pieces t =
// 2 h, 2 h + 1 (h = u % 2) of the 16-byte pieces of elements 16 t + 8 a ..
// + 7 of its token. token_pairs_split makes piece t word q = (x + q, x + q +
// 4), which belongs at logical K 16 (2 a + q / 2) + 2 t + 8 (q % 2): 16-byte
// piece 4 a + q, word t; the thread writes words 2 h, 2 h + 1 of its four
// output pieces. sT is 128B-swizzled (piece c of row n at c ^ (n % 8)), and
// so is sR for 16-bit tokens. NVFP4 tokens: piece t is word 2 t + a of the
// token's packed row (scale block t of the K block's four), decoded exactly
// as the weights are (value x scale x 2^-kPlacedExponent, nvfp4_placed.cuh;
// sc: the token's scale word of the block) and in natural order.
template <bool kA4>
__device__ __forceinline__ void permute_token_block(DecodeStorage& s, int st, uint32_t sc, int u) {
  constexpr int kPieces = 4;   // out per thread; in per token half
  constexpr int kMine = 2;     // pieces in per thread
  constexpr int kPieceBytes = 16;
  constexpr int kSwizzleRows = kSwizzleAtomBytes / kTokenRowBytes;  // 8
  const int n = u / 4, a = (u / 2) % 2, h = u % 2, sw = n % kSwizzleRows;
  uint32_t w[kMine][4];
  if constexpr (kA4) {
    constexpr int kScalePairBits = 16;
    const uint32_t* packed = reinterpret_cast<const uint32_t*>(s.raw[st] + n * kPackedRowBytes);
    const uint32_t pair = placed_scale_pair<true>(h ? sc >> kScalePairBits : sc);  // blocks 2 h, 2 h + 1
#pragma unroll
    for (int j = 0; j < kMine; ++j) {
      uint32_t e[4];  // (element 2 b, 2 b + 1) of piece 2 h + j
      place_e2m1_byte_pairs<true>(packed[2 * (kMine * h + j) + a], e);
#pragma unroll
      for (int b = 0; b < 4; ++b) e[b] = scale_placed<true>(e[b], pair, j);
      token_pairs_split(make_uint4(e[0], e[1], e[2], e[3]), w[j]);
    }
  } else {
    const uint8_t* in = s.raw[st] + n * kTokenRowBytes;
#pragma unroll
    for (int j = 0; j < kMine; ++j)
      token_pairs_split(*reinterpret_cast<const uint4*>(in + ((2 * (kMine * h + j) + a) ^ sw) * kPieceBytes), w[j]);
  }
  uint8_t* out = s.tokens[st] + n * kTokenRowBytes + h * (kPieceBytes / 2);
#pragma unroll
  for (int q = 0; q < kPieces; ++q)
    *reinterpret_cast<uint2*>(out + ((kPieces * a + q) ^ sw) * kPieceBytes) = make_uint2(w[0][q], w[1][q]);
}

// The token warps (thread u of kTokenThreads): every block of the range, then
// the stage's `ready`. They gate every consumer, so no load's latency may sit in its loop: NVFP4
// tokens' scales (either layout, kSwizzled; tokens past M: zeros) are issued
// kTokenScaleAhead blocks ahead into a ring of registers and assembled when
// their block's turn comes. The loop is unrolled by the ring (slot j is a
// register), not by the stages: a stage's barrier and tiles are one index
// computation, and the token warps' code, which shares the SM's instruction
// cache with the consumers', stays half as long.
template <bool kA4, bool kSwizzled>
__device__ __forceinline__ void permute_tokens(const Nvfp4Params& p, KRange r, DecodeStorage& s, int u) {
  static_assert(kDecodeStages % kTokenScaleAhead == 0, "a ring turn never wraps the stages");
  const int n = u / 4;
  auto issue = [&](int i) {  // blocks 4 kb .. 4 kb + 3 of token n
    if (!kA4 || i >= r.count) return ScaleWordLoads<kSwizzled>{};
    return issue_scale_word<kSwizzled>(p.a_scale, p.a_scale_row0 + n, p.a_scale_row0 + p.m, r.kb0 + i, p.k_blocks);
  };
  ScaleWordLoads<kSwizzled> ring[kTokenScaleAhead];  // slot i % kTokenScaleAhead: block i's loads
#pragma unroll
  for (int j = 0; j < kTokenScaleAhead; ++j) ring[j] = issue(j);
  for (int turn = 0; turn < r.count; turn += kTokenScaleAhead) {
    const int st0 = turn % kDecodeStages;
    const uint32_t phase = static_cast<uint32_t>(turn / kDecodeStages) & 1u;
#pragma unroll
    for (int j = 0; j < kTokenScaleAhead; ++j) {
      const int i = turn + j;
      if (i >= r.count) break;
      const uint32_t sc = kA4 ? scale_word(ring[j]) : 0u;
      ring[j] = issue(i + kTokenScaleAhead);
      hptx::wait_barrier(&s.full[st0 + j], phase);
      permute_token_block<kA4>(s, st0 + j, sc, u);
      // The wgmma reads sT through the async proxy.
      cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
      hptx::arrive_no_state(&s.ready[st0 + j]);
    }
  }
}

// This thread's A operand of one K block: bytes 8t .. 8t + 7 of rows r and
// r + 8 (`row`: r's offset in the stage's weight tile) times the rows'
// block-t scales (`scales`: r's byte low, r + 8's next), a[s] for step s.
template <bool kBf16>
__device__ __forceinline__ void decode_block(const uint8_t* weights, int row, uint32_t scales,
                                             uint32_t (&a)[kKSteps][4]) {
  constexpr int kRow8 = 8 * kPackedRowBytes;
  const uint2 lo = *reinterpret_cast<const uint2*>(weights + row);
  const uint2 hi = *reinterpret_cast<const uint2*>(weights + row + kRow8);
  const uint32_t sc = placed_scale_pair<kBf16>(scales);
#pragma unroll
  for (int v = 0; v < 2; ++v) {
    uint32_t pr[4], ph[4];  // pairs (q, q + 4) of word v of rows r, r + 8
    place_e2m1x8<kBf16>(v ? lo.y : lo.x, pr);
    place_e2m1x8<kBf16>(v ? hi.y : hi.x, ph);
#pragma unroll
    for (int b = 0; b < 2; ++b) {
      uint32_t(&f)[4] = a[2 * v + b];  // (r, slots 2t..), (r + 8, 2t..), (r, 2t + 8..), (r + 8, 2t + 8..)
      f[0] = scale_placed<kBf16>(pr[2 * b], sc, 0);
      f[1] = scale_placed<kBf16>(ph[2 * b], sc, 1);
      f[2] = scale_placed<kBf16>(pr[2 * b + 1], sc, 0);
      f[3] = scale_placed<kBf16>(ph[2 * b + 1], sc, 1);
    }
  }
}

// One consumer's K range into acc (zero for an empty range). The loop runs
// whole rounds of the kDecodeStages stages, unrolled: every stage's barriers,
// weight and scale tiles and B descriptor are then constant offsets, and the
// round's barrier phase is all the loop carries besides the block count.
template <bool kBf16, bool kScaleTiles>
__device__ __forceinline__ void decode_loop(const Nvfp4Params& p, TileOrigin o, KRange r, DecodeStorage& s,
                                            int consumer, int thread, float (&acc)[kDecodeAccRegs]) {
  const int warp = thread / 32, lane = thread % 32, g = lane / 4, t = lane % 4;
  const int local = consumer * kWgmmaM + warp * 16 + g;
  const int row = local * kPackedRowBytes + 8 * t;
  const int n_r = o.w0 + local;
  // Linear scales: the two bytes of block 4 kb + t (rows r, r + 8; 0 past
  // N or K) from global memory two blocks ahead; swizzled ones come with the
  // stage.
  auto scale_pair = [&](int i) -> uint32_t {
    if (kScaleTiles || i >= r.count) return 0u;
    const int kb = (r.kb0 + i) * kTileBlocks + t;
    if (kb >= p.k_blocks) return 0u;
    const uint32_t lo = n_r < p.n ? __ldg(p.b_scale + linear_offset(n_r, kb, p.k_blocks)) : 0u;
    const uint32_t hi = n_r + 8 < p.n ? __ldg(p.b_scale + linear_offset(n_r + 8, kb, p.k_blocks)) : 0u;
    return lo | hi << 8;
  };
  // The block in stage `st` (barrier phase `phase`) into a.
  auto decode = [&](int st, uint32_t phase, uint32_t sp, uint32_t(&a)[kKSteps][4]) {
    hptx::wait_barrier(&s.full[st], phase);
    hptx::wait_barrier(&s.ready[st], phase);
    if constexpr (kScaleTiles) sp = tile_scale_byte(s.scales[st], local, t) | tile_scale_byte(s.scales[st], local + 8, t) << 8;
    decode_block<kBf16>(s.weights[st], row, sp, a);
  };
#pragma unroll
  for (int j = 0; j < kDecodeAccRegs; ++j) acc[j] = 0.f;
  if (r.count == 0) return;
  uint32_t cur = scale_pair(1), next = scale_pair(2);  // scales of blocks i + 1 and i + 2
  uint32_t fa[kKSteps][4], fb[kKSteps][4];            // A operands of even / odd blocks
  decode(0, 0u, scale_pair(0), fa);
  // sT of stage st, wgmma step ks: the stage's tile, 32 bytes along its
  // swizzled rows per step (descriptor units of 16 bytes).
  const uint64_t desc0 = hptx::smem_desc(s.tokens[0]);
  constexpr uint32_t kDescKStep = kWgmmaK * 2 / 16;
  constexpr uint32_t kDescStage = kDecodeTokenBytes / 16;
  // Block i = round + st (stage st): its wgmma on a, then block i + 1
  // decoded into b while they run. False past the range's last block.
  auto step = [&](int round, int st, uint32_t phase, uint32_t(&a)[kKSteps][4], uint32_t(&b)[kKSteps][4]) {
    const int i = round + st;
    if (i >= r.count) return false;
    hptx::fence_operands(acc);
    hptx::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kKSteps; ++ks)
      wgmma_rs<kDecodeTokens16, kBf16>(acc, a[ks], desc_advance(desc0, st * kDescStage + ks * kDescKStep), 1u);
    hptx::wgmma_commit();
    hptx::wgmma_wait<1>();
    fence_registers(b[0]);
    fence_registers(b[1]);
    fence_registers(b[2]);
    fence_registers(b[3]);
    if (i > 0) hptx::arrive_no_state(&s.empty[(st + kDecodeStages - 1) % kDecodeStages]);
    if (i + 1 < r.count) {
      const int next_st = (st + 1) % kDecodeStages;
      decode(next_st, next_st == 0 ? phase ^ 1u : phase, cur, b);
      cur = next;
      next = scale_pair(i + 3);
    }
    return true;
  };
  static_assert(kDecodeStages % 2 == 0, "even blocks decode into fa, odd ones into fb, in every round");
  uint32_t phase = 0;
  for (int round = 0; round < r.count; round += kDecodeStages, phase ^= 1u) {
#pragma unroll
    for (int st = 0; st < kDecodeStages; st += 2)
      if (!step(round, st, phase, fa, fb) || !step(round, st + 1, phase, fb, fa)) break;
  }
  hptx::wgmma_wait<0>();
  hptx::fence_operands(acc);
  hptx::arrive_no_state(&s.empty[(r.count - 1) % kDecodeStages]);
}

// The leader's slot of rank `from` (>= 1) for one consumer in its stage
// memory: (kDecodeAccRegs / 4, thread) float4, thread-fastest, so that a
// warp's 16-byte accesses cover 512 contiguous bytes.
__device__ __forceinline__ float4* decode_slot(DecodeStorage& s, int from, int consumer) {
  constexpr int kConsumerFloat4s = kWarpgroupThreads * kDecodeAccRegs / 4;
  return reinterpret_cast<float4*>(s.tokens[0]) + ((from - 1) * kConsumers + consumer) * kConsumerFloat4s;
}

// A non-leader consumer's hand-off: once the leader's stage memory is free,
// its partials into the leader's slot, then it is done.
__device__ __forceinline__ void send_partials(DecodeStorage& s, int rank, int consumer, int thread,
                                             const float (&acc)[kDecodeAccRegs]) {
  cuda::ptx::barrier_cluster_wait();  // the leader's barriers are initialised
  hptx::wait_barrier(&s.slots_free, 0);
  const uint32_t slot = hptx::cluster_address(decode_slot(s, rank, consumer), 0);
  const uint32_t full = hptx::cluster_address(&s.partials_full, 0);
#pragma unroll
  for (int q = 0; q < kDecodeAccRegs / 4; ++q)
    hptx::st_async_f32x4(slot + static_cast<uint32_t>((q * kWarpgroupThreads + thread) * sizeof(float4)),
                         make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]), full);
}

// The leader consumer's hand-off: frees its stage memory for the other ranks
// (after both consumers' K loops), then adds their partials in rank order.
__device__ __forceinline__ void gather_partials(DecodeStorage& s, int splits, int consumer, int thread,
                                                float (&acc)[kDecodeAccRegs]) {
  hptx::named_barrier<kConsumers * kWarpgroupThreads>(kConsumersDone);
  if (consumer == 0 && thread < 32) {
    cuda::ptx::barrier_cluster_wait();  // the other ranks' barriers are initialised
    if (thread >= 1 && thread < splits)
      hptx::arrive_cluster_relaxed(hptx::cluster_address(&s.slots_free, static_cast<uint32_t>(thread)));
  }
  hptx::wait_barrier_cluster(&s.partials_full, 0);
  for (int from = 1; from < splits; ++from) {
    const float4* slot = decode_slot(s, from, consumer);
#pragma unroll
    for (int q = 0; q < kDecodeAccRegs / 4; ++q) {
      const float4 v = slot[q * kWarpgroupThreads + thread];
      acc[4 * q] += v.x;
      acc[4 * q + 1] += v.y;
      acc[4 * q + 2] += v.z;
      acc[4 * q + 3] += v.w;
    }
  }
}

#endif  // FP8KIT_HAS_WGMMA

// Grid: ceil(N / 128) x splits CTAs, clusters of `splits` along x when
// splits > 1; tmap_t: the tokens in boxes of 16 rows x 64 elements (NVFP4:
// 16 rows x 32 bytes). kBf16: the wgmma's type (NVFP4 tokens: bf16).
template <bool kBf16, bool kA4>
__global__ void __launch_bounds__(kThreads, kDecodeCtasPerSm)
    nvfp4_sm90_decode_kernel(const __grid_constant__ CUtensorMap tmap_t, const __grid_constant__ CUtensorMap tmap_w,
                             const Nvfp4Params p, int splits) {
  static_assert(kBf16 || !kA4, "NVFP4 tokens decode to bf16");
#if FP8KIT_HAS_WGMMA
  extern __shared__ uint8_t smem_raw[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  auto& s = *reinterpret_cast<DecodeStorage*>(smem_raw + ((kSwizzleAtomBytes - base % kSwizzleAtomBytes) % kSwizzleAtomBytes));
  const int rank = static_cast<int>(cuda::ptx::get_sreg_cluster_ctarank());
  if (threadIdx.x == 0) {
    for (int i = 0; i < kDecodeStages; ++i) {
      cuda::ptx::mbarrier_init(&s.full[i], 1);
      cuda::ptx::mbarrier_init(&s.ready[i], kTokenThreads);
      cuda::ptx::mbarrier_init(&s.empty[i], kConsumers * kWarpgroupThreads);  // every consumer thread, after its reads
    }
    cuda::ptx::mbarrier_init(&s.slots_free, 1);     // the leader's one arrive
    cuda::ptx::mbarrier_init(&s.partials_full, 1);  // its own arrive, with the bytes it expects
    if (splits > 1 && rank == 0)
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &s.partials_full, static_cast<uint32_t>((splits - 1) * kDecodeSlotBytes));
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (splits > 1) cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
  const TileOrigin o{static_cast<int>(blockIdx.x / splits) * kBlockW, 0};
  const KRange r = k_range((p.k + kBlockK - 1) / kBlockK, splits, rank);
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const int thread = threadIdx.x % kWarpgroupThreads;
  if (warpgroup == 0) {
    if (threadIdx.x == 0) produce_decode<kA4>(&tmap_t, &tmap_w, p, o, r, s);
    const int u = static_cast<int>(threadIdx.x) - kTokenWarp * 32;
    if (u >= 0 && u < kTokenThreads) {
      if (kA4 && !is_swizzled(p.a_scale_layout)) permute_tokens<kA4, false>(p, r, s, u);
      else permute_tokens<kA4, true>(p, r, s, u);
    }
    hptx::griddep_launch_dependents();
    return;
  }
  const int consumer = warpgroup - 1;
  float acc[kDecodeAccRegs];
  if (is_swizzled(p.b_scale_layout)) decode_loop<kBf16, true>(p, o, r, s, consumer, thread, acc);
  else decode_loop<kBf16, false>(p, o, r, s, consumer, thread, acc);
  hptx::griddep_launch_dependents();
  if (splits > 1) {
    if (rank != 0) {
      send_partials(s, rank, consumer, thread, acc);
      return;
    }
    gather_partials(s, splits, consumer, thread, acc);
  }
  // Both consumers are past their last read of sW (and of the partials): it
  // becomes the staging.
  hptx::named_barrier<kConsumers * kWarpgroupThreads>(kConsumersDone);
  uint8_t* staging = s.weights[0] + consumer * kDecodeTokens16 * staging_pitch(4);
  constexpr int kPlaced = kA4 ? 2 : 1;  // operands decoded by placement: weights, NVFP4 tokens
  switch (p.d_type) {
    case FP8KIT_DTYPE_BF16: store_tile<kDecodeTokens16, __nv_bfloat16, kPlaced>(p, o, consumer, thread, acc, staging); break;
    case FP8KIT_DTYPE_F16: store_tile<kDecodeTokens16, __half, kPlaced>(p, o, consumer, thread, acc, staging); break;
    default: store_tile<kDecodeTokens16, float, kPlaced>(p, o, consumer, thread, acc, staging); break;
  }
#endif
}

}  // namespace fp8kit::nvfp4::sm90w
