// Integer and pointer arithmetic every layer shares (host code; constexpr, so
// device code compiled with --expt-relaxed-constexpr may use it too).
#pragma once

#include <cstdint>

namespace fp8kit {

// Tiles of `b` that cover `a` (a >= 0, b > 0).
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
// `a` rounded up to a multiple of `b`.
constexpr int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

inline bool is_aligned(const void* p, int64_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

}  // namespace fp8kit
