// Per-thread error message behind fp8kit_last_error(). The library never prints.
#pragma once

#include "fp8kit/fp8kit.h"

namespace fp8kit {

// Records a printf-style message for this thread and returns `status`.
fp8kit_status fail(fp8kit_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void clear_error();
// This thread's message: fp8kit_last_error().
const char* last_error();

// Returns the status of `expr` from the calling function unless it is SUCCESS.
#define FP8KIT_RETURN_IF_FAILED(expr)                                 \
  do {                                                                \
    const fp8kit_status fp8kit_status_ = (expr);                      \
    if (fp8kit_status_ != FP8KIT_STATUS_SUCCESS) return fp8kit_status_; \
  } while (0)

// A C entry point's body: `body()`, with any exception turned into
// INTERNAL_ERROR naming `entry`, so that none crosses the C boundary. The
// one place the message is cleared: on success.
template <typename Body>
fp8kit_status guarded(const char* entry, Body&& body) noexcept {
  try {
    const fp8kit_status s = body();
    if (s == FP8KIT_STATUS_SUCCESS) clear_error();
    return s;
  } catch (...) {
    return fail(FP8KIT_STATUS_INTERNAL_ERROR, "unexpected exception in %s", entry);
  }
}

}  // namespace fp8kit
