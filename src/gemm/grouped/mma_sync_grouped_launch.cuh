// Host side of the portable grouped FP8 GEMM, shared by its two kernel
// families (sm89_grouped_gemm.cu: Fp8Mma, sm75_grouped_gemm.cu: F16Mma). The
// kernels are the 8 variants of (A dtype, B dtype, block scales)
// (gemm/mma_sync_variants.hpp), in a table generated from them.
#pragma once

#include <array>
#include <climits>
#include <string>
#include <utility>

#include "gemm/dispatch.hpp"
#include "gemm/grouped/mma_sync_grouped_gemm.cuh"
#include "gemm/mma_sync_variants.hpp"

namespace fp8kit::mma_sync {

using GroupedKernelFn = void (*)(GroupedParams);

// `prefix` names the family in kernel names ("sm89_grouped_gemm").
template <template <fp8kit_dtype, fp8kit_dtype> class Mma>
struct GroupedFamily {
  template <int kVariant>
  static constexpr GroupedKernelFn kernel_at() {
    return &fp8_grouped_gemm_kernel<Mma, variant_a(kVariant), variant_b(kVariant), variant_block(kVariant)>;
  }
  template <int... I>
  static constexpr std::array<GroupedKernelFn, kVariants> kernels_of(std::integer_sequence<int, I...>) {
    return {kernel_at<I>()...};
  }
  // table[variant]
  static constexpr std::array<GroupedKernelFn, kVariants> kTable =
      kernels_of(std::make_integer_sequence<int, kVariants>{});

  static const char* kernel_name(const char* prefix, int variant) {
    static const std::array<std::string, kVariants> names = [prefix] {
      std::array<std::string, kVariants> n;
      for (int v = 0; v < kVariants; ++v) n[v] = variant_name(prefix, nullptr, v);
      return n;
    }();
    return names[variant].c_str();
  }

  static int variant_of(const GroupedParams& g) {
    const GemmParams& p = g.dense;
    return variant_index(p.a_type, p.b_type, p.a_scale_mode == FP8KIT_SCALE_BLOCK);
  }

  // CTAs: every M slot (grouped_m_slots) times every N tile; -1 past 2^31 - 1.
  static long long grid_size(const GroupedParams& g) {
    const long long ctas = grouped_m_slots(g, Tile::kBlockM) * ceil_div(g.dense.n, Tile::kBlockN);
    return ctas > INT_MAX ? -1 : ctas;
  }

  static bool accepts(const GroupedParams& g, const DeviceInfo& dev, std::string* why) {
    if (Tile::kSmemBytes > dev.smem_per_block_optin) {
      if (why)
        *why = "the portable kernel needs " + std::to_string(Tile::kSmemBytes) +
               " bytes of shared memory per block; the device offers " + std::to_string(dev.smem_per_block_optin);
      return false;
    }
    if (grid_size(g) < 0) {
      if (why) *why = "the M slots x N tiles of 128 x 128 exceed 2^31 - 1 CTAs";
      return false;
    }
    return true;
  }

  static cudaError_t launch(const char* prefix, const GroupedParams& g, cudaStream_t stream,
                            const char** kernel_name_out) {
    const int variant = variant_of(g);
    const GroupedKernelFn fn = kTable[variant];
    *kernel_name_out = kernel_name(prefix, variant);
    const long long ctas = grid_size(g);
    if (ctas == 0) return cudaSuccess;  // no rows at all (T = 0 or max_m = 0)
    cudaError_t err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile::kSmemBytes);
    if (err != cudaSuccess) return err;
    fn<<<static_cast<unsigned>(ctas), Tile::kThreads, Tile::kSmemBytes, stream>>>(g);
    return cudaGetLastError();
  }

  static const void* probe() { return reinterpret_cast<const void*>(kTable[0]); }
};

}  // namespace fp8kit::mma_sync
