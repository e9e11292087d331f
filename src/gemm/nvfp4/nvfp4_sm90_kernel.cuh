// The Hopper NVFP4 W4A16 GEMM kernel (sm_90a): the weights decoded in
// registers straight into the A operand of a 16-bit wgmma, the tokens by TMA
// as its B operand (nvfp4_sm90_config.hpp states the orientation and tile).
//
// CTA: 3 warpgroups. Warpgroup 0's thread 0 is the producer: per 64-deep K
// block, one TMA box of tokens (kBlockT rows x 128 bytes, 128B-swizzled), one
// of packed weights (kBlockW rows x 32 bytes) and the swizzled scale tile
// into a stage, all on the stage's `full` barrier. Warpgroups 1 and 2 are the consumers, each owning
// 64 weight rows and all kBlockT tokens (one m64 x kBlockT f32 accumulator);
// one lane per consumer warp arrives on the stage's `empty` barrier once its
// warp's reads of the stage are done (after __syncwarp).
//
// A consumer's K block: lane (g = lane / 4, t = lane % 4) of warp w holds, in
// the wgmma's A layout, rows r = 16 w + g and r + 8 at K slots {2t, 2t + 1}
// and {2t + 8, 2t + 9} of each k16 step s: bytes 8 s + t and 8 s + t + 4 of
// each row's 32 packed bytes. Three byte permutes gather those four bytes
// (rows r, r + 8) into one word, whose 8 nibbles are placed as four 16-bit
// pairs (nvfp4_placed.cuh: value x 2^-14 / 2^-126, exact) and multiplied by
// the lifted block-s scale of their row, so each operand is value x scale x
// 2^-7, exact; the epilogue multiplies 2^7 back. Block i + 1 is decoded while block i's four
// wgmma run. Swizzled scales come with the stage (one bulk copy of the
// 512-byte tile of the CTA's 128 rows); linear ones from global memory, two
// blocks ahead.
//
// K split (dense only, an instantiation of its own, kSplit, so that the
// unsplit kernel's K loop is scheduled as if the split did not exist): the
// S CTAs of a cluster (grid = tiles x S) take consecutive K ranges of one
// tile. Consumer c's partials meet in rank c
// (S >= 2 = kConsumers): the other ranks' consumer c leave theirs in their
// staging buffer c, and rank c's adds them in rank order through
// distributed shared memory (deterministic), then runs the epilogue for its
// 64 weight rows.
//
// Epilogue: both consumers past their last wgmma, each stages its tile
// (kBlockT tokens x 64 weights) transposed into the stages' memory, alpha
// and bias applied, then stores D's token rows in 16-byte pieces.
// One CTA's work is run_cta, which the dense kernel here and the grouped one
// (nvfp4_sm90_grouped_kernel.cuh) both run. Its device code exists for
// sm_90a only (the guard below).
#pragma once

#include <cuda.h>  // CUtensorMap (types only)
#include <cuda/ptx>

#include <cstdint>

#include "gemm/nvfp4/nvfp4_gemm.cuh"
#include "gemm/nvfp4/nvfp4_placed.cuh"
#include "gemm/nvfp4/nvfp4_sm90_config.hpp"

// The kernel's one family-range guard: nvfp4_sm90_gemm.cu refuses (#error)
// any device pass outside FP8KIT_HAS_WGMMA, so without it this is the host
// pass, which needs only the kernel's signature for its launch stub.
#if FP8KIT_HAS_WGMMA
#include "gemm/nvfp4/nvfp4_sm90_common.cuh"
#include "gemm/nvfp4/nvfp4_sm90_wgmma.cuh"
#endif

