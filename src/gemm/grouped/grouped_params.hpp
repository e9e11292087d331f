// The validated grouped problem as kernels receive it (by value), and the
// grouped path registry. Everything here has passed api/grouped_validate.cpp.
//
// A grouped path is registered like a dense one (gemm/dispatch.hpp): where it
// is preferred, the images it carries, whether it takes the problem, how to
// launch it, and a probe kernel to ask CUDA whether the device can load it.
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "arch/config.hpp"
#include "arch/loader.hpp"
#include "gemm/gemm_params.hpp"

namespace fp8kit {

struct GroupedParams {
  fp8kit_grouped_layout layout;
  int experts;     // E
  int rows;        // contiguous: T; masked: max_m
  const int32_t* groups;  // contiguous: offs [E] (cumulative ends); masked: counts [E]
  // The operands of expert 0 and the strides to the next expert; `dense`
  // carries n, k, k_blocks, the leading dimensions, dtypes, modes and bias
  // type. dense.m is unused (each expert's row count comes from `groups`).
  GemmParams dense;
  int64_t b_expert_stride;  // bytes: N * ldb (A and D rows are found from `rows`)
};

// The CTA tiles of a grouped launch along M, sized from host-known bounds only:
// contiguous sum_e ceil(rows_e / BM) <= ceil(T / BM) + E (each expert wastes
// less than one tile); masked E * ceil(max_m / BM).
constexpr int64_t grouped_m_slots(const GroupedParams& g, int block_m) {
  return g.layout == FP8KIT_GROUPED_MASKED ? g.experts * ceil_div(g.rows, block_m)
                                           : ceil_div(g.rows, block_m) + g.experts;
}

struct GroupedPath {
  fp8kit_path id;
  const char* name;
  arch::Range preferred;
  const std::vector<arch::Image>& (*images)();
  bool (*accepts)(const GroupedParams& g, const DeviceInfo& dev, std::string* why);
  cudaError_t (*launch)(const GroupedParams& g, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                        const char** kernel_name);
  const void* (*probe_kernel)();
};

// Registered grouped paths, in order of preference.
const std::vector<const GroupedPath*>& grouped_paths();

extern const GroupedPath kSm90WgmmaGroupedPath;
extern const GroupedPath kSm89MmaGroupedPath;
extern const GroupedPath kSm75HmmaGroupedPath;

}  // namespace fp8kit
