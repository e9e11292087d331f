// The AUTO rule and the image probe, the same for every path registry: the
// dense paths (gemm/dispatch.hpp) and the grouped ones
// (gemm/grouped/grouped_params.hpp). An entry has `id` (an fp8kit_path),
// `preferred` (a capability range) and `probe_kernel` (any of its kernels).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <mutex>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "core/enums.hpp"

namespace fp8kit {

// The AUTO rule, for a device of capability `cap`: the first path of `paths`
// (in order of preference) that is preferred on `cap` and usable; else (a GPU
// newer than this build, running JIT-compiled PTX) the first usable path at
// all; else null, with `*why` from the last path that refused. `usable(path,
// why)` says whether an image of the path loads and it accepts the problem,
// setting `*why` (when not null) if not. The portable mma.sync / HMMA paths
// accept every valid input, so the fallback from a specialised path is
// automatic. fp8kit_gemm asks CUDA what loads; fp8kit_choose_path asks the
// loader model (arch/loader.hpp): one rule, two answers to "usable".
template <typename Path, typename Usable>
const Path* auto_path(const std::vector<const Path*>& paths, int cap, Usable&& usable, std::string* why) {
  for (const Path* path : paths)
    if (path->preferred.contains(cap) && usable(*path, nullptr)) return path;
  for (const Path* path : paths)
    if (usable(*path, why)) return path;
  return nullptr;
}

// Whether the running device can load an image of `path`: asked of CUDA
// (cudaFuncGetAttributes on its probe kernel) once per path and device, since
// the answer is what the loader really does. One cache per registry type, one
// slot per fp8kit_path value; `at` refuses an id outside kAllPaths with an
// exception, which the C boundary (core/error.hpp guarded) reports.
template <typename Path>
bool has_image(const Path& path, const DeviceInfo& dev) {
  struct Slot {
    std::once_flag once;
    bool loads = false;
  };
  static std::array<std::array<Slot, kPathCount>, kMaxDevices> slots;
  Slot& slot = slots.at(dev.device).at(raw(path.id));
  std::call_once(slot.once, [&] {
    cudaFuncAttributes attr{};
    slot.loads = cudaFuncGetAttributes(&attr, path.probe_kernel()) == cudaSuccess;
    cudaGetLastError();
  });
  return slot.loads;
}

}  // namespace fp8kit
