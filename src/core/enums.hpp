// Public enums arrive from C, where any int fits in them. In C++ loading a
// value outside an enum's range is undefined (UBSan flags it), so entry points
// read them as int until they are checked, and print unknown ones as numbers.
#pragma once

#include <cstring>
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

// "bf16", or "99" for a value that names no dtype (likewise for the others).
std::string dtype_text(int v);
std::string scale_mode_text(int v);

}  // namespace fp8kit
