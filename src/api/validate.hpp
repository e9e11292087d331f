// Argument validation of fp8kit_gemm's descriptor, before anything touches the
// device. Each failure names the argument and its value (core/error.hpp).
#pragma once

#include "fp8kit/fp8kit.h"
#include "api/operand_checks.hpp"
#include "gemm/gemm_params.hpp"

namespace fp8kit {

// Every check of fp8kit.h's contract, in the order a reader of fp8kit.h would
// expect; on success `*params` is the problem as kernels take it.
fp8kit_status validate_gemm(const fp8kit_gemm_desc* desc, GemmParams* params);

}  // namespace fp8kit
