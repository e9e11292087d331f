// The device an entry point launches on: its properties (read once per device)
// and the check that a pointer is memory it can read.
#pragma once

#include "fp8kit/fp8kit.h"

namespace fp8kit {

// Device ordinals the property cache holds; a higher ordinal is refused.
constexpr int kMaxDevices = 64;

struct DeviceInfo {
  int device = 0;
  int cap = 0;  // 10 * major + minor
  int sm_count = 0;
  int smem_per_block_optin = 0;  // bytes: 101,376 on every SM12x part, 232,448 on Hopper
  int smem_per_sm = 0;
  int l2_bytes = 0;
  char name[256] = {};
};

// The properties of device ordinal `device` (read once per device; the
// pointer stays valid for the process).
fp8kit_status device_info(int device, const DeviceInfo** out);
// device_info of the calling thread's current device.
fp8kit_status current_device(const DeviceInfo** out);

// `ptr` (may be null) must be device-visible memory of `device`.
fp8kit_status check_device_pointer(const char* name, const void* ptr, int device);

struct NamedPointer {
  const char* name;  // the argument's name, as the error message gives it
  const void* ptr;
};

// check_device_pointer on each of `pointers` (a range of NamedPointer), in
// order; the first failure is returned.
template <typename Pointers>
fp8kit_status check_device_pointers(const Pointers& pointers, int device) {
  for (const NamedPointer& p : pointers) {
    const fp8kit_status s = check_device_pointer(p.name, p.ptr, device);
    if (s != FP8KIT_STATUS_SUCCESS) return s;
  }
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
