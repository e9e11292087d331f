// Decode as servers run it: the GEMMs of a decode step captured once into a
// CUDA graph and replayed, so that launch overhead between kernels is the
// graph's, not the host's. fp8kit_bench --graph times the decode rows so.
#pragma once

#include <functional>
#include <string>

#include <cuda_runtime_api.h>

namespace fp8bench {

// GEMMs per graph: about one decoder layer's worth of projections times a few
// layers, each on its own weights.
constexpr int kGraphGemms = 32;

struct GraphTiming {
  bool ok = false;
  std::string error;      // why the capture or a replay failed (ok == false)
  double us_per_gemm = 0.0;  // median replay time / kGraphGemms
  int replays = 0;
};

// Captures call(0) ... call(kGraphGemms - 1) on `stream` (each enqueues one
// GEMM on its own input set) into a graph, replays it `warmups` times, then
// times `replays` replays one by one with events; the median replay over
// kGraphGemms. A capture the library refuses gives ok == false, not a throw.
GraphTiming time_graph(cudaStream_t stream, int warmups, int replays, const std::function<void(int)>& call);

}  // namespace fp8bench
