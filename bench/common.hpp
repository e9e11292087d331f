// Shared pieces of fp8kit_bench: exit codes, error types, the scale modes it
// compares, and small helpers.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include "fp8kit/fp8kit.h"
#include "reference/fp8_codec.hpp"

namespace fp8bench {

// Process exit codes (docs/bench.md).
constexpr int kExitOk = 0;
constexpr int kExitCheckFailed = 1;
constexpr int kExitBadArgs = 2;
constexpr int kExitCudaError = 3;

// A CUDA, cuBLASLt or fp8kit call failed in a way the run cannot continue
// from (exit code 3).
struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bad command line or suite file (exit code 2).
struct BadArgs : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void throw_cuda(cudaError_t err, const char* what, const char* file, int line);

#define BENCH_CUDA(call)                                                  \
  do {                                                                    \
    const cudaError_t bench_err_ = (call);                                \
    if (bench_err_ != cudaSuccess)                                        \
      ::fp8bench::throw_cuda(bench_err_, #call, __FILE__, __LINE__);      \
  } while (0)

// The scale configurations the bench compares, each one fp8kit mode pair and
// the matching cuBLASLt pair.
enum class Mode {
  Tensor,   // A TENSOR x B TENSOR      | SCALAR_32F x SCALAR_32F
  Channel,  // A ROW (per token) x B COL (per channel) | OUTER_VEC_32F x OUTER_VEC_32F
  Block     // A 1x128 BLOCK x B 128x128 BLOCK | VEC128_32F x BLK128x128_32F
};

const char* mode_name(Mode mode);
bool parse_mode(const std::string& text, Mode* mode);
fp8kit_scale_mode a_scale_mode(Mode mode);
fp8kit_scale_mode b_scale_mode(Mode mode);

constexpr int64_t kScaleBlock = 128;  // K (and N for B) extent of one block scale

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

using fp8kit::ref::dtype_bytes;

}  // namespace fp8bench
