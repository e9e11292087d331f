#include "core/error.hpp"

#include <cstdarg>
#include <cstdio>

namespace fp8kit {
namespace {
constexpr int kMessageBytes = 1024;
thread_local char g_message[kMessageBytes] = "";
}  // namespace

fp8kit_status fail(fp8kit_status status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(g_message, sizeof g_message, fmt, args);
  va_end(args);
  return status;
}

void clear_error() { g_message[0] = '\0'; }

const char* last_error() { return g_message; }

}  // namespace fp8kit
