// Float64 host reference of fp8kit_grouped_gemm.
//
// Naive by design: each expert's problem is turned into the dense HostGemm of
// gemm_reference.hpp (its rows of A and D, its B, its scales and bias) and
// computed there. The clamping rule of the group array (fp8kit.h) is
// implemented here once, as the tests' statement of what the kernel must do.
#pragma once

#include <cstdint>
#include <vector>

#include "fp8kit/fp8kit.h"
#include "reference/gemm_reference.hpp"

namespace fp8kit::ref {

// Host copies of the grouped operands, same layouts as on the device.
struct HostGrouped {
  fp8kit_grouped_layout layout = FP8KIT_GROUPED_CONTIGUOUS;
  int64_t experts = 0, rows = 0, n = 0, k = 0;  // rows: T or max_m
  const int32_t* groups = nullptr;              // offs or counts, as passed
  const uint8_t* a = nullptr; int64_t lda = 0; fp8kit_dtype a_type = FP8KIT_DTYPE_E4M3;
  const uint8_t* b = nullptr; int64_t ldb = 0; fp8kit_dtype b_type = FP8KIT_DTYPE_E4M3;
  fp8kit_scale_mode a_scale_mode = FP8KIT_SCALE_NONE; const float* a_scale = nullptr;
  fp8kit_scale_mode b_scale_mode = FP8KIT_SCALE_NONE; const float* b_scale = nullptr;
  const void* bias = nullptr; fp8kit_dtype bias_type = FP8KIT_DTYPE_F32;
};

// The rows of A and D an expert owns: [first, first + count).
struct ExpertRows {
  int64_t first = 0, count = 0;
};

// Every expert's rows after clamping: contiguous end_e = min(T, max(end_{e-1},
// offs[e])) from end_{-1} = 0; masked first = e * max_m, count = min(max_m,
// max(0, counts[e])).
std::vector<ExpertRows> expert_rows(fp8kit_grouped_layout layout, int64_t experts, int64_t rows,
                                    const int32_t* groups);

// Rows of A and D in the layout: T, or E * max_m.
int64_t grouped_total_rows(const HostGrouped& g);

// Expert e's problem as a dense one whose row 0 is D row `rows.first`. A's
// block scales are regathered into `a_block_scratch` (the dense layout
// [ceil(K/128), count]); the view points into it and must not outlive it.
HostGemm expert_gemm(const HostGrouped& g, int64_t e, const ExpertRows& rows, std::vector<float>* a_block_scratch);

// The whole D [R, N] in double, row-major (ld = n); rows of no expert are NaN.
std::vector<double> reference_grouped(const HostGrouped& g);

}  // namespace fp8kit::ref
