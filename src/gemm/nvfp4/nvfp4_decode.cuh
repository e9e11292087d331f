// The NVFP4 decode tile (M <= 16 tokens): a weight stream, not a CTA tile.
//
// Decode reads each packed weight once and does 2 M flops per weight, so the
// tile is shaped by bytes in flight, not by reuse: every lane streams its own
// weights (16-byte cp.async copies, kStages - 1 K chunks ahead) through a
// private ring in shared memory, decodes them exactly to f16 / bf16 and runs
// HMMA m16n8k16 with the weights as the MMA's M side ("swapped": D^T = B A^T)
// and the tokens as its N side (8 per n8 tile).
//
// CTA: kWarps = warps_n x warps_k warps, the split chosen on the host per
// problem (nvfp4_plan.hpp, choose_decode_warps_n; Nvfp4Params.decode_warps_n):
// the CTA owns 16 warps_n weight rows. Warp (wn, wk) owns rows
// n0 + 16 wn .. + 15 and the K chunks wk, wk + warps_k, ... (a chunk is 128 K
// elements: 64 bytes of a packed row). The warps_n warps of one wk read the
// same tokens at about the same time, so L1 serves all but the first. Per
// chunk, lane (g = lane / 4, t = lane % 4) loads elements 32t .. 32t + 31 of rows g and g + 8 (16 bytes
// each, one 32-element K granule) and their two scale bytes, and the same 32
// elements of token g of each n8 tile (64 bytes of bf16 / f16, or 16 bytes
// and two scales of NVFP4). Word i of the lane's 16 bytes (elements 8i .. 8i+7,
// one scale block) is decoded by bit placement (nvfp4_placed.cuh) into the
// pairs (8i + r, 8i + r + 4), r = 0..3: the A pairs of MMA steps 2i and
// 2i + 1; the token's elements 8i .. 8i+7 in the same pairs (byte permutes
// of 16-bit tokens, the same placement of NVFP4 ones) their B pairs: both operands see one
// permutation of K, so the dot product is the GEMM's. Every stream (weight
// rows, scale rows, token rows) advances a fixed stride per step of warps_k
// chunks, so the loop carries pointers, not indices. A chunk past K, a row
// past N and a token past M load nothing and contribute zeros (K % 32 == 0:
// a lane's granule is in or out whole).
//
// Shared memory (DecodeConfig::kSmemBytes):
//   sRed:  (warps_k, kTokens, 16 warps_n) f32, 128 kTokens floats whatever
//          the split: the K split's partial sums; the CTA then adds them,
//          applies alpha and bias and stores pairs of D along N.
//   sRing: (kStages, 2 rows, kThreads) x 16 bytes, after sRed: each thread's
//          weight ring (its rows g, g + 8 of one chunk per stage).
// Scales ride a register ring of the same depth, tokens one step ahead in
// two register buffers. With programmatic launch (SM90+) the first
// kStages - 1 chunks of weights and scales go out before
// griddepcontrol.wait, as the FP8 path's weight tiles do: the weights must
// not be written by the kernel before in the stream; tokens, alpha, bias and
// D wait.
#pragma once

#include "gemm/nvfp4/nvfp4_gemm.cuh"
#include "gemm/nvfp4/nvfp4_placed.cuh"

