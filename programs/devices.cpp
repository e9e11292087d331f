#include "devices.hpp"

#include "arch/config.hpp"

#include <cuda_runtime_api.h>

#include "api/kernel_catalog.hpp"
#include "tools/scale_configs.hpp"

namespace fp8kit::cli {

std::vector<DeviceInfo> list_gpus(std::string* why) {
  std::vector<DeviceInfo> out;
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    return out;
  }
  if (n == 0 && why) *why = "the driver reports no CUDA devices";
  for (int i = 0; i < n; ++i) {
    const DeviceInfo* info = nullptr;
    if (device_info(i, &info) == FP8KIT_STATUS_SUCCESS) out.push_back(*info);
  }
  return out;
}

const char* tensor_cores_name(fp8kit_tensor_cores tc) {
  switch (tc) {
    case FP8KIT_TC_NATIVE: return "native FP8";
    case FP8KIT_TC_EMULATED: return "emulated (HMMA)";
    case FP8KIT_TC_FALLBACK: return "fallback (f16 HMMA)";
    case FP8KIT_TC_UNKNOWN: return "unknown (JIT)";
    default: return "none";
  }
}

nlohmann::json paths_for(int major, int minor) {
  nlohmann::json rows = nlohmann::json::array();
  for (const tools::ScaleConfig& config : tools::kReportedConfigs) {
    fp8kit_path_choice c = FP8KIT_PATH_CHOICE_INIT;
    const fp8kit_status s = fp8kit_choose_path(major, minor, config.a, config.b, &c);
    nlohmann::json r{{"scales", config.name}};
    if (s == FP8KIT_STATUS_SUCCESS) {
      r["path"] = fp8kit_path_name(c.path);
      r["tensor_cores"] = tensor_cores_name(c.tensor_cores);
      r["image"] = c.image;
    } else {
      r["path"] = nullptr;
      r["error"] = fp8kit_last_error();
    }
    rows.push_back(r);
  }
  return rows;
}

nlohmann::json nvfp4_paths_for(int major, int minor) {
  const int cap = arch::capability(major, minor);
  nlohmann::json rows = nlohmann::json::array();
  for (const KernelFamilyEntry& e : kernel_catalog()) {
    if (e.problem != ProblemKind::Nvfp4Gemm) continue;
    const int i = arch::select_image(cap, *e.images);
    if (i >= 0) rows.push_back({{"path", e.path}, {"image", arch::image_text((*e.images)[static_cast<size_t>(i)])}});
  }
  return rows;
}

// Every released capability (arch/config.hpp), then two nobody has seen: an
// unknown 12.x minor (the family image must load) and the next major (PTX).
const std::vector<std::pair<int, int>>& showcase_capabilities() {
  static const std::vector<std::pair<int, int>> v = [] {
    constexpr int kUnseen[] = {123, 130};
    std::vector<std::pair<int, int>> caps;
    for (int c : arch::kReleasedCapabilities) caps.emplace_back(c / 10, c % 10);
    for (int c : kUnseen) caps.emplace_back(c / 10, c % 10);
    return caps;
  }();
  return v;
}

}  // namespace fp8kit::cli
