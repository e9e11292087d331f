#include "system_info.hpp"

#include <dlfcn.h>

#include <cuda_runtime_api.h>

#include <cctype>
#include <ctime>
#include <fstream>
#include <sstream>

namespace fp8bench {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!f || !std::getline(f, line)) return "";
  std::istringstream words(line);
  std::string word;
  while (words >> word)
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos)
      return word;
  return "";
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

namespace {

// The NVML entry points used, as nvml.h declares them (handles opaque).
using NvmlInit = int (*)();
using NvmlHandleByPci = int (*)(const char*, void**);
using NvmlClockInfo = int (*)(void*, int, unsigned*);
using NvmlPowerUsage = int (*)(void*, unsigned*);
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;          // NVML_CLOCK_SM
constexpr double kMilliwattsPerWatt = 1e3;
constexpr int kPciBusIdChars = 32;

struct Nvml {
  NvmlHandleByPci handle_by_pci = nullptr;
  NvmlClockInfo clock_info = nullptr;
  NvmlPowerUsage power_usage = nullptr;
  bool ok = false;
  Nvml() {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    auto init = reinterpret_cast<NvmlInit>(dlsym(lib, "nvmlInit_v2"));
    handle_by_pci = reinterpret_cast<NvmlHandleByPci>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock_info = reinterpret_cast<NvmlClockInfo>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    power_usage = reinterpret_cast<NvmlPowerUsage>(dlsym(lib, "nvmlDeviceGetPowerUsage"));
    ok = init && handle_by_pci && clock_info && power_usage && init() == kNvmlSuccess;
  }
};

}  // namespace

ClockReading read_clock(int cuda_device) {
  static const Nvml nvml;
  ClockReading r;
  char bus[kPciBusIdChars] = {};
  void* handle = nullptr;
  if (!nvml.ok || cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) != cudaSuccess ||
      nvml.handle_by_pci(bus, &handle) != kNvmlSuccess)
    return r;
  unsigned mw = 0;
  r.ok = nvml.clock_info(handle, kNvmlClockSm, &r.sm_mhz) == kNvmlSuccess &&
         nvml.power_usage(handle, &mw) == kNvmlSuccess;
  r.power_w = mw / kMilliwattsPerWatt;
  return r;
}

}  // namespace fp8bench
