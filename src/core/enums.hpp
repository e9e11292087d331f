// Public enums arrive from C, where any int fits in them. In C++ loading a
// value outside an enum's range is undefined (UBSan flags it), so entry points
// read them as int until they are checked, and print unknown ones as numbers.
#pragma once

#include <cstring>
#include <iterator>
#include <string>

#include "fp8kit/fp8kit.h"

namespace fp8kit {

template <typename E>
int raw(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "fp8kit enums are 32-bit (FORCE_INT32)");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// Every fp8kit_path, in enum order: a path's value is its index here, so a
// table of kPathCount entries indexed by raw(path) holds each path once.
constexpr fp8kit_path kAllPaths[] = {FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA, FP8KIT_PATH_SM89_MMA,
                                     FP8KIT_PATH_SM75_HMMA, FP8KIT_PATH_SM120_MMA};
constexpr int kPathCount = static_cast<int>(std::size(kAllPaths));

constexpr bool paths_are_dense() {
  for (int i = 0; i < kPathCount; ++i)
    if (static_cast<int>(kAllPaths[i]) != i) return false;
  return true;
}
static_assert(paths_are_dense(), "kAllPaths must list fp8kit_path values 0, 1, 2, ... in order");

constexpr bool is_path(int v) { return v >= 0 && v < kPathCount; }

// "bf16", or "99" for a value that names no dtype (likewise for the others).
std::string dtype_text(int v);
std::string scale_mode_text(int v);

}  // namespace fp8kit
