// What the NVFP4 GEMM paths receive: the validated problems
// (api/nvfp4_validate.cpp) as kernels take them, by value. Plain C++, so host
// code includes it without the CUDA compiler. Their registries are
// gemm/nvfp4/nvfp4_dispatch.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "core/registry.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit {

struct Nvfp4Params {
  int m, n, k;
  int k_blocks;  // K / 16: scale blocks per row
  const uint8_t* a;
  int64_t lda;  // bytes (NVFP4 A) or elements (bf16 / f16 A)
  const uint8_t* a_scale;  // NVFP4 A only
  const uint8_t* b;
  int64_t ldb;  // bytes
  const uint8_t* b_scale;
  const float* alpha;  // [1]; nullptr: 1.0
  void* d;
  int64_t ldd;  // elements of d_type
  const void* bias;  // nullptr: none
  fp8kit_dtype a_type, d_type, bias_type;
  int a_scale_layout, b_scale_layout;  // fp8kit_nvfp4_scale_layout values, checked
  // The row of A's scale matrix that row 0 of this problem is (a contiguous
  // grouped problem's experts share one scale matrix of all T rows); 0 dense.
  int a_scale_row0;
  // Decode tiles only: warps along N of the CTA's 8 (1, 2, 4 or 8: 16 rows
  // each; the rest split K), chosen on the host (nvfp4_plan.hpp).
  int decode_warps_n;
  // sm90_wgmma runs NVFP4 A beyond its decode kernel as bf16: A widened
  // (exactly) into the caller's workspace, [rows, K] with pitch K, then the
  // W4A16 kernels. a_widen: the call lent workspace enough for that (a size
  // query sets it to ask what widening would need); a_wide: that workspace,
  // nullptr in a query.
  bool a_widen;
  void* a_wide;
};

struct Nvfp4GroupedParams {
  fp8kit_grouped_layout layout;
  int experts;  // E
  int rows;     // contiguous: T; masked: max_m
  const int32_t* groups;  // contiguous: offs [E]; masked: counts [E]
  // Expert 0's operands; dense.m is unused (rows come from `groups`).
  Nvfp4Params dense;
  int64_t b_expert_stride;        // bytes: N * ldb
  int64_t b_scale_expert_stride;  // bytes of one expert's B scales
  int64_t a_scale_expert_stride;  // masked: bytes of one expert's A scales
};

// Bytes of A widened to bf16: `rows` rows of K elements.
constexpr int64_t nvfp4_widened_bytes(int64_t rows, int64_t k) { return rows * k * 2; }

// The rows of A a grouped problem holds: contiguous T; masked E x max_m.
constexpr int64_t nvfp4_grouped_a_rows(const Nvfp4GroupedParams& g) {
  return g.layout == FP8KIT_GROUPED_MASKED ? int64_t{g.experts} * g.rows : g.rows;
}

// The CTA tiles along M of a grouped launch, from host-known bounds only
// (gemm/grouped/grouped_params.hpp states the rule for the FP8 kernels).
constexpr int64_t nvfp4_grouped_m_slots(const Nvfp4GroupedParams& g, int block_m) {
  return g.layout == FP8KIT_GROUPED_MASKED ? g.experts * ((g.rows + block_m - 1) / block_m)
                                           : (g.rows + block_m - 1) / block_m + g.experts;
}

template <>
const std::vector<const KernelPath<Nvfp4Params>*>& registry<Nvfp4Params>();
template <>
const std::vector<const KernelPath<Nvfp4GroupedParams>*>& registry<Nvfp4GroupedParams>();

}  // namespace fp8kit
