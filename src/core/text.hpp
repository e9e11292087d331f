// Text forms of numbers that messages and reports share: the library, the
// auditor (which links no CUDA) and the programs. Header-only, no CUDA.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace fp8kit {

// "0x1f": offsets and addresses in messages.
inline std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

// "9.0" for capability 90 (10 * major + minor).
inline std::string capability_text(int cap) { return std::to_string(cap / 10) + "." + std::to_string(cap % 10); }

}  // namespace fp8kit
