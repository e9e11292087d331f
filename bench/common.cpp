#include "common.hpp"

#include <cstdio>

namespace fp8bench {

void throw_cuda(cudaError_t err, const char* what, const char* file, int line) {
  char msg[512];
  std::snprintf(msg, sizeof msg, "%s failed: %s (%s) at %s:%d", what, cudaGetErrorName(err),
                cudaGetErrorString(err), file, line);
  throw CudaFailure(msg);
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::Tensor: return "tensor";
    case Mode::Channel: return "channel";
    case Mode::Block: return "block";
  }
  return "?";
}

bool parse_mode(const std::string& text, Mode* mode) {
  for (Mode m : {Mode::Tensor, Mode::Channel, Mode::Block}) {
    if (text == mode_name(m)) {
      *mode = m;
      return true;
    }
  }
  return false;
}

fp8kit_scale_mode a_scale_mode(Mode mode) {
  switch (mode) {
    case Mode::Tensor: return FP8KIT_SCALE_TENSOR;
    case Mode::Channel: return FP8KIT_SCALE_ROW;
    case Mode::Block: return FP8KIT_SCALE_BLOCK;
  }
  return FP8KIT_SCALE_NONE;
}

fp8kit_scale_mode b_scale_mode(Mode mode) {
  switch (mode) {
    case Mode::Tensor: return FP8KIT_SCALE_TENSOR;
    case Mode::Channel: return FP8KIT_SCALE_COL;
    case Mode::Block: return FP8KIT_SCALE_BLOCK;
  }
  return FP8KIT_SCALE_NONE;
}

}  // namespace fp8bench
