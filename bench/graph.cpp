#include "graph.hpp"

#include <algorithm>
#include <exception>
#include <vector>

#include "common.hpp"

namespace fp8bench {
namespace {

// Owns what a capture creates, so every early return cleans up.
struct GraphParts {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  ~GraphParts() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

GraphTiming failed(const std::string& why) {
  GraphTiming t;
  t.error = why;
  return t;
}

}  // namespace

GraphTiming time_graph(cudaStream_t stream, int warmups, int replays, const std::function<void(int)>& call) {
  GraphParts g;
  BENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  std::string call_error;
  try {
    for (int i = 0; i < kGraphGemms; ++i) call(i);
  } catch (const std::exception& e) {
    call_error = e.what();
  }
  const cudaError_t end = cudaStreamEndCapture(stream, &g.graph);
  cudaGetLastError();  // a failed capture is reported, not left behind
  if (!call_error.empty()) return failed("capture: " + call_error);
  if (end != cudaSuccess) return failed(std::string("capture: ") + cudaGetErrorString(end));
  if (const cudaError_t e = cudaGraphInstantiate(&g.exec, g.graph, 0); e != cudaSuccess)
    return failed(std::string("instantiate: ") + cudaGetErrorString(e));
  BENCH_CUDA(cudaEventCreate(&g.start));
  BENCH_CUDA(cudaEventCreate(&g.stop));
  for (int i = 0; i < warmups; ++i) BENCH_CUDA(cudaGraphLaunch(g.exec, stream));
  std::vector<float> ms(static_cast<size_t>(std::max(replays, 1)));
  for (float& t : ms) {
    BENCH_CUDA(cudaEventRecord(g.start, stream));
    BENCH_CUDA(cudaGraphLaunch(g.exec, stream));
    BENCH_CUDA(cudaEventRecord(g.stop, stream));
    BENCH_CUDA(cudaEventSynchronize(g.stop));
    BENCH_CUDA(cudaEventElapsedTime(&t, g.start, g.stop));
  }
  std::sort(ms.begin(), ms.end());
  GraphTiming t;
  t.ok = true;
  t.replays = static_cast<int>(ms.size());
  t.us_per_gemm = ms[ms.size() / 2] * 1e3 / kGraphGemms;
  return t;
}

}  // namespace fp8bench
