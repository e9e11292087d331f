// fp8kit_nvfp4_bench's grouped rows: masked NVFP4 decode of MoE expert layers
// (nvfp4_grouped.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

namespace fp8bench {

// Times each case of the grouped decode suite inside a CUDA graph of
// kGraphGemms masked calls over distinct layers, prints a row per case and
// appends it to `rows`.
void run_nvfp4_grouped_decode(cudaStream_t stream, int warmups, int replays, double copy_gbs,
                              nlohmann::ordered_json* rows);

}  // namespace fp8bench
