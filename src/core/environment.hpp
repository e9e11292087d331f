// The environment variables fp8kit reads, parsed in one place, once per
// process (at the first call that asks): README "Environment" lists them.
// Development overrides (FP8KIT_SM90_CLUSTER, FP8KIT_MMA_SYNC_TILE,
// FP8KIT_NVFP4_DECODE_WARPS_N) are
// carried as parsed values for the paths that honour them.
#pragma once

#include <string>

#include "fp8kit/fp8kit.h"

namespace fp8kit {

// FP8KIT_SM90_CLUSTER: 1 (no clusters), 2 (where legal, the plan's side),
// 2x / 2y (X / Y shared); unset or anything else: the plan's choice.
enum class ClusterOverride { kPlan, kOff, kOn, kShareX, kShareY };

struct Environment {
  // FP8KIT_PATH: a path name, or unset / empty (AUTO). `path_text` keeps an
  // unparsable value for the message that refuses it.
  bool path_valid = true;
  fp8kit_path path = FP8KIT_PATH_AUTO;
  std::string path_text;
  bool checked = false;              // FP8KIT_CHECKED=1
  bool programmatic_launch = false;  // FP8KIT_PDL=1
  ClusterOverride sm90_cluster = ClusterOverride::kPlan;
  // FP8KIT_SM90_CLUSTER_SPLIT: CTAs per cluster splitting K in Hopper FP8
  // decode, as a positive integer; unset or anything else: 0. The plan takes
  // 1 (none) .. the cluster limit (8) and its own rule for anything else.
  int sm90_cluster_split = 0;
  std::string mma_sync_tile;  // FP8KIT_MMA_SYNC_TILE: a portable tile's name, or empty
  // FP8KIT_NVFP4_DECODE_WARPS_N: 1, 2, 4 or 8 warps along N in the NVFP4
  // decode tiles; unset or anything else: 0, the plan's choice.
  int nvfp4_decode_warps_n = 0;
  // FP8KIT_NVFP4_SM90_TOKENS: 128 or 256 tokens per tile of the Hopper NVFP4
  // prefill and grouped kernels; unset or anything else: 0, the plan's choice.
  int nvfp4_sm90_tokens = 0;
  // FP8KIT_NVFP4_SM90_SPLIT: CTAs per cluster splitting K in the Hopper
  // NVFP4 decode and dense prefill kernels, as a positive integer; unset or
  // anything else: 0. The launchers take 1 .. the cluster limit (8) and the
  // plan's choice for anything else.
  int nvfp4_sm90_split = 0;
};

// The process's environment as fp8kit reads it (read at the first call).
const Environment& environment();

// Reads the environment again: for tests that set variables while running.
// Not safe while another thread is inside fp8kit.
void reload_environment();

}  // namespace fp8kit