namespace fp8kit::nvfp4::sm90w {

#if FP8KIT_HAS_WGMMA
// Tile `tile` of the grid: weight tiles fastest, so the CTAs resident at
// once share their token tiles in L2.
template <Tokens kT>
__device__ __forceinline__ TileOrigin tile_origin(const Nvfp4Params& p, int tile) {
  const int tiles_w = (p.n + kBlockW - 1) / kBlockW;
  return {tile % tiles_w * kBlockW, tile / tiles_w * TileT<kT>::kBlockT};
}

// `at`: the tile's coordinates in the tensor maps (a dense tile's are `o`; a
// grouped tile's count from the top of all experts' tokens and weights).
template <Tokens kT>
__device__ __forceinline__ void produce(const CUtensorMap* tmap_t, const CUtensorMap* tmap_w, const Nvfp4Params& p,
                                        TileOrigin o, TileOrigin at, KRange r, typename TileT<kT>::SharedStorage& s) {
  using C = TileT<kT>;
  hptx::prefetch_tensormap(tmap_t);
  hptx::prefetch_tensormap(tmap_w);
  // Swizzled scales: tile (w0 / 128, kb) of the scale matrix, whose padding
  // rows exist (the layout pads rows to 128 and blocks to 4).
  const bool scale_tiles = is_swizzled(p.b_scale_layout);
  const uint8_t* scale_row = p.b_scale + int64_t{o.w0 / kTileRows} * (padded_blocks(p.k) / kTileBlocks) * kTileBytes;
  const uint32_t stage_bytes = static_cast<uint32_t>(C::kStageBytes + (scale_tiles ? kScaleTileBytes : 0));
  for (int i = 0; i < r.count; ++i) {
    const int st = i % C::kStages;
    const uint32_t phase = (i / C::kStages) & 1u;
    const int kb = r.kb0 + i;
    hptx::wait_barrier(&s.empty[st], phase ^ 1u);
    // The full boxes count, where TMA zero-fills rows past M or N and the K tail.
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &s.full[st], stage_bytes);
    const int32_t ct[2] = {kb * kBlockK, at.t0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, s.tokens[st], tmap_t, ct,
                                    &s.full[st]);
    const int32_t cw[2] = {kb * kPackedRowBytes, at.w0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, s.weights[st], tmap_w, cw,
                                    &s.full[st]);
    if (scale_tiles)
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, s.scales[st],
                               scale_row + int64_t{kb} * kTileBytes, static_cast<uint32_t>(kScaleTileBytes),
                               &s.full[st]);
  }
}

// This thread's A operand of one stage: rows r, r + 8 of the consumer's 64
// (`row`: r's byte offset in the stage's weight tile), a[s] for k16 step s.
template <bool kBf16>
__device__ __forceinline__ void decode_stage(const uint8_t* weights, int row, uint32_t gather, uint32_t scales_r,
                                             uint32_t scales_r8, uint32_t (&a)[kKSteps][4]) {
  constexpr int kRow8 = 8 * kPackedRowBytes;
  constexpr uint32_t kLowPairs = 0x5410;  // __byte_perm: bytes 0, 1 of x, then of y
  constexpr int kOtherWord = 4;  // __byte_perm: bytes 4-7 are the second word's
  const uint4 r0 = *reinterpret_cast<const uint4*>(weights + row);
  const uint4 r1 = *reinterpret_cast<const uint4*>(weights + row + 16);
  const uint4 h0 = *reinterpret_cast<const uint4*>(weights + row + kRow8);
  const uint4 h1 = *reinterpret_cast<const uint4*>(weights + row + kRow8 + 16);
  const uint32_t wr[8] = {r0.x, r0.y, r0.z, r0.w, r1.x, r1.y, r1.z, r1.w};
  const uint32_t wh[8] = {h0.x, h0.y, h0.z, h0.w, h1.x, h1.y, h1.z, h1.w};
#pragma unroll
  for (int s = 0; s < kKSteps; ++s) {
    const uint32_t x = __byte_perm(wr[2 * s], wr[2 * s + 1], gather);
    const uint32_t y = __byte_perm(wh[2 * s], wh[2 * s + 1], gather);
    uint32_t out[4];  // (row r, slots 2t..), (r, 2t + 8..), (r + 8, 2t..), (r + 8, 2t + 8..)
    place_e2m1_byte_pairs<kBf16>(__byte_perm(x, y, kLowPairs), out);
    // Block s's scales of rows r and r + 8, lifted (value x scale x 2^-7).
    const uint32_t sc = placed_scale_spread<kBf16>(__byte_perm(scales_r, scales_r8, s | (kOtherWord + s) << 8));
    a[s][0] = scale_placed<kBf16>(out[0], sc, 0);
    a[s][1] = scale_placed<kBf16>(out[2], sc, 1);
    a[s][2] = scale_placed<kBf16>(out[1], sc, 0);
    a[s][3] = scale_placed<kBf16>(out[3], sc, 1);
  }
}

