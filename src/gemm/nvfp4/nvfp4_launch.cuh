// Host side of the NVFP4 GEMM, shared by its kernel families
// (nvfp4_hmma_gemm.cu, nvfp4_hmma_bf16_gemm.cu, nvfp4_sm120_gemm.cu): per
// policy and A kind, the dense and grouped kernels of each tile shape in
// tables generated from the template parameters, the tile choice and the
// launch.
#pragma once

#include <array>
#include <climits>
#include <string>

#include "gemm/nvfp4/nvfp4_paths.hpp"
#include "gemm/nvfp4/nvfp4_tile.cuh"

namespace fp8kit::nvfp4 {

using DenseFn = void (*)(Nvfp4Params);
using GroupedFn = void (*)(Nvfp4GroupedParams);

// `kName` names the family and A kind in kernel names ("hmma_f16").
template <class Policy, bool kA16>
struct Family {
  static constexpr std::array<DenseFn, kTileCount> kDense = {&nvfp4_gemm_kernel<TileId::M16N64, Policy, kA16>,
                                                             &nvfp4_gemm_kernel<TileId::M128N128, Policy, kA16>};
  static constexpr std::array<GroupedFn, kTileCount> kGrouped = {
      &nvfp4_grouped_gemm_kernel<TileId::M16N64, Policy, kA16>,
      &nvfp4_grouped_gemm_kernel<TileId::M128N128, Policy, kA16>};

  static const char* name(const char* kind, const char* policy, int tile) {
    static const std::array<std::string, kTileCount> names = [&] {
      std::array<std::string, kTileCount> n;
      for (int t = 0; t < kTileCount; ++t) n[t] = std::string(kind) + "<" + kTileShapes[t].name + "," + policy + ">";
      return n;
    }();
    return names[tile].c_str();
  }

  // Rows an expert can have: masked max_m, contiguous T / E rounded up.
  static int64_t grouped_rows(const Nvfp4GroupedParams& g) {
    return g.layout == FP8KIT_GROUPED_MASKED ? g.rows : ceil_div(g.rows, g.experts);
  }

  static int64_t dense_ctas(const Nvfp4Params& p, const TileShape& t) {
    return ceil_div(p.m, t.block_m) * ceil_div(p.n, t.block_n);
  }
  static int64_t grouped_ctas(const Nvfp4GroupedParams& g, const TileShape& t) {
    return nvfp4_grouped_m_slots(g, t.block_m) * ceil_div(g.dense.n, t.block_n);
  }

  static bool fits(int tile, int64_t ctas, const DeviceInfo& dev, std::string* why) {
    if (tile < 0) {
      if (why)
        *why = "the NVFP4 kernel needs " + std::to_string(kTileShapes[0].smem_bytes(kA16)) +
               " bytes of shared memory per block; the device offers " + std::to_string(dev.smem_per_block_optin);
      return false;
    }
    if (ctas > INT_MAX) {
      if (why) *why = "the problem needs more than 2^31 - 1 CTAs of " + std::string(kTileShapes[tile].name);
      return false;
    }
    return true;
  }

  static bool takes_dense(const Nvfp4Params& p, const DeviceInfo& dev, std::string* why) {
    const int tile = choose_tile(p.m, kA16, dev);
    return fits(tile, tile < 0 ? 0 : dense_ctas(p, kTileShapes[tile]), dev, why);
  }
  static bool takes_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, std::string* why) {
    const int tile = choose_tile(grouped_rows(g), kA16, dev);
    return fits(tile, tile < 0 ? 0 : grouped_ctas(g, kTileShapes[tile]), dev, why);
  }

  template <class Fn, class P>
  static cudaError_t start(Fn fn, const TileShape& t, int64_t ctas, const P& p, cudaStream_t stream) {
    if (ctas == 0) return cudaSuccess;  // grouped: no rows at all
    const int smem = t.smem_bytes(kA16);
    cudaError_t err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess) return err;
    fn<<<static_cast<unsigned>(ctas), t.threads(), smem, stream>>>(p);
    return cudaGetLastError();
  }

  static cudaError_t launch_dense(const char* policy, const Nvfp4Params& p, const DeviceInfo& dev,
                                  cudaStream_t stream, const char** kernel) {
    const int tile = choose_tile(p.m, kA16, dev);
    *kernel = name("nvfp4_gemm", policy, tile);
    return start(kDense[tile], kTileShapes[tile], dense_ctas(p, kTileShapes[tile]), p, stream);
  }
  static cudaError_t launch_grouped(const char* policy, const Nvfp4GroupedParams& g, const DeviceInfo& dev,
                                    cudaStream_t stream, const char** kernel) {
    const int tile = choose_tile(grouped_rows(g), kA16, dev);
    *kernel = name("nvfp4_grouped_gemm", policy, tile);
    return start(kGrouped[tile], kTileShapes[tile], grouped_ctas(g, kTileShapes[tile]), g, stream);
  }

  static const void* probe() { return reinterpret_cast<const void*>(kDense[0]); }
};

}  // namespace fp8kit::nvfp4
