// A grouped NVFP4 problem's expert as a dense problem: what every grouped
// NVFP4 kernel (the portable tiles, nvfp4_tile.cuh; Hopper's,
// nvfp4_sm90_grouped_kernel.cuh) runs once its CTA has found its expert tile
// (gemm/grouped/expert_tiles.cuh).
#pragma once

#include "arch/config.hpp"
#include "core/dtype.hpp"
#include "gemm/grouped/expert_tiles.cuh"
#include "gemm/nvfp4/nvfp4_params.hpp"

namespace fp8kit::nvfp4 {

#if FP8KIT_ARCH_IN(FP8KIT_ARCH_ANY_MIN, FP8KIT_ARCH_END)

// The first row of expert e's rows in A and D: contiguous counts from the top
// of A, masked from the top of expert e's slab.
__device__ __forceinline__ int64_t expert_row0(const Nvfp4GroupedParams& g, const grouped::ExpertTile& t) {
  return g.layout == FP8KIT_GROUPED_MASKED ? int64_t{t.expert} * g.rows : t.start;
}

// Expert t.expert's problem as gemm_tile sees it: base pointers moved to its
// first row and its weights, row limit its row count.
__device__ __forceinline__ void expert_problem(const Nvfp4GroupedParams& g, const grouped::ExpertTile& t,
                                               Nvfp4Params* p) {
  const Nvfp4Params& d = g.dense;
  const bool masked = g.layout == FP8KIT_GROUPED_MASKED;
  const int64_t e = t.expert;
  const int64_t row0 = expert_row0(g, t);
  const int64_t a_row_bytes = d.a_type == FP8KIT_DTYPE_NVFP4 ? d.lda : d.lda * 2;
  *p = d;
  p->m = t.rows;
  p->a = d.a + row0 * a_row_bytes;
  p->b = d.b + e * g.b_expert_stride;
  p->b_scale = d.b_scale + e * g.b_scale_expert_stride;
  // Masked: each expert's A scales are a matrix of its own; contiguous: one
  // matrix of all T rows, the expert's rows from its first.
  if (d.a_scale) p->a_scale = d.a_scale + (masked ? e * g.a_scale_expert_stride : 0);
  p->a_scale_row0 = masked ? 0 : t.start;
  if (d.alpha) p->alpha = d.alpha + e;
  p->d = static_cast<uint8_t*>(d.d) + row0 * d.ldd * dtype_bytes(d.d_type);
  if (d.bias) p->bias = static_cast<const uint8_t*>(d.bias) + e * d.n * dtype_bytes(d.bias_type);
}

#endif  // FP8KIT_ARCH_IN(any)

}  // namespace fp8kit::nvfp4