// One consumer's K range into acc (overwritten; zero for an empty range). kScaleTiles: the scales
// are swizzled and come with the stages (a template parameter, so that the
// linear layout's loads cost the swizzled loop no predicated instruction).
template <Tokens kT, bool kBf16, bool kScaleTiles>
__device__ __forceinline__ void mma_loop(const Nvfp4Params& p, TileOrigin o, KRange r,
                                         typename TileT<kT>::SharedStorage& s, int consumer, int thread,
                                         float (&acc)[TileT<kT>::kAccRegs]) {
  using C = TileT<kT>;
  constexpr int kStages = C::kStages;
  const int nkb = r.count;
  if (nkb == 0) {
#pragma unroll
    for (int j = 0; j < C::kAccRegs; ++j) acc[j] = 0.f;
    return;
  }
  const int warp = thread / 32, lane = thread % 32, g = lane / 4, t = lane % 4;
  const int local = consumer * kWgmmaM + warp * 16 + g;  // row r within the CTA's weights
  const int row = local * kPackedRowBytes;
  const uint32_t gather = static_cast<uint32_t>(t | ((t + 4) << 4));  // byte t of x, byte t of y
  const int n_r = o.w0 + local;
  // Linear scales: those of the range's block i from global memory two
  // blocks ahead of their use; swizzled ones come with the stage
  // (tile_scale_word at the decode).
  auto scale_words = [&](int i, uint32_t& sr, uint32_t& sr8) {
    const bool load = !kScaleTiles && i < nkb;
    const int kb = r.kb0 + i;
    sr = load ? load_scale_word(p.b_scale, p.b_scale_layout, n_r, p.n, kb, p.k_blocks) : 0u;
    sr8 = load ? load_scale_word(p.b_scale, p.b_scale_layout, n_r + 8, p.n, kb, p.k_blocks) : 0u;
  };
  auto decode = [&](int st, uint32_t sr, uint32_t sr8, uint32_t(&a)[kKSteps][4]) {
    if constexpr (kScaleTiles) {
      sr = tile_scale_word(s.scales[st], local);
      sr8 = tile_scale_word(s.scales[st], local + 8);
    }
    decode_stage<kBf16>(s.weights[st], row, gather, sr, sr8, a);
  };
  uint32_t cur_r, cur_r8, next_r, next_r8;  // scale words of blocks i + 1 and i + 2
  scale_words(0, cur_r, cur_r8);
  scale_words(1, next_r, next_r8);

  uint32_t fa[kKSteps][4], fb[kKSteps][4];  // A operands of even / odd K blocks
  hptx::wait_barrier(&s.full[0], 0u);
  decode(0, cur_r, cur_r8, fa);
  cur_r = next_r;
  cur_r8 = next_r8;
  scale_words(2, next_r, next_r8);

  // Issues block i from `a` (stage i % kStages), then decodes block i + 1
  // into `b` once block i - 1's group (which read `b`) has retired.
  auto step = [&](int i, uint32_t(&a)[kKSteps][4], uint32_t(&b)[kKSteps][4]) {
    const int st = i % kStages;
    const uint64_t desc = hptx::smem_desc(s.tokens[st]);
    constexpr uint64_t kDescKStep = kWgmmaK * 2 / 16;  // 32 bytes along a swizzled row, in 16-byte units
    hptx::fence_operands(acc);
    hptx::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kKSteps; ++ks) wgmma_rs<C::kBlockT, kBf16>(acc, a[ks], desc + ks * kDescKStep, (i | ks) != 0);
    hptx::wgmma_commit();
    hptx::wgmma_wait<1>();
    fence_registers(b[0]);
    fence_registers(b[1]);
    fence_registers(b[2]);
    fence_registers(b[3]);
    if (i > 0) hptx::arrive_no_state(&s.empty[(i - 1) % kStages]);
    if (i + 1 < nkb) {
      const int nst = (i + 1) % kStages;
      hptx::wait_barrier(&s.full[nst], ((i + 1) / kStages) & 1u);
      decode(nst, cur_r, cur_r8, b);
      cur_r = next_r;
      cur_r8 = next_r8;
      scale_words(i + 3, next_r, next_r8);
    }
  };
  for (int i = 0; i < nkb; i += 2) {
    step(i, fa, fb);
    if (i + 1 < nkb) step(i + 1, fb, fa);
  }
  hptx::wgmma_wait<0>();
  hptx::fence_operands(acc);
  hptx::arrive_no_state(&s.empty[(nkb - 1) % kStages]);
}

