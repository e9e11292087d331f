// The NVFP4 decode tile (M <= 16 tokens): a weight stream, not a CTA tile.
//
// Decode reads each packed weight once and does 2 M flops per weight, so the
// tile is shaped by bytes in flight, not by reuse: no shared-memory staging of
// B, every lane loads its weights straight into registers (16-byte loads,
// kUnroll K chunks at a time), decodes them exactly to f16 / bf16 and runs
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
// one scale block) becomes the A pairs of MMA steps 2i and 2i + 1, the token's
// elements 8i .. 8i+7 their B pairs: both operands see one permutation of K,
// so the dot product is the GEMM's. A chunk past K, a row past N and a token
// past M load nothing and contribute zeros (K % 32 == 0: a lane's granule is
// in or out whole).
//
// The warps_k partial sums meet in shared memory:
//   sRed: (warps_k, kTokens, 16 warps_n) f32, 128 kTokens floats whatever the
//   split; the CTA then adds them, applies alpha and bias and stores pairs of
//   D along N.
// Two groups of kUnroll chunks (weights and tokens) live in registers: one
// computes while the next one's loads are in flight. With programmatic
// launch (SM90+) the first group's weights go out before griddepcontrol.wait, as the FP8 path's
// weight tiles do: the weights must not be written by the kernel before in
// the stream; tokens, alpha, bias and D wait.
#pragma once

#include "gemm/nvfp4/nvfp4_gemm.cuh"

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
  static constexpr int kUnroll = kShape.stages;  // K chunks in flight per lane
  static constexpr int kThreads = kShape.threads();
  static constexpr int kMinBlocks = kShape.min_blocks;
  static constexpr int kSmemBytes = kShape.smem_bytes(kA16);
  static constexpr int kGroupM = 8;  // grouped rasterisation, as the CTA tiles
  static constexpr int kChunkK = TileShape::kDecodeChunkK;
  static constexpr int kLaneK = kChunkK / 4;  // elements per lane per row and chunk
  static_assert(kBlockN == kWarpRows && kTokens % 8 == 0, "16 rows per warp, n8 token tiles");
  static_assert(kLaneK == 32 && kLaneK % kKGranule == 0, "a lane's share of a chunk is one K granule");
};

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

// 16 bytes from global memory, read-only path, not kept in L1 (weights are
// read once); zeros when !valid.
__device__ __forceinline__ uint4 load_stream_16(const uint8_t* src, bool valid) {
  uint4 v = make_uint4(0, 0, 0, 0);
  if (valid)
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(src));
  return v;
}

// 16 bytes of tokens (re-read by the CTA's other row groups: through L1).
__device__ __forceinline__ uint4 load_token_16(const uint8_t* src, bool valid) {
  return valid ? __ldg(reinterpret_cast<const uint4*>(src)) : make_uint4(0, 0, 0, 0);
}

// Scale bytes of blocks kb and kb + 1 (kb even) of `row`, byte 0 = block kb.
__device__ __forceinline__ uint32_t load_scale_pair(const uint8_t* scales, int layout, int64_t row, int kb,
                                                    int k_blocks) {
  if (is_swizzled(layout)) {
    // kb % 4 is 0 or 2: the pair is one aligned 16-bit word of a 512-byte tile.
    const int64_t off = swizzled_offset(row, kb, round_up(k_blocks, kTileBlocks));
    return __ldg(reinterpret_cast<const uint16_t*>(scales + off));
  }
  const uint8_t* p = scales + linear_offset(row, kb, k_blocks);  // any alignment
  return static_cast<uint32_t>(__ldg(p)) | static_cast<uint32_t>(__ldg(p + 1)) << 8;
}

// The 8 16-bit pairs of a token's 32 elements (a lane's share of one chunk):
// pairs 4i .. 4i + 3 are elements 8i .. 8i + 7.
template <bool kA16, bool kBf16>
__device__ __forceinline__ void token_pairs(const uint4 (&raw)[4], uint32_t scales, uint32_t (&out)[16]) {
  if constexpr (kA16) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      out[4 * i] = raw[i].x;
      out[4 * i + 1] = raw[i].y;
      out[4 * i + 2] = raw[i].z;
      out[4 * i + 3] = raw[i].w;
    }
  } else {
    const uint32_t w[4] = {raw[0].x, raw[0].y, raw[0].z, raw[0].w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      uint32_t q[4];
      decode_e2m1x8<kBf16>(w[i], scale_of(scales, i / 2), q);
#pragma unroll
      for (int r = 0; r < 4; ++r) out[4 * i + r] = q[r];
    }
  }
}

