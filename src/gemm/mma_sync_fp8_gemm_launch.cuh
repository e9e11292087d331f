// Host side of the portable FP8 GEMM, shared by its two kernel families
// (sm75_fp8_gemm.cu: F16Mma, sm89_fp8_gemm.cu: Fp8Mma). Each family's source
// includes this once with its policy; the kernels it instantiates are the
// 8 combinations of (A dtype, B dtype, block scales) for that policy.
#pragma once

#include <climits>
#include <string>

#include "gemm/dispatch.hpp"
#include "gemm/mma_sync_fp8_gemm.cuh"

namespace fp8kit::mma_sync {

using KernelFn = void (*)(GemmParams);

template <template <fp8kit_dtype, fp8kit_dtype> class Mma>
struct Family {
  struct Entry {
    KernelFn fn;
    const char* name;
  };

  template <fp8kit_dtype TA, fp8kit_dtype TB, bool kBlock>
  static constexpr Entry entry(const char* name) {
    return Entry{&fp8_gemm_kernel<Mma, TA, TB, kBlock>, name};
  }

  // Index: (a is e5m2) * 4 + (b is e5m2) * 2 + block.
  static const Entry& select(const GemmParams& p, const Entry (&table)[8]) {
    const int idx = (p.a_type == FP8KIT_DTYPE_E5M2) * 4 + (p.b_type == FP8KIT_DTYPE_E5M2) * 2 +
                    (p.a_scale_mode == FP8KIT_SCALE_BLOCK);
    return table[idx];
  }

  static int grid_size(const GemmParams& p) {
    const long long tiles_m = (p.m + Tile::kBlockM - 1) / Tile::kBlockM;
    const long long tiles_n = (p.n + Tile::kBlockN - 1) / Tile::kBlockN;
    const long long tiles = tiles_m * tiles_n;
    return tiles > INT_MAX ? -1 : static_cast<int>(tiles);
  }

  static bool accepts(const GemmParams& p, const DeviceInfo& dev, std::string* why) {
    if (Tile::kSmemBytes > dev.smem_per_block_optin) {
      if (why)
        *why = "the portable kernel needs " + std::to_string(Tile::kSmemBytes) +
               " bytes of shared memory per block; the device offers " + std::to_string(dev.smem_per_block_optin);
      return false;
    }
    if (grid_size(p) < 0) {
      if (why) *why = "M x N needs more than 2^31 - 1 tiles of 128 x 128";
      return false;
    }
    return true;
  }

  static cudaError_t launch(const GemmParams& p, const Entry (&table)[8], cudaStream_t stream,
                            const char** kernel_name) {
    const Entry& e = select(p, table);
    *kernel_name = e.name;
    // Opting in above 48 KiB is per kernel and per device; it is idempotent
    // and cheap, so it is done on every launch rather than cached per device.
    cudaError_t err = cudaFuncSetAttribute(e.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile::kSmemBytes);
    if (err != cudaSuccess) return err;
    e.fn<<<grid_size(p), Tile::kThreads, Tile::kSmemBytes, stream>>>(p);
    return cudaGetLastError();
  }
};

}  // namespace fp8kit::mma_sync