namespace fp8kit::nvfp4 {

template <TileId kId, bool kA16>
struct DecodeConfig {
  static constexpr TileShape kShape = tile_shape(kId);
  static_assert(kShape.kind == TileKind::Decode, "a decode tile");
  static constexpr int kTokens = kShape.block_m;  // tokens per CTA (n8 tiles x 8)
  static constexpr int kWarpRows = kDecodeWarpRows;
  static constexpr int kBlockM = kTokens;
  static constexpr int kBlockN = kShape.block_n;  // rows per CTA at warps_n = 1 (the kernel scales it)
  static constexpr int kTokenTiles = kTokens / 8;
  static constexpr int kWarps = kShape.warps();
  static constexpr int kStages = kShape.stages;  // weight ring depth: kStages - 1 chunks in flight per lane
  static constexpr int kThreads = kShape.threads();
  static constexpr int kMinBlocks = kShape.min_blocks;
  static constexpr int kSmemBytes = kShape.smem_bytes(kA16);
  static constexpr int kReductionBytes = kShape.decode_reduction_bytes();
  static_assert(kStages % 2 == 0, "the tokens' two register buffers alternate with the ring's stages");
  static constexpr int kGroupM = 8;  // grouped rasterisation, as the CTA tiles
  static constexpr int kChunkK = TileShape::kDecodeChunkK;
  static constexpr int kLaneK = kChunkK / 4;  // elements per lane per row and chunk
  static_assert(kBlockN == kWarpRows && kTokens % 8 == 0, "16 rows per warp, n8 token tiles");
  static_assert(kLaneK == 32 && kLaneK % kKGranule == 0, "a lane's share of a chunk is one K granule");
};

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

// 16 bytes of tokens (re-read by the CTA's other row groups: through L1).
__device__ __forceinline__ uint4 load_token_16(const uint8_t* src, bool valid) {
  return valid ? __ldg(reinterpret_cast<const uint4*>(src)) : make_uint4(0, 0, 0, 0);
}

// One row's scale bytes as the lane walks its chunks: blocks kb, kb + 1 of
// chunk c (kb = 8 c + 2 t) sit `step` bytes further per step of warps_k
// chunks in both layouts (swizzled: 2 tiles of 4 blocks along K, 1024 bytes;
// linear: 8 bytes), so a row needs one pointer. Swizzled pairs are aligned
// 16-bit words; linear rows start at any byte (K % 32 == 0 keeps every pair
// at the base's parity).
struct ScaleStream {
  const uint8_t* at;
  int step;  // bytes per step: at most 8 x 1024
  bool pair_aligned;

