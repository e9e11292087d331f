#include "core/arg_checks.hpp"

#include <cinttypes>

#include "core/error.hpp"
#include "core/math.hpp"

namespace fp8kit {

fp8kit_status check_extent(const char* name, int64_t value) {
  if (value < 1 || value > kMaxExtent)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s = %" PRId64 ": must be in [1, 2^31 - 1]", name, value);
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_k(int64_t k) {
  if (k < kKMultiple || k > kMaxExtent || k % kKMultiple != 0)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "k = %" PRId64 ": must be a multiple of %d, at least %d", k,
                kKMultiple, kKMultiple);
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_not_null(const char* name, const void* ptr) {
  if (!ptr) return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s is NULL", name);
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_aligned(const char* name, const void* ptr, int bytes) {
  if (!is_aligned(ptr, bytes))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s = %p: must be %d-byte aligned", name, ptr, bytes);
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
