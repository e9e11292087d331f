// A binary's kernels attributed to the kernel families a library declares
// (fp8kit's self-audit: the families of its own registry, api/kernel_catalog):
// per family and GPU, what the driver loads; the kernels of the library's
// namespace that belong to no family; the families with no kernel at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "audit/report.hpp"

namespace fp8kit::audit {

// A kernel is the family's when its demangled name contains `function` and,
// where `policy` is not empty, `policy`.
struct KernelFamily {
  std::string name;  // "GEMM sm89_mma"
  std::string function;
  std::string policy;
};

struct FamilyTally {
  std::string family;
  int gpu = 0;
  std::size_t kernels = 0, sass = 0, jit = 0, trap = 0, empty = 0, missing = 0, not_built = 0;
  std::uint32_t tensor_ops = 0;  // every tensor-core instruction class of the SASS images it loads
};

struct FamilyAudit {
  std::vector<FamilyTally> tallies;       // family by family, then by GPU (the report's order)
  std::vector<std::string> unattributed;  // demangled kernels of `ns` that belong to no family
  std::vector<std::string> empty;         // families of which the binary has no kernel
  // Trap stubs, empty bodies and missing images anywhere, and the two lists
  // above, are what make a self-audit fail.
  bool ok() const;
};

// `report` must keep its records (AuditOptions::keep_records). `ns` is the
// namespace whose kernels must all belong to a family ("fp8kit::").
FamilyAudit attribute_families(const AuditReport& report, const std::vector<KernelFamily>& families,
                               const std::string& ns);

}  // namespace fp8kit::audit
