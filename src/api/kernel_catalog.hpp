// Every kernel family this build of the library ships, from its registries
// (core/registry.hpp): the problem kind, the path, how its kernels are named
// in a binary and the images this build carries of it. The self-audit
// (`fp8kit doctor` without a GPU, tests/audit/test_self.cpp) finds each
// family's kernels in the binary by it.
#pragma once

#include <vector>

#include "arch/loader.hpp"
#include "core/registry.hpp"

namespace fp8kit {

// The C API's problem kinds, one per descriptor type.
enum class ProblemKind { Gemm, GroupedGemm, Quantize, Nvfp4Gemm, Nvfp4GroupedGemm, Nvfp4Quantize };

struct KernelFamilyEntry {
  ProblemKind problem;
  const char* kind;  // its name: "GEMM", "grouped GEMM", "quantisation", "NVFP4 GEMM", ...
  const char* path;  // "sm90_wgmma", ...
  KernelMatch kernels;
  const std::vector<arch::Image>* images;
};

// In registry order, problem kind by problem kind.
std::vector<KernelFamilyEntry> kernel_catalog();

}  // namespace fp8kit
