// The GEMM registries (core/registry.hpp): the dense FP8 GEMM's paths and the
// grouped GEMM's, in order of preference (gemm/dispatch.cpp). Each kernel
// family's launcher file defines its entries.
#pragma once

#include "core/registry.hpp"
#include "gemm/gemm_params.hpp"
#include "gemm/grouped/grouped_params.hpp"

namespace fp8kit {

using GemmPath = KernelPath<GemmParams>;
using GroupedPath = KernelPath<GroupedParams>;

template <>
const std::vector<const GemmPath*>& registry<GemmParams>();
template <>
const std::vector<const GroupedPath*>& registry<GroupedParams>();

extern const GemmPath kSm90WgmmaPath;
extern const GemmPath kSm120MmaPath;
extern const GemmPath kSm89MmaPath;
extern const GemmPath kSm75HmmaPath;

extern const GroupedPath kSm90WgmmaGroupedPath;
extern const GroupedPath kSm89MmaGroupedPath;
extern const GroupedPath kSm75HmmaGroupedPath;

}  // namespace fp8kit
