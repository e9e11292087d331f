// Host side of the portable grouped FP8 GEMM, shared by its two kernel
// families (sm89_grouped_gemm.cu: Fp8Mma, sm75_grouped_gemm.cu: F16Mma). The
// kernels are the 8 combinations of (A dtype, B dtype, block scales).
#pragma once

#include <climits>
#include <string>

#include "gemm/grouped/mma_sync_grouped_gemm.cuh"

namespace fp8kit::mma_sync {

using GroupedKernelFn = void (*)(GroupedParams);

template <template <fp8kit_dtype, fp8kit_dtype> class Mma>
struct GroupedFamily {
  struct Entry {
    GroupedKernelFn fn;
    const char* name;
  };

  template <fp8kit_dtype TA, fp8kit_dtype TB, bool kBlock>
  static constexpr Entry entry(const char* name) {
    return Entry{&fp8_grouped_gemm_kernel<Mma, TA, TB, kBlock>, name};
  }

  // Index: (a is e5m2) * 4 + (b is e5m2) * 2 + block, as for the dense table.
  static const Entry& select(const GroupedParams& g, const Entry (&table)[8]) {
    const GemmParams& p = g.dense;
    const int idx = (p.a_type == FP8KIT_DTYPE_E5M2) * 4 + (p.b_type == FP8KIT_DTYPE_E5M2) * 2 +
                    (p.a_scale_mode == FP8KIT_SCALE_BLOCK);
    return table[idx];
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

  static cudaError_t launch(const GroupedParams& g, const Entry (&table)[8], cudaStream_t stream,
                            const char** kernel_name) {
    const Entry& e = select(g, table);
    *kernel_name = e.name;
    const long long ctas = grid_size(g);
    if (ctas == 0) return cudaSuccess;  // no rows at all (T = 0 or max_m = 0)
    cudaError_t err = cudaFuncSetAttribute(e.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile::kSmemBytes);
    if (err != cudaSuccess) return err;
    e.fn<<<static_cast<unsigned>(ctas), Tile::kThreads, Tile::kSmemBytes, stream>>>(g);
    return cudaGetLastError();
  }
};

}  // namespace fp8kit::mma_sync
