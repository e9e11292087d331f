// Device discovery and pointer checks shared by the entry points.
#pragma once

#include "fp8kit/fp8kit.h"
#include "gemm/gemm_params.hpp"

namespace fp8kit {

// The current device's properties (read once per device).
fp8kit_status current_device(const DeviceInfo** out);

// `ptr` (may be null) must be device-visible memory of `device`.
fp8kit_status check_device_pointer(const char* name, const void* ptr, int device);

}  // namespace fp8kit
