// The GEMM path registry. A path is one entry: where it is valid and preferred
// (capability ranges), which inputs it takes, how to launch it, and what its
// tensor cores are on a capability; and the AUTO rule that picks one.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "arch/config.hpp"
#include "arch/loader.hpp"
#include "gemm/gemm_params.hpp"

#include <cuda_runtime_api.h>

namespace fp8kit {

struct GemmPath {
  fp8kit_path id;
  const char* name;           // "sm90_wgmma", as in fp8kit_path_name
  arch::Range preferred;      // AUTO considers the path on these capabilities
  const std::vector<arch::Image>& (*images)();  // what this build carries
  fp8kit_tensor_cores (*tensor_cores)(int cap);
  // Does this path take the problem on this device? If not, `why` says why.
  bool (*accepts)(const GemmParams& p, const DeviceInfo& dev, std::string* why);
  // Bytes of workspace this path would use for best speed (may be null: none).
  size_t (*workspace_size)(const GemmParams& p, const DeviceInfo& dev);
  // Launches; returns CUDA's launch status. `kernel_name` gets the launched
  // kernel's name for error messages.
  cudaError_t (*launch)(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv& env,
                        cudaStream_t stream, const char** kernel_name);
  // Any kernel of the path: cudaFuncGetAttributes on it tells whether the
  // running device can load an image of the path.
  const void* (*probe_kernel)();
};

// Registered paths, in order of preference.
const std::vector<const GemmPath*>& gemm_paths();
const GemmPath* find_path(fp8kit_path id);

// Whether AUTO may take `path`: it has an image that loads on the device and
// accepts the problem. When it does not and `why` is not null, `*why` says why.
using PathUsable = std::function<bool(const GemmPath& path, std::string* why)>;

// The AUTO rule, for a device of capability `cap`: the first registered path
// that is preferred on `cap` and usable; else (a GPU newer than this build,
// running JIT-compiled PTX) the first usable path at all; else null, with
// `*why` from the last path that refused. The portable mma.sync / HMMA paths
// accept every valid input, so the fallback from a specialised path is
// automatic. fp8kit_gemm asks CUDA what loads; fp8kit_choose_path asks the
// loader model (arch/loader.hpp): one rule, two answers to "usable".
const GemmPath* auto_path(int cap, const PathUsable& usable, std::string* why);

// Each kernel family's launcher file defines its entry.
extern const GemmPath kSm90WgmmaPath;
extern const GemmPath kSm89MmaPath;
extern const GemmPath kSm75HmmaPath;

}  // namespace fp8kit
