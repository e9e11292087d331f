// The GEMM path registry. A path is one entry: where it is valid and preferred
// (capability ranges), which inputs it takes, how to launch it, and what its
// tensor cores are on a capability. The AUTO rule that picks one is
// gemm/path_rule.hpp's auto_path.
#pragma once

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

// Each kernel family's launcher file defines its entry.
extern const GemmPath kSm90WgmmaPath;
extern const GemmPath kSm120MmaPath;
extern const GemmPath kSm89MmaPath;
extern const GemmPath kSm75HmmaPath;

}  // namespace fp8kit
