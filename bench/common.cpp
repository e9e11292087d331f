#include "common.hpp"

#include <cstdio>

namespace fp8bench {

void throw_cuda(cudaError_t err, const char* what, const char* file, int line) {
  char msg[512];
  std::snprintf(msg, sizeof msg, "%s failed: %s (%s) at %s:%d", what, cudaGetErrorName(err),
                cudaGetErrorString(err), file, line);
  throw CudaFailure(msg);
}

namespace {
constexpr Mode kModes[] = {Mode::Tensor, Mode::TokenChannel, Mode::Block};
}  // namespace

const fp8kit::tools::ScaleConfig& scale_config(Mode mode) {
  switch (mode) {
    case Mode::Tensor: return fp8kit::tools::kTensor;
    case Mode::TokenChannel: return fp8kit::tools::kTokenChannel;
    case Mode::Block: break;
  }
  return fp8kit::tools::kBlock;
}

bool parse_mode(const std::string& text, Mode* mode) {
  for (Mode m : kModes) {
    if (text == mode_name(m)) {
      *mode = m;
      return true;
    }
  }
  return false;
}

std::string mode_names() {
  std::string s;
  for (Mode m : kModes) s += (s.empty() ? "" : ", ") + std::string(mode_name(m));
  return s;
}

}  // namespace fp8bench