// kSplit: `splits` (at least kConsumers) CTAs of the cluster share the
// tile's K and this one is `rank`; else the CTA has all of K (a template
// parameter, so that the unsplit loop carries none of the hand-off).
template <Tokens kT, bool kBf16, bool kSplit>
__device__ __forceinline__ void consume(const Nvfp4Params& p, TileOrigin o, KRange r, int splits, int rank,
                                        typename TileT<kT>::SharedStorage& s, int consumer, int thread) {
  using C = TileT<kT>;
  float acc[C::kAccRegs];
  if (is_swizzled(p.b_scale_layout)) mma_loop<kT, kBf16, true>(p, o, r, s, consumer, thread, acc);
  else mma_loop<kT, kBf16, false>(p, o, r, s, consumer, thread, acc);
  // Both consumers' wgmma have read their last stage: the stages become the
  // staging buffers.
  hptx::named_barrier<kConsumers * kWarpgroupThreads>(kConsumersDone);
  uint8_t* staging = s.tokens[0] + consumer * C::kStagingBytes;
  if constexpr (kSplit) {
    float4* slot = reinterpret_cast<float4*>(staging);
    const bool owner = rank == consumer;
    if (!owner) leave_partial(slot, thread, acc);
    cluster_sync();
    if (owner)
      for (int from = 0; from < splits; ++from)
        if (from != rank) add_partial(slot, static_cast<uint32_t>(from), thread, acc);
    cluster_sync();  // the partials stay until their owner has read them
    if (!owner) return;
  }
  switch (p.d_type) {
    case FP8KIT_DTYPE_BF16: store_tile<TileT<kT>::kBlockT, __nv_bfloat16>(p, o, consumer, thread, acc, staging); break;
    case FP8KIT_DTYPE_F16: store_tile<TileT<kT>::kBlockT, __half>(p, o, consumer, thread, acc, staging); break;
    default: store_tile<TileT<kT>::kBlockT, float>(p, o, consumer, thread, acc, staging); break;
  }
}

// The CTA's tile (o in problem p, at in the tensor maps) over all of K, or
// (kSplit) over the K range of `rank` of `splits`, its shared memory placed
// from smem_raw. Every thread of the CTA calls it.
template <Tokens kT, bool kBf16, bool kSplit = false>
__device__ __forceinline__ void run_cta(const CUtensorMap* tmap_t, const CUtensorMap* tmap_w, const Nvfp4Params& p,
                                        TileOrigin o, TileOrigin at, uint8_t* smem_raw, int splits = 1,
                                        int rank = 0) {
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  using C = TileT<kT>;
  auto& s = *reinterpret_cast<typename C::SharedStorage*>(
      smem_raw + ((kSwizzleAtomBytes - raw % kSwizzleAtomBytes) % kSwizzleAtomBytes));
  if (threadIdx.x == 0) {
    for (int i = 0; i < C::kStages; ++i) {
      cuda::ptx::mbarrier_init(&s.full[i], 1);
      cuda::ptx::mbarrier_init(&s.empty[i], kConsumers * kWarpgroupThreads);  // every consumer thread, after its reads
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const int nkb = (p.k + kBlockK - 1) / kBlockK;
  const KRange r = kSplit ? k_range(nkb, splits, rank) : KRange{0, nkb};
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  if (warpgroup == 0) {
    hptx::setmaxnreg_dec<fp8kit::sm90::kProducerRegs>();
    if (threadIdx.x == 0) produce<kT>(tmap_t, tmap_w, p, o, at, r, s);
    if constexpr (kSplit) {  // the consumers' two cluster barriers count every thread
      cluster_sync();
      cluster_sync();
    }
  } else {
    hptx::setmaxnreg_inc<fp8kit::sm90::kConsumerRegs>();
    consume<kT, kBf16, kSplit>(p, o, r, splits, rank, s, warpgroup - 1, threadIdx.x % kWarpgroupThreads);
  }
}

#endif  // FP8KIT_HAS_WGMMA

// Grid: one CTA per tile (kSplit false, `splits` 1), or tiles x splits
// CTAs in clusters of `splits` along x (kSplit; at least kConsumers, so that
// each consumer's rows have their own owner rank).
template <Tokens kT, bool kBf16, bool kSplit>
__global__ void __launch_bounds__(kThreads, 1)
    nvfp4_sm90_gemm_kernel(const __grid_constant__ CUtensorMap tmap_t, const __grid_constant__ CUtensorMap tmap_w,
                           const Nvfp4Params p, int splits) {
#if FP8KIT_HAS_WGMMA
  extern __shared__ uint8_t smem_raw[];
  if constexpr (kSplit) {
    const int rank = static_cast<int>(cuda::ptx::get_sreg_cluster_ctarank());
    const TileOrigin o = tile_origin<kT>(p, static_cast<int>(blockIdx.x) / splits);
    run_cta<kT, kBf16, true>(&tmap_t, &tmap_w, p, o, o, smem_raw, splits, rank);
  } else {
    const TileOrigin o = tile_origin<kT>(p, static_cast<int>(blockIdx.x));
    run_cta<kT, kBf16, false>(&tmap_t, &tmap_w, p, o, o, smem_raw);
  }
#endif
}

}  // namespace fp8kit::nvfp4::sm90w