// Tokens m0 .. m0 + kTokens - 1 x rows n0 .. n0 + 16 p.decode_warps_n - 1 of
// problem p.
// smem: DecodeConfig::kSmemBytes. Launched programmatically or not: without
// the attribute griddepcontrol.wait returns at once.
template <class Policy, TileId kTile, bool kA16>
__device__ __forceinline__ void decode_tile(const Nvfp4Params& p, int m0, int n0, uint8_t* smem) {
  using C = DecodeConfig<kTile, kA16>;
  constexpr bool kBf16 = Policy::kBf16Operands;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps_n = p.decode_warps_n, warps_k = C::kWarps / warps_n;
  const int rows = C::kWarpRows * warps_n;
  const int wn = warp % warps_n;
  const int wk = warp / warps_n;
  const int g = lane >> 2, t = lane & 3;
  const int chunks = (p.k + C::kChunkK - 1) / C::kChunkK;
  const int64_t a_row_bytes = kA16 ? p.lda * 2 : p.lda;

  const int row_lo = n0 + 16 * wn + g;  // rows g and g + 8 of this warp's 16
  const int row_hi = row_lo + 8;
  const uint8_t* b_lo = p.b + static_cast<int64_t>(row_lo) * p.ldb;
  const uint8_t* b_hi = p.b + static_cast<int64_t>(row_hi) * p.ldb;
  // Lane t's granule of chunk c starts at element kChunkK c + kLaneK t.
  auto granule = [&](int c) { return C::kChunkK * c + C::kLaneK * t; };
  auto in_k = [&](int c) { return c < chunks && granule(c) < p.k; };

  // One group: kUnroll chunks c0, c0 + warps_k, ... of this warp, its
  // weights and its tokens.
  struct Group {
    uint4 lo[C::kUnroll], hi[C::kUnroll];  // rows g, g + 8: 32 packed elements each
    uint32_t s_lo[C::kUnroll], s_hi[C::kUnroll];  // their two scale bytes
    uint4 x[C::kUnroll][C::kTokenTiles][4];       // token g of each n8 tile: 32 elements
    uint32_t xs[C::kUnroll][C::kTokenTiles];      // NVFP4 tokens: their two scale bytes
  };
  auto load_weights = [&](Group& w, int c0) {
#pragma unroll
    for (int u = 0; u < C::kUnroll; ++u) {
      const int c = c0 + u * warps_k;
      const bool k_ok = in_k(c);
      const int k = granule(c);
      const int64_t byte = k / kElementsPerByte;
      const bool lo_ok = k_ok && row_lo < p.n, hi_ok = k_ok && row_hi < p.n;
      w.lo[u] = load_stream_16(b_lo + byte, lo_ok);
      w.hi[u] = load_stream_16(b_hi + byte, hi_ok);
      w.s_lo[u] = lo_ok ? load_scale_pair(p.b_scale, p.b_scale_layout, row_lo, k / kBlock, p.k_blocks) : 0u;
      w.s_hi[u] = hi_ok ? load_scale_pair(p.b_scale, p.b_scale_layout, row_hi, k / kBlock, p.k_blocks) : 0u;
    }
  };
  auto load_tokens = [&](Group& w, int c0) {
#pragma unroll
    for (int u = 0; u < C::kUnroll; ++u) {
      const int c = c0 + u * warps_k;
      const bool k_ok = in_k(c);
      const int k = granule(c);
#pragma unroll
      for (int j = 0; j < C::kTokenTiles; ++j) {
        const int m = m0 + 8 * j + g;
        const bool ok = k_ok && m < p.m;
        const uint8_t* row = p.a + static_cast<int64_t>(ok ? m : 0) * a_row_bytes;
        if constexpr (kA16) {
#pragma unroll
          for (int i = 0; i < 4; ++i) w.x[u][j][i] = load_token_16(row + 2 * (k + 8 * i), ok);
          w.xs[u][j] = 0u;
        } else {
          w.x[u][j][0] = load_token_16(row + k / kElementsPerByte, ok);
          w.xs[u][j] =
              ok ? load_scale_pair(p.a_scale, p.a_scale_layout, p.a_scale_row0 + m, k / kBlock, p.k_blocks) : 0u;
        }
      }
    }
  };

  float acc[C::kTokenTiles][4];
#pragma unroll
  for (int j = 0; j < C::kTokenTiles; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[j][r] = 0.f;

  // A loaded group's MMAs.
  auto compute = [&](const Group& w) {
#pragma unroll
    for (int u = 0; u < C::kUnroll; ++u) {
      const uint32_t wl[4] = {w.lo[u].x, w.lo[u].y, w.lo[u].z, w.lo[u].w};
      const uint32_t wh[4] = {w.hi[u].x, w.hi[u].y, w.hi[u].z, w.hi[u].w};
      uint32_t b[C::kTokenTiles][16];
#pragma unroll
      for (int j = 0; j < C::kTokenTiles; ++j) token_pairs<kA16, kBf16>(w.x[u][j], w.xs[u][j], b[j]);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        uint32_t lo[4], hi[4];  // rows g, g + 8: pairs of elements 8i .. 8i + 7
        decode_e2m1x8<kBf16>(wl[i], scale_of(w.s_lo[u], i / 2), lo);
        decode_e2m1x8<kBf16>(wh[i], scale_of(w.s_hi[u], i / 2), hi);
#pragma unroll
        for (int j = 0; j < C::kTokenTiles; ++j) {
          hmma_step<kBf16>(acc[j], lo[0], hi[0], lo[1], hi[1], b[j][4 * i], b[j][4 * i + 1]);
          hmma_step<kBf16>(acc[j], lo[2], hi[2], lo[3], hi[3], b[j][4 * i + 2], b[j][4 * i + 3]);
        }
      }
    }
  };

  // Two groups in registers: the next one's loads (weights and tokens) are in
  // flight while the current one computes, so neither the weights' memory
  // latency nor the tokens' L2 latency is waited for once per group. The
  // first group's weights go out before griddepcontrol.wait (weights never
  // depend on the previous kernel), its tokens after.
  const int step = warps_k * C::kUnroll;
  Group g0, g1;
  load_weights(g0, wk);
#if FP8KIT_HAS_GRID_DEPENDENCY
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  load_tokens(g0, wk);
  for (int c0 = wk; c0 < chunks; c0 += 2 * step) {
    if (c0 + step < chunks) {
      load_weights(g1, c0 + step);
      load_tokens(g1, c0 + step);
    }
    compute(g0);
    if (c0 + step >= chunks) break;
    if (c0 + 2 * step < chunks) {
      load_weights(g0, c0 + 2 * step);
      load_tokens(g0, c0 + 2 * step);
    }
    compute(g1);
  }

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
