// fp8kit audit: for each GPU, which image of each kernel the CUDA driver
// would load from a binary, and whether that image is real code, a trap stub
// or an empty body.
//
// Pipeline: inputs (ELF executables, shared libraries, objects, archives,
// .fatbin, .cubin) -> fatbin containers -> entries (SASS cubins, PTX) ->
// kernels. The driver loads one image per container (a module), chosen by
// fp8kit::arch::select_image (docs/loader.md); a kernel absent from that
// image cannot be launched. The library never prints: everything, errors
// included, comes back in an AuditReport.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "audit/bytes.hpp"
#include "audit/report.hpp"

namespace fp8kit::audit {

AuditReport audit_files(const std::vector<std::string>& paths, const AuditOptions& options);
// Files with their libraries, from expand_inputs (walk.hpp) or the caller.
AuditReport audit_inputs(const std::vector<InputFile>& files, std::size_t files_skipped, const AuditOptions& options);

// One input already in memory (tests, the fuzzer); `name` labels it.
AuditReport audit_bytes(Bytes bytes, const std::string& name, const AuditOptions& options);

}  // namespace fp8kit::audit
