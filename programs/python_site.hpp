// `fp8kit audit --python [PKG...]`: where the running Python keeps its
// packages, asked of the interpreter itself (python3, or $FP8KIT_PYTHON).
#pragma once

#include <string>
#include <vector>

#include "audit/walk.hpp"

namespace fp8kit::cli {

// With no packages: every site-packages directory of the interpreter, each
// its own base. With packages (import names: torch, vllm, flashinfer,
// nvidia, nvidia.cudnn): each package's directories, named relative to the
// site-packages holding them. False + why when Python cannot be run or a
// package is not installed.
bool python_roots(const std::vector<std::string>& packages, std::vector<audit::WalkRoot>* roots, std::string* why);

}  // namespace fp8kit::cli
