// The GPUs of this machine and the path each would run, as the CLI reports
// them (I/O; no printing).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit::cli {

// Every CUDA GPU, as the library sees it (core/device.hpp); empty with `why`
// set when there is none or no driver.
std::vector<DeviceInfo> list_gpus(std::string* why);

const char* tensor_cores_name(fp8kit_tensor_cores tc);

// What AUTO picks on a capability for each reported scale configuration
// (tools/scale_configs.hpp), as a JSON array.
nlohmann::json paths_for(int major, int minor);

// The NVFP4 GEMM paths whose kernels a capability loads, in the order AUTO
// tries them (api/kernel_catalog.hpp); which one runs depends on the
// problem (docs/nvfp4.md). A JSON array of {"path", "image"}.
nlohmann::json nvfp4_paths_for(int major, int minor);

// Capabilities shown when there is no GPU: every released one, one unknown
// minor, one unknown major, and one too old.
const std::vector<std::pair<int, int>>& showcase_capabilities();

}  // namespace fp8kit::cli
