// The C entry points that name things: the enums' names (core/enums.hpp holds
// the texts) and the last error message (core/error.hpp). None can fail.
#include "core/enums.hpp"
#include "core/error.hpp"
#include "fp8kit/fp8kit.h"

namespace {

const char* or_unknown(const char* name, const char* unknown) { return name ? name : unknown; }

}  // namespace

extern "C" {

const char* fp8kit_last_error(void) { return fp8kit::last_error(); }

const char* fp8kit_status_name(fp8kit_status s) {
  return or_unknown(fp8kit::status_name(fp8kit::raw(s)), "unknown_status");
}

const char* fp8kit_dtype_name(fp8kit_dtype t) { return or_unknown(fp8kit::dtype_name(fp8kit::raw(t)), "unknown_dtype"); }

const char* fp8kit_scale_mode_name(fp8kit_scale_mode m) {
  return or_unknown(fp8kit::scale_mode_name(fp8kit::raw(m)), "unknown_scale_mode");
}

const char* fp8kit_path_name(fp8kit_path p) { return or_unknown(fp8kit::path_name(fp8kit::raw(p)), "unknown_path"); }

const char* fp8kit_grouped_layout_name(fp8kit_grouped_layout layout) {
  return or_unknown(fp8kit::grouped_layout_name(fp8kit::raw(layout)), "unknown_layout");
}

}  // extern "C"
