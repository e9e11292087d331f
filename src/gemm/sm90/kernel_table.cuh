// The launchable instances of the native Hopper kernel, shared by the dense
// (path.cu) and grouped (grouped_path.cu) paths: per tile, one entry per
// pair of operand types, with its name and its dynamic shared memory.
// Host code of the sm90 family's sources only.
#pragma once

#include <algorithm>

#include "fp8kit/fp8kit.h"
#include "gemm/sm90/kernel.cuh"
#include "gemm/sm90/shared_storage.hpp"

namespace fp8kit::sm90 {

using KernelFn = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, KernelArgs);

struct Kernel {
  KernelFn fn;
  const char* name;
  int smem;
};

template <Tile T, fp8kit_dtype TX, fp8kit_dtype TY>
constexpr Kernel kernel_entry(const char* name) {
  return {&sm90_fp8_gemm_kernel<T, TX, TY>, name, smem_bytes<T>()};
}

// The largest shared memory over a table's tiles (the operand types do not change it).
template <int kRows>
int max_smem(const Kernel (&table)[kRows][2][2]) {
  int s = 0;
  for (const auto& t : table) s = std::max(s, t[0][0].smem);
  return s;
}

}  // namespace fp8kit::sm90

// One tile's row of a kernel table, [X type][Y type] (X is A, or B in
// swapped tiles), named PREFIX "<" TNAME ",x,y>".
#define FP8KIT_SM90_KERNEL_ROW(T, PREFIX, TNAME)                                                                \
  {                                                                                                             \
    {::fp8kit::sm90::kernel_entry<T, FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E4M3>(PREFIX "<" TNAME ",e4m3,e4m3>"),     \
     ::fp8kit::sm90::kernel_entry<T, FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E5M2>(PREFIX "<" TNAME ",e4m3,e5m2>")},    \
    {::fp8kit::sm90::kernel_entry<T, FP8KIT_DTYPE_E5M2, FP8KIT_DTYPE_E4M3>(PREFIX "<" TNAME ",e5m2,e4m3>"),     \
     ::fp8kit::sm90::kernel_entry<T, FP8KIT_DTYPE_E5M2, FP8KIT_DTYPE_E5M2>(PREFIX "<" TNAME ",e5m2,e5m2>")},    \
  }
