// PTX text: the kernels (.entry) it defines and, per kernel, the same three
// classes as for SASS, judged on the PTX statements.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "audit/sass.hpp"

namespace fp8kit::audit {

struct PtxKernel {
  std::string name;  // mangled
  Body body = Body::Real;
  std::uint32_t tensor_ops = 0;  // tc:: bits of the instructions ptxas will emit natively
};

// Kernels of a PTX module (the text may end in NUL padding).
std::vector<PtxKernel> ptx_kernels(std::string_view text);

}  // namespace fp8kit::audit
