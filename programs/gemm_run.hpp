// One checked, timed GEMM on random data: shared by `fp8kit gemm` and
// `fp8kit doctor` (work, no printing).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "reference/gemm_check.hpp"
#include "reference/nvfp4_check.hpp"

namespace fp8kit::cli {

struct GemmRun {
  ref::GemmCase spec{256, 256, 256};
  fp8kit_path path = FP8KIT_PATH_AUTO;
  int iters = 0;  // timed repetitions after the checked run; 0: no timing
};

// Result: {"ok", "status", "message", "path", "checked", "failures",
// "worst_error_over_bound", "relative_norm_error", "median_us", "tflops"}.
nlohmann::json run_gemm(const GemmRun& run);

struct Nvfp4Run {
  ref::Nvfp4Case spec{256, 256, 256};
  fp8kit_path path = FP8KIT_PATH_AUTO;
  int iters = 0;
};

// One checked NVFP4 GEMM (fp8kit/nvfp4.h), then as run_gemm: the same keys.
nlohmann::json run_nvfp4_gemm(const Nvfp4Run& run);

}  // namespace fp8kit::cli
