// fp8kit explain: from a GPU core dump, what faulted and why.
//
// For each group of warps stopped at one PC of one kernel with one
// exception: the exception, the kernel, the launch shape and the first
// faulting thread, the SASS around the PC (decoded by the audit's decoder),
// the image the GPU ran (its target; trap stub, empty body or real code) and,
// when the host binaries are at hand, whether a sibling image of the same
// module has real code: the signature of an equality guard, with its likely
// form and the family-range fix. A core dump holds only the image the driver
// loaded for each module, so the siblings come from the binaries
// (docs/explain.md). The library never prints; cmd_explain.cpp reports.
#pragma once

#include "coredump/dump.hpp"
#include "coredump/fault.hpp"

namespace fp8kit::coredump {

Explanation explain(const CoreDump& dump, const ExplainOptions& options);

}  // namespace fp8kit::coredump
