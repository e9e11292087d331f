// The validated grouped problem as kernels receive it (by value; everything
// here has passed api/grouped_validate.cpp). Its paths are registered in
// gemm/dispatch.hpp.
#pragma once

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

}  // namespace fp8kit