  __device__ __forceinline__ static ScaleStream of(const uint8_t* scales, int layout, int64_t row, int kb,
                                                  int k_blocks, int warps_k) {
    constexpr int kBlocksPerChunk = TileShape::kDecodeChunkK / kBlock;
    if (is_swizzled(layout))
      return {scales + swizzled_offset(row, kb, round_up(k_blocks, kTileBlocks)),
              warps_k * (kBlocksPerChunk / kTileBlocks) * kTileBytes, true};
    return {scales + linear_offset(row, kb, k_blocks), warps_k * kBlocksPerChunk,
            (reinterpret_cast<uintptr_t>(scales) & 1) == 0};
  }
  // Bytes of blocks kb, kb + 1 of step s (byte 0 = block kb) of the row
  // `rows_on` bytes further; 0 if !valid.
  __device__ __forceinline__ uint32_t load(int s, bool valid, int64_t rows_on = 0) const {
    if (!valid) return 0u;
    const uint8_t* q = at + rows_on + s * step;
    if (pair_aligned) return __ldg(reinterpret_cast<const uint16_t*>(q));
    return static_cast<uint32_t>(__ldg(q)) | static_cast<uint32_t>(__ldg(q + 1)) << 8;
  }
};

// Tokens m0 .. m0 + kTokens - 1 x rows n0 .. n0 + 16 p.decode_warps_n - 1 of
// problem p.
// smem: DecodeConfig::kSmemBytes. Launched programmatically or not: without
// the attribute griddepcontrol.wait returns at once.
template <class Policy, TileId kTile, bool kA16>
__device__ __forceinline__ void decode_tile(const Nvfp4Params& p, int m0, int n0, uint8_t* smem) {
  using C = DecodeConfig<kTile, kA16>;
  constexpr bool kBf16 = Policy::kBf16Operands;
  constexpr int kChunkBytes = C::kChunkK / kElementsPerByte;  // of a packed row
  constexpr int kLaneBytes = C::kLaneK / kElementsPerByte;    // 16: one load
  constexpr int kWords = kLaneBytes / 4;                      // 8 elements each, two per scale block
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps_n = p.decode_warps_n, warps_k = C::kWarps / warps_n;
  const int rows = C::kWarpRows * warps_n;
  const int wn = warp % warps_n;
  const int wk = warp / warps_n;
  const int g = lane >> 2, t = lane & 3;
  const int64_t a_row_bytes = kA16 ? p.lda * 2 : p.lda;

  // The lane's K granule of step s (chunk wk + s warps_k) starts at element
  // k0 + s k_step; every stream below advances a fixed stride per step.
  const int k0 = C::kChunkK * wk + C::kLaneK * t;
  const int k_step = C::kChunkK * warps_k;
  const int steps = p.k > k0 ? (p.k - k0 + k_step - 1) / k_step : 0;  // granules in K (K % 32 == 0)
  const int warp_steps = (p.k - C::kChunkK * wk + k_step - 1) / k_step;  // the warp's: lane 0's count
  const int kb0 = k0 / kBlock;

  const int row_lo = n0 + 16 * wn + g;  // rows g and g + 8 of this warp's 16
  const int row_hi = row_lo + 8;
  const bool lo_ok = row_lo < p.n, hi_ok = row_hi < p.n;
  // Row g + 8 is 8 rows on in both streams: 8 ldb bytes of weights; 8
  // scale rows (swizzled: rows g and g + 8 share a 32-row line group, since
  // row g % 32 < 24). Its pointers are formed only where it exists.
  const uint8_t* b_lo = p.b + static_cast<int64_t>(lo_ok ? row_lo : 0) * p.ldb + k0 / kElementsPerByte;
  const int b_step = warps_k * kChunkBytes;
  const ScaleStream s_lo = ScaleStream::of(p.b_scale, p.b_scale_layout, lo_ok ? row_lo : 0, kb0, p.k_blocks, warps_k);
  const int64_t b_hi = 8 * p.ldb;
  const int64_t s_hi = 8 * (is_swizzled(p.b_scale_layout) ? kLineBytes : p.k_blocks);

  // Token g of n8 tile j: its row and its scale stream (NVFP4 tokens).
  const uint8_t* a_row[C::kTokenTiles];
  bool m_ok[C::kTokenTiles];
  const int a_step = kA16 ? k_step * 2 : k_step / kElementsPerByte;
#pragma unroll
  for (int j = 0; j < C::kTokenTiles; ++j) {
    const int m = m0 + 8 * j + g;
    m_ok[j] = m < p.m;
    a_row[j] = p.a + static_cast<int64_t>(m_ok[j] ? m : 0) * a_row_bytes + (kA16 ? 2 * k0 : k0 / kElementsPerByte);
  }

  // The weight ring, sRing: (kStages, 2 rows, kThreads) x 16 bytes: each
  // thread's two rows of one step, lanes 16 bytes apart (an LDS.128 phase
  // hits 8 distinct bank groups). A thread reads back only what it copied
  // itself, so cp.async.wait_group is all the synchronisation it needs.
  const uint32_t ring = smem_addr(smem + C::kReductionBytes);
  auto slot = [&](int stage, int r) {
    return ring + static_cast<uint32_t>(((stage * 2 + r) * C::kThreads + threadIdx.x) * sizeof(uint4));
  };
  auto read_slot = [&](int stage, int r) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(slot(stage, r)));
    return v;
  };
  // Step s's weights into ring stage `stage` (zeros past K and N; a row that
  // is not read copies from the weights' base), one commit group per step.
  auto issue_weights = [&](int s, int stage) {
    const bool k_ok = s < steps;
    const bool lo_in = k_ok && lo_ok, hi_in = k_ok && hi_ok;
    copy_16(slot(stage, 0), lo_in ? b_lo + s * b_step : p.b, lo_in);
    copy_16(slot(stage, 1), hi_in ? b_lo + b_hi + s * b_step : p.b, hi_in);
    copy_commit();
  };
  // Scale pairs of the ring's steps (registers: two bytes each).
  uint32_t sc_lo[C::kStages], sc_hi[C::kStages];
  auto issue_scales = [&](int s, int stage) {
    const bool k_ok = s < steps;
    sc_lo[stage] = s_lo.load(s, k_ok && lo_ok);
    sc_hi[stage] = s_lo.load(s, k_ok && hi_ok, hi_ok ? s_hi : 0);
  };

  // Tokens of one step: token g of each n8 tile, 32 elements (and NVFP4
  // tokens' two scale bytes); two register buffers, the next step's loads in
  // flight while this one computes.
  struct Tokens {
    uint4 x[C::kTokenTiles][kA16 ? 4 : 1];
    uint32_t xs[C::kTokenTiles];
  };
  auto load_tokens = [&](Tokens& w, int s, const ScaleStream (&xs)[C::kTokenTiles]) {
    const bool k_ok = s < steps;
#pragma unroll
    for (int j = 0; j < C::kTokenTiles; ++j) {
      const bool ok = k_ok && m_ok[j];
      const uint8_t* src = a_row[j] + s * a_step;
#pragma unroll
      for (int i = 0; i < (kA16 ? 4 : 1); ++i) w.x[j][i] = load_token_16(src + i * sizeof(uint4), ok);
      if constexpr (!kA16) w.xs[j] = xs[j].load(s, ok);
    }
  };

  float acc[C::kTokenTiles][4];
