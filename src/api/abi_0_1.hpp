// The structs of fp8kit 0.1, frozen: what a program built against the 0.1
// header passes (no struct_size; tests/abi keeps that header). The FP8KIT_0.1
// symbols of libfp8kit.so.0 (api/abi_0_1.cpp) read these layouts and run the
// current entry points. Only the 0.1 fields exist here: a program built
// between 0.1 and 0.2 against a header that had already appended fields
// (programmatic_launch, workspace_zeroed) gets their defaults.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fp8kit/fp8kit.h"

namespace fp8kit::abi_0_1 {

// The operand fields both 0.1 descriptors had, in their order. 0.1 had them
// flat; as a struct of 8-byte alignment they land at the same offsets (each
// descriptor's field before them ends at a multiple of 8), which the size
// asserts below and tests/abi hold to.
struct Operands {
  const void* a;
  int64_t lda;
  fp8kit_dtype a_type;
  const void* b;
  int64_t ldb;
  fp8kit_dtype b_type;
  void* d;
  int64_t ldd;
  fp8kit_dtype d_type;
  fp8kit_scale_mode a_scale_mode;
  const float* a_scale;
  fp8kit_scale_mode b_scale_mode;
  const float* b_scale;
  const void* bias;
  fp8kit_dtype bias_type;
};

struct GemmDesc {
  int64_t m, n, k;
  Operands op;
};

struct GemmOptions {
  fp8kit_path path;
  int checked;
  void* workspace;
  size_t workspace_size;
};

struct GroupedGemmDesc {
  fp8kit_grouped_layout layout;
  int64_t experts, rows, n, k;
  const int32_t* offs;
  const int32_t* counts;
  Operands op;
};

struct QuantizeDesc {
  int64_t m, k;
  const void* x;
  int64_t ldx;
  fp8kit_dtype x_type;
  void* q;
  int64_t ldq;
  fp8kit_dtype q_type;
  fp8kit_scale_mode mode;
  float* scale;
  const void* rms_weight;
  float eps;
};

struct PathChoice {
  fp8kit_path path;
  fp8kit_tensor_cores tensor_cores;
  const char* family;
  const char* image;
};

// The 0.1 sizes on LP64 (every platform fp8kit builds for): the layouts above
// must not drift from the frozen header.
static_assert(sizeof(GemmDesc) == 136 && sizeof(GemmOptions) == 24 && sizeof(GroupedGemmDesc) == 168 &&
                  sizeof(QuantizeDesc) == 88 && sizeof(PathChoice) == 24,
              "the fp8kit 0.1 layouts");
static_assert(offsetof(GemmDesc, op) == 24 && offsetof(GroupedGemmDesc, op) == 56 && sizeof(Operands) == 112,
              "the 0.1 operand fields where the flat 0.1 descriptors had them");

}  // namespace fp8kit::abi_0_1
