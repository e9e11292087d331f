// The launchable instances of the native Hopper kernel, generated from the
// tile table (tile_config.hpp): per problem kind, one entry per shape and
// pair of operand types, with its dynamic shared memory; a shape not
// instantiated for the kind has a null entry, which no plan selects (the
// plans pick shapes of their kind; kernel_for refuses the rest). Host code
// of the sm90 family's sources only.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "fp8kit/fp8kit.h"
#include "gemm/sm90/kernel.cuh"
#include "gemm/sm90/shared_storage.hpp"

namespace fp8kit::sm90 {

using KernelFn = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, KernelArgs);

struct Kernel {
  KernelFn fn;  // null: the shape is not instantiated for the kind
  int smem;
};

constexpr fp8kit_dtype kOperandTypes[2] = {FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E5M2};
constexpr int type_slot(fp8kit_dtype t) { return t == FP8KIT_DTYPE_E5M2 ? 1 : 0; }

template <Kind K, Shape S, int kTx, int kTy>
constexpr Kernel entry() {
  if constexpr (instantiated(S, K)) {
    using Cfg = TileConfig<S, K>;
    return {&sm90_fp8_gemm_kernel<Cfg, kOperandTypes[kTx], kOperandTypes[kTy]>, smem_bytes<Cfg>()};
  } else {
    return {nullptr, 0};
  }
}

// [shape][X type slot][Y type slot] (X is A, or B in swapped tiles).
using KernelTable = std::array<std::array<std::array<Kernel, 2>, 2>, kShapeCount>;

template <Kind K, int... I>
constexpr KernelTable make_table(std::integer_sequence<int, I...>) {
  return {{{{{{entry<K, static_cast<Shape>(I), 0, 0>(), entry<K, static_cast<Shape>(I), 0, 1>()}},
             {{entry<K, static_cast<Shape>(I), 1, 0>(), entry<K, static_cast<Shape>(I), 1, 1>()}}}}...}};
}

template <Kind K>
inline constexpr KernelTable kKernels = make_table<K>(std::make_integer_sequence<int, kShapeCount>{});

// The kernel of a plan's shape and the X / Y operand types; null when the
// shape is not instantiated for the kind.
template <Kind K>
const Kernel* kernel_for(Shape s, fp8kit_dtype tx, fp8kit_dtype ty) {
  const Kernel& k = kKernels<K>[static_cast<int>(s)][type_slot(tx)][type_slot(ty)];
  return k.fn ? &k : nullptr;
}

// "sm90_fp8_gemm<128x64,swap,e4m3,e5m2>", "sm90_grouped_gemm<...>": names for
// messages, built once per kind.
template <Kind K>
const char* kernel_name(Shape s, fp8kit_dtype tx, fp8kit_dtype ty) {
  static const auto names = [] {
    std::array<std::array<std::array<std::string, 2>, 2>, kShapeCount> n;
    const char* prefix = K == Kind::kDense ? "sm90_fp8_gemm" : "sm90_grouped_gemm";
    for (int i = 0; i < kShapeCount; ++i)
      for (int x = 0; x < 2; ++x)
        for (int y = 0; y < 2; ++y)
          n[i][x][y] = std::string(prefix) + "<" + kShapes[i].name + "," + fp8kit_dtype_name(kOperandTypes[x]) + "," +
                       fp8kit_dtype_name(kOperandTypes[y]) + ">";
    return n;
  }();
  return names[static_cast<int>(s)][type_slot(tx)][type_slot(ty)].c_str();
}

// The largest shared memory over a kind's kernels (the operand types do not change it).
template <Kind K>
constexpr int max_smem() {
  int s = 0;
  for (const auto& per_shape : kKernels<K>) s = std::max(s, per_shape[0][0].smem);
  return s;
}

}  // namespace fp8kit::sm90