#pragma unroll
  for (int j = 0; j < C::kTokenTiles; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[j][r] = 0.f;

  // One step's MMAs. Word i of a lane's 16 bytes (elements 8i .. 8i+7,
  // scale block i / 2) gives pairs (r, r + 4): the A slots of two MMA steps,
  // the tokens' same pairs their B slots.
  auto compute = [&](const uint4& w_lo, const uint4& w_hi, uint32_t s_lo_pair, uint32_t s_hi_pair, const Tokens& x) {
    const uint32_t wl[kWords] = {w_lo.x, w_lo.y, w_lo.z, w_lo.w};
    const uint32_t wh[kWords] = {w_hi.x, w_hi.y, w_hi.z, w_hi.w};
    const uint32_t sl = placed_scale_pair<kBf16>(s_lo_pair), sh = placed_scale_pair<kBf16>(s_hi_pair);
    uint32_t xsp[C::kTokenTiles];
    if constexpr (!kA16)
#pragma unroll
      for (int j = 0; j < C::kTokenTiles; ++j) xsp[j] = placed_scale_pair<kBf16>(x.xs[j]);
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      uint32_t lo[4], hi[4];  // rows g, g + 8: pairs (8i + r, 8i + r + 4)
      decode_e2m1x8_split<kBf16>(wl[i], sl, i / 2, lo);
      decode_e2m1x8_split<kBf16>(wh[i], sh, i / 2, hi);
#pragma unroll
      for (int j = 0; j < C::kTokenTiles; ++j) {
        uint32_t b[4];
        if constexpr (kA16) {
          token_pairs_split(x.x[j][i], b);
        } else {
          const uint32_t words[kWords] = {x.x[j][0].x, x.x[j][0].y, x.x[j][0].z, x.x[j][0].w};
          decode_e2m1x8_split<kBf16>(words[i], xsp[j], i / 2, b);
        }
        hmma_step<kBf16>(acc[j], lo[0], hi[0], lo[1], hi[1], b[0], b[1]);
        hmma_step<kBf16>(acc[j], lo[2], hi[2], lo[3], hi[3], b[2], b[3]);
      }
    }
  };

  // kStages - 1 steps of weights and scales go out before
  // griddepcontrol.wait (weights never depend on the previous kernel), the
  // tokens after it. Step s then issues step s + kStages - 1 and waits for
  // its own copies only.
