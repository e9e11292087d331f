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

// The SM clock and board power of a CUDA device, read through NVML (loaded
// at run time; `ok` false where it or the device is not there).
struct ClockReading {
  bool ok = false;
  unsigned sm_mhz = 0;
  double power_w = 0.0;
};
ClockReading read_clock(int cuda_device);

}  // namespace fp8bench
