// The text of each public enum value: the C name functions of fp8kit.h and the
// message forms that print an unknown value as its number.
#include "core/enums.hpp"

namespace fp8kit {

std::string dtype_text(int v) {
  switch (v) {
    case FP8KIT_DTYPE_E4M3:
    case FP8KIT_DTYPE_E5M2:
    case FP8KIT_DTYPE_BF16:
    case FP8KIT_DTYPE_F16:
    case FP8KIT_DTYPE_F32: return fp8kit_dtype_name(static_cast<fp8kit_dtype>(v));
    default: return std::to_string(v);
  }
}

std::string scale_mode_text(int v) {
  switch (v) {
    case FP8KIT_SCALE_NONE:
    case FP8KIT_SCALE_TENSOR:
    case FP8KIT_SCALE_ROW:
    case FP8KIT_SCALE_COL:
    case FP8KIT_SCALE_BLOCK: return fp8kit_scale_mode_name(static_cast<fp8kit_scale_mode>(v));
    default: return std::to_string(v);
  }
}

}  // namespace fp8kit

extern "C" {

const char* fp8kit_status_name(fp8kit_status s) {
  switch (fp8kit::raw(s)) {
    case FP8KIT_STATUS_SUCCESS: return "success";
    case FP8KIT_STATUS_INVALID_ARGUMENT: return "invalid_argument";
    case FP8KIT_STATUS_UNSUPPORTED: return "unsupported";
    case FP8KIT_STATUS_CUDA_ERROR: return "cuda_error";
    case FP8KIT_STATUS_INTERNAL_ERROR: return "internal_error";
  }
  return "unknown_status";
}

const char* fp8kit_dtype_name(fp8kit_dtype t) {
  switch (fp8kit::raw(t)) {
    case FP8KIT_DTYPE_E4M3: return "e4m3";
    case FP8KIT_DTYPE_E5M2: return "e5m2";
    case FP8KIT_DTYPE_BF16: return "bf16";
    case FP8KIT_DTYPE_F16: return "f16";
    case FP8KIT_DTYPE_F32: return "f32";
  }
  return "unknown_dtype";
}

const char* fp8kit_scale_mode_name(fp8kit_scale_mode m) {
  switch (fp8kit::raw(m)) {
    case FP8KIT_SCALE_NONE: return "none";
    case FP8KIT_SCALE_TENSOR: return "tensor";
    case FP8KIT_SCALE_ROW: return "row";
    case FP8KIT_SCALE_COL: return "col";
    case FP8KIT_SCALE_BLOCK: return "block";
  }
  return "unknown_scale_mode";
}

const char* fp8kit_path_name(fp8kit_path p) {
  switch (fp8kit::raw(p)) {
    case FP8KIT_PATH_AUTO: return "auto";
    case FP8KIT_PATH_SM90_WGMMA: return "sm90_wgmma";
    case FP8KIT_PATH_SM89_MMA: return "sm89_mma";
    case FP8KIT_PATH_SM75_HMMA: return "sm75_hmma";
    case FP8KIT_PATH_SM120_MMA: return "sm120_mma";
  }
  return "unknown_path";
}

}  // extern "C"