#pragma unroll
  for (int st = 0; st < C::kStages - 1; ++st) {
    issue_weights(st, st);
    issue_scales(st, st);
  }
#if FP8KIT_HAS_GRID_DEPENDENCY
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  // NVFP4 tokens' scale streams (A16: unused).
  ScaleStream xs[C::kTokenTiles];
  if constexpr (!kA16)
#pragma unroll
    for (int j = 0; j < C::kTokenTiles; ++j)
      xs[j] = ScaleStream::of(p.a_scale, p.a_scale_layout, p.a_scale_row0 + (m_ok[j] ? m0 + 8 * j + g : 0), kb0,
                              p.k_blocks, warps_k);
  Tokens tk[2];
  load_tokens(tk[0], 0, xs);
  for (int s0 = 0; s0 < warp_steps; s0 += C::kStages) {
#pragma unroll
    for (int i = 0; i < C::kStages; ++i) {
      const int s = s0 + i;
      if (s >= warp_steps) break;
      constexpr int kAhead = C::kStages - 1;
      const int ahead = (i + kAhead) % C::kStages;  // the stage step s - 1 freed
      issue_weights(s + kAhead, ahead);
      issue_scales(s + kAhead, ahead);
      if (s + 1 < warp_steps) load_tokens(tk[(i + 1) % 2], s + 1, xs);
      copy_wait<C::kStages - 1>();
      compute(read_slot(i, 0), read_slot(i, 1), sc_lo[i], sc_hi[i], tk[i % 2]);
    }
  }
  copy_wait<0>();  // the copies issued past the last step (zero-fill) drain before the CTA ends

  // ---- The K split's partial sums, then alpha, bias and pairs of D --------
  // acc[j]: (row g, token 2t), (row g, token 2t + 1), (row g + 8, ...) of tile j.
  float* red = reinterpret_cast<float*>(smem);
  auto red_at = [&](int k_warp, int token, int row) { return red + (k_warp * C::kTokens + token) * rows + row; };
#pragma unroll
  for (int j = 0; j < C::kTokenTiles; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) *red_at(wk, 8 * j + 2 * t + (r & 1), 16 * wn + g + 8 * (r >> 1)) = acc[j][r];
  __syncthreads();
#if FP8KIT_HAS_GRID_DEPENDENCY
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  // Every decoded operand carries 2^-kPlacedExponent (nvfp4_placed.cuh).
  constexpr float kUnplace = static_cast<float>(1 << (kPlacedExponent * (kA16 ? 1 : 2)));
  const float alpha = p.alpha ? *p.alpha : 1.f;
  for (int pair_id = threadIdx.x; pair_id < C::kTokens * rows / 2; pair_id += C::kThreads) {
    const int token = pair_id / (rows / 2);
    const int row = 2 * (pair_id % (rows / 2));
    const int m = m0 + token, n = n0 + row;
    if (m >= p.m || n >= p.n) continue;
    float v0 = 0.f, v1 = 0.f;
    for (int w = 0; w < warps_k; ++w) {
      v0 += *red_at(w, token, row);
      v1 += *red_at(w, token, row + 1);
    }
    v0 *= kUnplace;
    v1 *= kUnplace;
    const bool pair = n + 1 < p.n;
    float bias0 = 0.f, bias1 = 0.f;
    if (p.bias) {
      bias0 = mma_sync::load_bias(p.bias, p.bias_type, n);
      bias1 = pair ? mma_sync::load_bias(p.bias, p.bias_type, n + 1) : 0.f;
    }
    mma_sync::store_out(p.d, p.d_type, static_cast<int64_t>(m) * p.ldd + n, v0 * alpha + bias0,
                        v1 * alpha + bias1, pair);
  }
}

#endif  // FP8KIT_ARCH_IN(any)

}  // namespace fp8kit::nvfp4
