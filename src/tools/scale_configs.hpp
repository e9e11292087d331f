// The named scale configurations (A's mode x B's mode) the programs take and
// report: one name each, the same in the CLI, the bench and the docs.
// Header-only; not part of libfp8kit.
#pragma once

#include <cstring>
#include <iterator>

#include "fp8kit/fp8kit.h"

namespace fp8kit::tools {

struct ScaleConfig {
  const char* name;
  fp8kit_scale_mode a, b;
};

// The three configurations LLM inference uses, in report order: one scale per
// tensor; per token (A's rows) x per channel (B's rows, D's columns); 1x128
// blocks of A x 128x128 blocks of B.
inline constexpr ScaleConfig kTensor{"tensor", FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR};
inline constexpr ScaleConfig kTokenChannel{"token-channel", FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL};
inline constexpr ScaleConfig kBlock{"block", FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK};
inline constexpr ScaleConfig kReportedConfigs[] = {kTensor, kTokenChannel, kBlock};

// Every configuration a command line may name.
inline constexpr ScaleConfig kAllConfigs[] = {
    {"none", FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE},  kTensor, kTokenChannel,
    {"token", FP8KIT_SCALE_ROW, FP8KIT_SCALE_TENSOR}, {"channel", FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_COL}, kBlock};

// The configuration called `name` among `configs`, or null.
template <std::size_t N>
const ScaleConfig* find_config(const ScaleConfig (&configs)[N], const char* name) {
  for (const ScaleConfig& c : configs)
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

}  // namespace fp8kit::tools
