// Argument checks every entry point shares. Each returns SUCCESS or records a
// message naming the argument and its value (core/error.hpp) and returns
// INVALID_ARGUMENT.
#pragma once

#include <cstdint>

#include "fp8kit/fp8kit.h"

namespace fp8kit {

constexpr int64_t kMaxExtent = INT32_MAX;  // kernels index rows and columns with int
constexpr int kKMultiple = 16;             // K granule of every kernel's inner loop
constexpr int kBaseAlign = 16;             // bytes: base pointers and row pitches (16-byte vector loads)

// `name` in [1, 2^31 - 1] (m, n).
fp8kit_status check_extent(const char* name, int64_t value);
// k: a multiple of kKMultiple, at least kKMultiple, below 2^31.
fp8kit_status check_k(int64_t k);
fp8kit_status check_not_null(const char* name, const void* ptr);
fp8kit_status check_aligned(const char* name, const void* ptr, int bytes);

// A buffer's bytes [lo, hi), named for messages.
struct ByteSpan {
  const char* name;
  uintptr_t lo, hi;
};

inline ByteSpan span_of(const char* name, const void* ptr, int64_t bytes) {
  const auto lo = reinterpret_cast<uintptr_t>(ptr);
  return ByteSpan{name, lo, lo + static_cast<uintptr_t>(bytes)};
}

// (rows - 1) * ld + cols elements of `elem` bytes, the extent of a row-major
// buffer; 0 for no rows; saturates at INT64_MAX (a huge leading dimension is
// no overflow).
inline int64_t extent_bytes(int64_t rows, int64_t ld, int64_t cols, int64_t elem) {
  int64_t v = 0;
  if (rows <= 0) return 0;
  if (__builtin_mul_overflow(rows - 1, ld, &v) || __builtin_add_overflow(v, cols, &v) ||
      __builtin_mul_overflow(v, elem, &v))
    return INT64_MAX;
  return v;
}

// Empty spans overlap nothing.
inline bool overlaps(const ByteSpan& a, const ByteSpan& b) {
  return a.hi > a.lo && b.hi > b.lo && a.lo < b.hi && b.lo < a.hi;
}

}  // namespace fp8kit
