// What the bench reports about the machine and the run: the time, the driver
// and the CUDA versions.
#pragma once

#include <string>

namespace fp8bench {

// "2026-12-01T08:00:00Z".
std::string utc_now();
// The kernel driver's version ("580.159.04"), where Linux exposes it; else "".
std::string driver_version();
// "13.0" for a CUDA version number (13000).
std::string cuda_version_text(int version);

}  // namespace fp8bench
