// The text of each public enum value (fp8kit.h's name functions return these;
// src/api/names.cpp exports them) and the message forms that print an unknown
// value as its number.
#include "core/enums.hpp"

namespace fp8kit {

bool path_of_name(const char* name, fp8kit_path* out) {
  for (const PathName& p : kPathNames) {
    if (name && std::strcmp(name, p.name) == 0) {
      *out = p.path;
      return true;
    }
  }
  return false;
}

std::string path_name_list() {
  std::string s;
  for (int i = 0; i < kPathCount; ++i)
    s += std::string(i == 0 ? "" : i + 1 == kPathCount ? " or " : ", ") + kPathNames[i].name;
  return s;
}

const char* status_name(int v) {
  switch (v) {
    case FP8KIT_STATUS_SUCCESS: return "success";
    case FP8KIT_STATUS_INVALID_ARGUMENT: return "invalid_argument";
    case FP8KIT_STATUS_UNSUPPORTED: return "unsupported";
    case FP8KIT_STATUS_CUDA_ERROR: return "cuda_error";
    case FP8KIT_STATUS_INTERNAL_ERROR: return "internal_error";
  }
  return nullptr;
}

const char* dtype_name(int v) {
  switch (v) {
    case FP8KIT_DTYPE_E4M3: return "e4m3";
    case FP8KIT_DTYPE_E5M2: return "e5m2";
    case FP8KIT_DTYPE_BF16: return "bf16";
    case FP8KIT_DTYPE_F16: return "f16";
    case FP8KIT_DTYPE_F32: return "f32";
    case FP8KIT_DTYPE_NVFP4: return "nvfp4";
  }
  return nullptr;
}

const char* scale_mode_name(int v) {
  switch (v) {
    case FP8KIT_SCALE_NONE: return "none";
    case FP8KIT_SCALE_TENSOR: return "tensor";
    case FP8KIT_SCALE_ROW: return "row";
    case FP8KIT_SCALE_COL: return "col";
    case FP8KIT_SCALE_BLOCK: return "block";
  }
  return nullptr;
}

const char* grouped_layout_name(int v) {
  switch (v) {
    case FP8KIT_GROUPED_CONTIGUOUS: return "contiguous";
    case FP8KIT_GROUPED_MASKED: return "masked";
  }
  return nullptr;
}

const char* nvfp4_scale_layout_name(int v) {
  switch (v) {
    case FP8KIT_NVFP4_SCALES_SWIZZLED: return "swizzled";
    case FP8KIT_NVFP4_SCALES_LINEAR: return "linear";
  }
  return nullptr;
}

std::string dtype_text(int v) {
  const char* name = dtype_name(v);
  return name ? name : std::to_string(v);
}

std::string scale_mode_text(int v) {
  const char* name = scale_mode_name(v);
  return name ? name : std::to_string(v);
}

}  // namespace fp8kit
