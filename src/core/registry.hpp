// A kernel registry: the paths that can run one kind of problem (dense FP8
// GEMM, grouped GEMM, quantisation), in order of preference, and the one rule
// that picks among them. A path is one entry: where it is preferred
// (a capability range), which images this build carries of it, what its
// tensor cores are on a capability, whether it takes a problem, how to launch
// it, and a kernel of it to ask CUDA whether the device can load it. Each
// problem kind's registry is its own specialisation of `registry<Problem>()`
// (gemm/dispatch.cpp, quant/quantize.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <mutex>
#include <string>
#include <vector>

#include "arch/config.hpp"
#include "arch/loader.hpp"
#include "core/device.hpp"
#include "core/enums.hpp"
#include "core/launch_env.hpp"

namespace fp8kit {

// The kernels of a path as a binary names them (demangled): every kernel
// whose name contains `function`, and `policy` where it is not null, is the
// path's. The self-audit (`fp8kit doctor`, tests/audit/test_self.cpp) finds
// each path's kernels in the library by it.
struct KernelMatch {
  const char* function;  // "fp8kit::mma_sync::fp8_gemm_kernel<"
  const char* policy;    // "fp8kit::mma_sync::Fp8Mma," or nullptr
};

template <typename Problem>
struct KernelPath {
  fp8kit_path id;
  arch::Range preferred;                        // AUTO considers the path on these capabilities
  const std::vector<arch::Image>& (*images)();  // what this build carries
  fp8kit_tensor_cores (*tensor_cores)(int cap);
  // Does this path take the problem on this device? If not, `why` (when not
  // null) says why.
  bool (*accepts)(const Problem& p, const DeviceInfo& dev, std::string* why);
  // Bytes of workspace this path would use for best speed (null: none).
  size_t (*workspace_size)(const Problem& p, const DeviceInfo& dev);
  // Launches; returns CUDA's launch status. `kernel_name` gets the launched
  // kernel's name for error messages.
  cudaError_t (*launch)(const Problem& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                        const char** kernel_name);
  // Any kernel of the path: cudaFuncGetAttributes on it tells whether the
  // running device can load an image of the path.
  const void* (*probe_kernel)();
  KernelMatch kernels;

  const char* name() const { return path_name(id); }
};

// The registered paths of one problem kind, in order of preference.
template <typename Problem>
const std::vector<const KernelPath<Problem>*>& registry();

template <typename Problem>
const KernelPath<Problem>* find_path(fp8kit_path id) {
  for (const KernelPath<Problem>* p : registry<Problem>())
    if (p->id == id) return p;
  return nullptr;
}

// The AUTO rule, for a device of capability `cap`: the first path of `paths`
// (in order of preference) that is preferred on `cap` and usable; else (a GPU
// newer than this build, running JIT-compiled PTX) the first usable path at
// all; else null, with `*why` from the last path that refused. `usable(path,
// why)` says whether an image of the path loads and it accepts the problem,
// setting `*why` (when not null) if not. The portable mma.sync / HMMA paths
// accept every valid input, so the fallback from a specialised path is
// automatic. Calls ask CUDA what loads; fp8kit_choose_path asks the loader
// model (arch/loader.hpp): one rule, two answers to "usable".
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
// the answer is what the loader really does. One cache per registry, one slot
// per fp8kit_path value; `at` refuses an id outside kPathNames with an
// exception, which the C boundary (core/error.hpp guarded) reports.
template <typename Problem>
bool has_image(const KernelPath<Problem>& path, const DeviceInfo& dev) {
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

// "sm_89 sm_90 compute_120", or "none": the images of a path, for messages.
template <typename Problem>
std::string images_text(const KernelPath<Problem>& path) {
  std::string s;
  for (const arch::Image& im : path.images()) s += (s.empty() ? "" : " ") + im.name();
  return s.empty() ? "none" : s;
}

}  // namespace fp8kit
