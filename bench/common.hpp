// Shared pieces of fp8kit_bench: exit codes, error types, the scale modes it
// compares, and the helpers it takes from fp8kit's single definitions.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include "core/dtype.hpp"
#include "core/math.hpp"
#include "core/scale_layout.hpp"
#include "fp8kit/fp8kit.h"
#include "tools/exit_codes.hpp"
#include "tools/scale_configs.hpp"

namespace fp8bench {

// Process exit codes (docs/bench.md): a failed sampled check is a finding.
using fp8kit::tools::kExitBadInput;
using fp8kit::tools::kExitCuda;
using fp8kit::tools::kExitFindings;
using fp8kit::tools::kExitOk;

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
// the matching cuBLASLt pair; named as tools/scale_configs.hpp names them.
enum class Mode {
  Tensor,        // A TENSOR x B TENSOR      | SCALAR_32F x SCALAR_32F
  TokenChannel,  // A ROW (per token) x B COL (per channel) | OUTER_VEC_32F x OUTER_VEC_32F
  Block          // A 1x128 BLOCK x B 128x128 BLOCK | VEC128_32F x BLK128x128_32F
};

const fp8kit::tools::ScaleConfig& scale_config(Mode mode);
inline const char* mode_name(Mode mode) { return scale_config(mode).name; }
inline fp8kit_scale_mode a_scale_mode(Mode mode) { return scale_config(mode).a; }
inline fp8kit_scale_mode b_scale_mode(Mode mode) { return scale_config(mode).b; }
bool parse_mode(const std::string& text, Mode* mode);
// "tensor, token-channel, block": what --modes takes.
std::string mode_names();

using fp8kit::ceil_div;
using fp8kit::dtype_bytes;
using fp8kit::kScaleBlock;  // K (and N for B) extent of one block scale
using fp8kit::round_up;

}  // namespace fp8bench
