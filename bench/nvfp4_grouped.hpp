// fp8kit_nvfp4_bench's grouped rows: masked NVFP4 decode and contiguous
// prefill of MoE expert layers (nvfp4_grouped.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

#include "device.hpp"

namespace fp8bench {

// Times each case of the grouped decode suite inside a CUDA graph of
// kGraphGemms masked calls over distinct layers, prints a row per case and
// appends it to `rows`.
void run_nvfp4_grouped_decode(cudaStream_t stream, int warmups, int replays, double copy_gbs,
                              nlohmann::ordered_json* rows);

// Times each case of the contiguous prefill suite, one grouped call beside a
// loop of dense calls per expert, prints a row per case and appends it to
// `rows`.
void run_nvfp4_grouped_prefill(Timer& timer, cudaStream_t stream, int warmups, int iters, double budget_ms,
                               nlohmann::ordered_json* rows);

}  // namespace fp8bench
