// Host side of the portable FP8 GEMM, shared by its kernel families
// (sm75_fp8_gemm.cu: F16Mma, sm89_fp8_gemm.cu: Fp8Mma, sm120_fp8_gemm.cu:
// Fp8BlockScaledMma). Each family's source includes this once with its policy
// and the tile shapes it carries; per shape it instantiates the 8 kernels of
// (A dtype, B dtype, block scales), in a table generated from those template
// parameters, so the launch-time lookup cannot disagree with the table.
#pragma once

#include <array>
#include <climits>
#include <string>
#include <utility>

#include "core/environment.hpp"
#include "gemm/dispatch.hpp"
#include "gemm/mma_sync_fp8_gemm.cuh"
#include "gemm/mma_sync_variants.hpp"

namespace fp8kit::mma_sync {

using KernelFn = void (*)(GemmParams);

// `prefix` names the family in kernel names ("sm89_fp8_gemm").
template <template <fp8kit_dtype, fp8kit_dtype> class Mma, TileId... kTiles>
struct Family {
  static constexpr int kTileCount = sizeof...(kTiles);
  static constexpr TileId kCarried[kTileCount] = {kTiles...};

  template <TileId kTile, int kVariant>
  static constexpr KernelFn kernel_at() {
    return &fp8_gemm_kernel<kTile, Mma, variant_a(kVariant), variant_b(kVariant), variant_block(kVariant)>;
  }
  template <TileId kTile, int... I>
  static constexpr std::array<KernelFn, kVariants> kernels_of(std::integer_sequence<int, I...>) {
    return {kernel_at<kTile, I>()...};
  }
  // table[tile slot][variant]
  static constexpr std::array<std::array<KernelFn, kVariants>, kTileCount> kTable = {
      kernels_of<kTiles>(std::make_integer_sequence<int, kVariants>{})...};

  static const char* kernel_name(const char* prefix, int tile, int variant) {
    static const std::array<std::array<std::string, kVariants>, kTileCount> names = [prefix] {
      std::array<std::array<std::string, kVariants>, kTileCount> n;
      for (int t = 0; t < kTileCount; ++t)
        for (int v = 0; v < kVariants; ++v) n[t][v] = variant_name(prefix, tile_shape(kCarried[t]).name, v);
      return n;
    }();
    return names[tile][variant].c_str();
  }

  // A development override of the tile choice (benchmarks, forced GPU tests):
  // FP8KIT_MMA_SYNC_TILE=<TileShape::name> (core/environment.hpp). Unset or
  // unknown: the plan.
  static int tile_override() {
    const std::string& v = environment().mma_sync_tile;
    for (int t = 0; !v.empty() && t < kTileCount; ++t)
      if (v == tile_shape(kCarried[t]).name) return t;
    return -1;
  }

  static int choose(const GemmParams& p, const DeviceInfo& dev) {
    const int forced = tile_override();
    if (forced >= 0 && tile_shape(kCarried[forced]).smem_bytes() <= dev.smem_per_block_optin) return forced;
    // Ties go to more CTAs per SM on every family: measured on the H200
    // (emulated FP8) with ncu, the 4-warp tile beats the 8-warp one by 7-9%
    // (docs/perf/log/2026-12-01-mma-sync-sm12x.md, "mma.sync tiles on the H200, measured with ncu").
    return choose_tile(p.m, p.n, dev, kCarried, kTileCount, CtaPreference::MoreCtas);
  }

  static int64_t grid_size(const GemmParams& p, const TileShape& t) {
    return ceil_div(p.m, t.block_m) * ceil_div(p.n, t.block_n);
  }

  static bool accepts(const GemmParams& p, const DeviceInfo& dev, std::string* why) {
    const int tile = choose(p, dev);
    if (tile < 0) {
      int least = INT_MAX;
      for (TileId id : kCarried) least = tile_shape(id).smem_bytes() < least ? tile_shape(id).smem_bytes() : least;
      if (why)
        *why = "the portable kernel needs " + std::to_string(least) +
               " bytes of shared memory per block; the device offers " + std::to_string(dev.smem_per_block_optin);
      return false;
    }
    const TileShape& t = tile_shape(kCarried[tile]);
    if (grid_size(p, t) > INT_MAX) {
      if (why)
        *why = "M x N needs more than 2^31 - 1 tiles of " + std::to_string(t.block_m) + " x " +
               std::to_string(t.block_n);
      return false;
    }
    return true;
  }

  static cudaError_t launch(const char* prefix, const GemmParams& p, const DeviceInfo& dev, cudaStream_t stream,
                            const char** kernel_name_out) {
    const int tile = choose(p, dev);
    const int variant = variant_index(p.a_type, p.b_type, p.a_scale_mode == FP8KIT_SCALE_BLOCK);
    const TileShape& t = tile_shape(kCarried[tile]);
    const KernelFn fn = kTable[tile][variant];
    *kernel_name_out = kernel_name(prefix, tile, variant);
    // Opting in above 48 KiB is per kernel and per device; it is idempotent
    // and cheap, so it is done on every launch rather than cached per device.
    cudaError_t err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, t.smem_bytes());
    if (err != cudaSuccess) return err;
    fn<<<static_cast<int>(grid_size(p, t)), t.threads(), t.smem_bytes(), stream>>>(p);
    return cudaGetLastError();
  }

  static const void* probe() { return reinterpret_cast<const void*>(kTable[0][0]); }
};

}  // namespace fp8kit::mma_sync
