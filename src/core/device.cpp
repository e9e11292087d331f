// The per-device property cache and the device-pointer check.
#include "core/device.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdio>
#include <mutex>

#include "arch/config.hpp"
#include "core/error.hpp"

namespace fp8kit {
namespace {

struct DeviceSlot {
  std::once_flag once;
  cudaError_t err = cudaSuccess;
  DeviceInfo info;
};
std::array<DeviceSlot, kMaxDevices> g_devices;

void read_properties(int device, DeviceSlot* slot) {
  cudaDeviceProp prop{};
  slot->err = cudaGetDeviceProperties(&prop, device);
  if (slot->err != cudaSuccess) return;
  DeviceInfo& info = slot->info;
  info.device = device;
  info.cap = arch::capability(prop.major, prop.minor);
  info.sm_count = prop.multiProcessorCount;
  info.smem_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  info.smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  info.l2_bytes = prop.l2CacheSize;
  std::snprintf(info.name, sizeof info.name, "%s", prop.name);
}

}  // namespace

fp8kit_status device_info(int device, const DeviceInfo** out) {
  if (device < 0 || device >= kMaxDevices)
    return fail(FP8KIT_STATUS_UNSUPPORTED, "device %d: fp8kit handles device ordinals below %d", device,
                kMaxDevices);
  DeviceSlot& slot = g_devices[device];
  std::call_once(slot.once, [&] { read_properties(device, &slot); });
  if (slot.err != cudaSuccess)
    return fail(FP8KIT_STATUS_CUDA_ERROR, "cudaGetDeviceProperties(%d): %s", device, cudaGetErrorString(slot.err));
  *out = &slot.info;
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status current_device(const DeviceInfo** out) {
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fail(FP8KIT_STATUS_UNSUPPORTED, "no usable CUDA device: %s", cudaGetErrorString(err));
  }
  return device_info(device, out);
}

// A pointer the kernel will dereference must be device-visible memory of the
// current device (device, managed, or mapped host memory); a plain host
// pointer would fault inside the kernel and poison the context.
fp8kit_status check_device_pointer(const char* name, const void* ptr, int device) {
  if (!ptr) return FP8KIT_STATUS_SUCCESS;
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s = %p: not a pointer CUDA knows (%s)", name, ptr,
                cudaGetErrorString(err));
  }
  switch (attr.type) {
    case cudaMemoryTypeDevice:
      if (attr.device != device)
        return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s = %p: memory of device %d, but the current device is %d", name,
                    ptr, attr.device, device);
      return FP8KIT_STATUS_SUCCESS;
    case cudaMemoryTypeManaged: return FP8KIT_STATUS_SUCCESS;
    case cudaMemoryTypeHost:
      if (attr.devicePointer) return FP8KIT_STATUS_SUCCESS;
      [[fallthrough]];
    default:
      return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s = %p: host memory the GPU cannot read; pass device memory",
                  name, ptr);
  }
}

}  // namespace fp8kit
