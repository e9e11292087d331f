// The Hopper NVFP4 W4A16 grouped GEMM kernel (sm_90a): the prefill kernel's
// CTA (run_cta, nvfp4_sm90_kernel.cuh) over (expert, token tile, weight tile)
// triples that each CTA finds on the device (gemm/grouped/expert_tiles.cuh),
// so no group size reaches the host and a graph replays with new routing.
//
// Grid: 1-D, nvfp4_grouped_m_slots(g, kBlockT) token slots x ceil(N / 128)
// weight tiles, weight tiles fastest (as the dense kernel: the CTAs resident
// at once share their token tile in L2); a slot past the experts' last tile
// exits. One tensor map holds every expert's tokens (contiguous: the T rows of
// A; masked: E x max_m rows), one every expert's weights ([E x N, K / 2]
// bytes): a tile's boxes start at its expert's rows, and the rows a box
// reaches past the expert's end (the next expert's, or TMA's zero fill past
// the last) are computed and never stored.
#pragma once

// Included in the host pass too: the device pass's expert search brings in
// CUB, whose namespace-scope objects the launch stubs must see alike.
#include "gemm/nvfp4/nvfp4_expert.cuh"
#include "gemm/nvfp4/nvfp4_sm90_kernel.cuh"

namespace fp8kit::nvfp4::sm90w {

// What the expert search needs of the kernel: its threads, token tile (the
// M tile of the group sizes) and shared memory (the search's scratch).
template <Tokens kT>
struct GroupedShape {
  static constexpr int kThreads = sm90w::kThreads;
  static constexpr int kBlockM = TileT<kT>::kBlockT;
  static constexpr int kSmemBytes = TileT<kT>::kSmemBytes;
};

template <Tokens kT, bool kBf16>
__global__ void __launch_bounds__(kThreads, 1)
    nvfp4_sm90_grouped_kernel(const __grid_constant__ CUtensorMap tmap_t, const __grid_constant__ CUtensorMap tmap_w,
                              const Nvfp4GroupedParams g) {
#if FP8KIT_HAS_WGMMA
  extern __shared__ uint8_t smem_raw[];
  const int tiles_w = (g.dense.n + kBlockW - 1) / kBlockW;
  const int slot = static_cast<int>(blockIdx.x) / tiles_w;
  grouped::ExpertTile t;
  if (!grouped::find_expert_tile<GroupedShape<kT>>(g, slot, smem_raw, &t)) return;  // uniform over the CTA
  // The search's generic-proxy writes to shared memory before the TMA's
  // async-proxy writes there (run_cta's barrier orders the two).
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  Nvfp4Params p;
  expert_problem(g, t, &p);
  const TileOrigin o{static_cast<int>(blockIdx.x % tiles_w) * kBlockW, t.tile * TileT<kT>::kBlockT};
  const TileOrigin at{t.expert * g.dense.n + o.w0, static_cast<int>(expert_row0(g, t)) + o.t0};
  run_cta<kT, kBf16>(&tmap_t, &tmap_w, p, o, at, smem_raw);
#endif
}

}  // namespace fp8kit::nvfp4::sm90w
