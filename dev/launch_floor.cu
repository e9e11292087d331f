// What a decode-sized kernel costs in a graph before any GEMM work: the
// floor under fp8kit's short-grid decode figures.
//
// Each row captures kLayers launches of one kernel, each on its own buffer
// (so the weights stream from HBM as a decode step's layers do), into a CUDA
// graph with or without programmatic dependent launch, replays it, and
// reports the median replay over kLayers. The kernel streams `bytes` of its
// layer's buffer with 16-byte loads issued before griddepcontrol.wait (the
// weights never depend on the previous layer), as the decode kernels do, then
// lets the next grid launch (or lets it at the start: `early`) and writes one
// word per CTA. bytes = 0 is the empty kernel: launch, residency and the PDL
// hand-off alone.
//
//   launch_floor [--json]   one row per (bytes, grid, smem, cluster, trigger)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kLayers = 32;        // as fp8bench::kGraphGemms
constexpr int kThreads = 384;      // the decode kernels' CTA: three warpgroups
constexpr int kLoadsInFlight = 4;  // 16-byte loads per thread per sweep
constexpr int kWarmups = 20;
constexpr int kReplays = 200;

#define CHECK(call)                                                                      \
  do {                                                                                   \
    const cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

// in: (bytes / 16) uint4 of this layer; out: one word per CTA. The dynamic
// shared memory is only reserved, to set how many CTAs an SM holds.
// early: trigger the next grid at the start (it may then hold the SM's other
// slot and stream its own weights while this grid runs), not after the loads.
__global__ void __launch_bounds__(kThreads) stream_layer(const uint4* __restrict__ in, int64_t vecs,
                                                          uint32_t* __restrict__ out, bool early) {
  if (early) asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  uint32_t acc = 0;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < vecs; i += stride * kLoadsInFlight) {
    uint4 v[kLoadsInFlight];
#pragma unroll
    for (int j = 0; j < kLoadsInFlight; ++j) v[j] = i + j * stride < vecs ? __ldg(in + i + j * stride) : uint4{};
#pragma unroll
    for (int j = 0; j < kLoadsInFlight; ++j) acc ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
  }
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  acc = __reduce_xor_sync(0xffffffffu, acc);  // keeps the loads; the value is not checked
  if (threadIdx.x % 32 == 0) atomicXor(out + blockIdx.x, acc);
}

struct Row {
  int64_t bytes;
  int grid;
  int smem;
  int cluster;
  bool pdl;
  bool early;  // with pdl: trigger at the start
};

double time_row(const Row& r, const std::vector<uint4*>& bufs, uint32_t* out, cudaStream_t s) {
  CHECK(cudaFuncSetAttribute(stream_layer, cudaFuncAttributeMaxDynamicSharedMemorySize, r.smem));
  cudaLaunchAttribute attrs[2]{};
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = static_cast<unsigned>(r.cluster);
  attrs[0].val.clusterDim.y = attrs[0].val.clusterDim.z = 1;
  attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(r.grid);
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = static_cast<size_t>(r.smem);
  cfg.stream = s;
  cfg.attrs = attrs;
  cfg.numAttrs = r.pdl ? 2 : 1;
  cudaGraph_t g;
  cudaGraphExec_t x;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int l = 0; l < kLayers; ++l)
    CHECK(cudaLaunchKernelEx(&cfg, stream_layer, static_cast<const uint4*>(bufs[l]), r.bytes / 16, out, r.early));
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&x, g, 0));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < kWarmups; ++i) CHECK(cudaGraphLaunch(x, s));
  std::vector<float> ms(kReplays);
  for (float& t : ms) {
    CHECK(cudaEventRecord(a, s));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&t, a, b));
  }
  std::sort(ms.begin(), ms.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  CHECK(cudaGraphExecDestroy(x));
  CHECK(cudaGraphDestroy(g));
  return 1e3 * ms[ms.size() / 2] / kLayers;
}

}  // namespace

int main(int argc, char** argv) {
  const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  int dev = 0, sms = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  // Layer sizes: 0 (empty), NVFP4 4096 x 4096 (packed + scales), FP8 4096 x 4096,
  // NVFP4 14336 x 4096, NVFP4 28672 x 4096.
  const int64_t sizes[] = {0, 9437184, 16777216, 33030144, 66060288};
  const int64_t max_bytes = *std::max_element(std::begin(sizes), std::end(sizes));
  std::vector<uint4*> bufs(kLayers);
  for (auto& p : bufs) {
    CHECK(cudaMalloc(&p, static_cast<size_t>(max_bytes)));
    CHECK(cudaMemset(p, 1, static_cast<size_t>(max_bytes)));
  }
  // grid: one or two CTAs per SM; smem: none, or 100 KB, which holds an SM
  // to two CTAs as the decode kernels' registers do: at two per SM the next
  // layer's CTAs cannot be resident before this layer's leave.
  // The grids are whole 8-CTA clusters (the decode kernels' split-K cluster).
  constexpr int kMaxCluster = 8;
  const int wave = sms / kMaxCluster * kMaxCluster;
  const int grids[] = {wave, 2 * wave};
  const int smems[] = {0, 100 * 1024};
  const int clusters[] = {1, kMaxCluster};
  uint32_t* out;  // one word per CTA of the larger grid
  CHECK(cudaMalloc(&out, sizeof(uint32_t) * static_cast<size_t>(grids[1])));
  CHECK(cudaMemset(out, 0, sizeof(uint32_t) * static_cast<size_t>(grids[1])));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (json) std::printf("[\n");
  bool first = true;
  for (int64_t bytes : sizes)
    for (int grid : grids)
      for (int smem : smems)
        for (int cluster : clusters)
          for (int trigger = 0; trigger < 3; ++trigger) {  // no PDL, PDL late, PDL early
            const bool pdl = trigger > 0, early = trigger == 2;
            const Row r{bytes, grid, smem, cluster, pdl, early};
            const double us = time_row(r, bufs, out, s);
            const double gbs = bytes ? bytes / us * 1e-3 : 0.0;
            if (json)
              std::printf(
                  "%s  {\"bytes\": %lld, \"grid\": %d, \"smem\": %d, \"cluster\": %d, \"pdl\": %s, \"early\": %s, "
                  "\"us\": %.3f, \"gbs\": %.1f}",
                  first ? "" : ",\n", static_cast<long long>(bytes), grid, smem, cluster, pdl ? "true" : "false",
                  early ? "true" : "false", us, gbs);
            else
              std::printf("bytes %9lld grid %4d smem %6d cluster %d pdl %d early %d  %7.2f us  %7.1f GB/s\n",
                          static_cast<long long>(bytes), grid, smem, cluster, pdl ? 1 : 0, early ? 1 : 0, us, gbs);
            first = false;
          }
  if (json) std::printf("\n]\n");
  for (auto* p : bufs) CHECK(cudaFree(p));
  CHECK(cudaFree(out));
  return 0;
}
