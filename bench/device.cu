#include "device.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <cuda_fp8.h>

#include "common.hpp"

namespace fp8bench {
namespace {

constexpr int kFillThreads = 256;
constexpr int kFillMaxBlocks = 65536;
// A spin kernel waits at most this long for the host to queue a batch.
constexpr unsigned long long kBlockTimeoutNs = 5ull * 1000 * 1000 * 1000;

__host__ __device__ inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Each thread step makes two N(0,1) samples (Box-Muller on one 64-bit hash)
// and writes them as two adjacent e4m3 bytes.
__global__ void fill_normal_e4m3_kernel(uint8_t* dst, size_t count, uint64_t seed) {
  const size_t pairs = (count + 1) / 2;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t p = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; p < pairs; p += stride) {
    const uint64_t h = splitmix64(seed ^ splitmix64(p));
    // 24-bit uniforms in (0, 1]: log() never sees 0.
    const float u1 = (static_cast<float>(h & 0xFFFFFF) + 1.0f) * (1.0f / 16777216.0f);
    const float u2 = static_cast<float>((h >> 32) & 0xFFFFFF) * (1.0f / 16777216.0f);
    const float r = sqrtf(-2.0f * logf(u1));
    float s, c;
    sincospif(2.0f * u2, &s, &c);
    const size_t i = 2 * p;
    dst[i] = __nv_cvt_float_to_fp8(r * c, __NV_SATFINITE, __NV_E4M3);
    if (i + 1 < count) dst[i + 1] = __nv_cvt_float_to_fp8(r * s, __NV_SATFINITE, __NV_E4M3);
  }
}

__device__ inline unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_until_released(volatile int* flag, volatile int* timed_out, unsigned long long timeout_ns) {
  const unsigned long long start = global_ns();
  while (*flag == 0) {
    if (global_ns() - start > timeout_ns) {
      *timed_out = 1;
      break;
    }
  }
}

}  // namespace

void fill_normal_e4m3(uint8_t* dst, size_t count, uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  const size_t pairs = (count + 1) / 2;
  const int blocks = static_cast<int>(std::min<int64_t>(ceil_div(static_cast<int64_t>(pairs), kFillThreads), kFillMaxBlocks));
  fill_normal_e4m3_kernel<<<blocks, kFillThreads, 0, stream>>>(dst, count, seed);
  BENCH_CUDA(cudaGetLastError());
}

DeviceBuffer::~DeviceBuffer() { release(); }

void* DeviceBuffer::reserve(size_t bytes) {
  if (bytes <= bytes_) return ptr_;
  release();
  BENCH_CUDA(cudaMalloc(&ptr_, bytes));
  bytes_ = bytes;
  return ptr_;
}

void* DeviceBuffer::reserve_zeroed(size_t bytes) {
  if (bytes <= bytes_) return ptr_;
  reserve(bytes);
  BENCH_CUDA(cudaMemset(ptr_, 0, bytes_));
  return ptr_;
}

void DeviceBuffer::release() {
  if (ptr_) cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
}

Timer::Timer(cudaStream_t stream) : stream_(stream) {
  for (auto& e : events_) BENCH_CUDA(cudaEventCreate(&e));
  void* mapped = nullptr;
  BENCH_CUDA(cudaHostAlloc(&mapped, 2 * sizeof(int), cudaHostAllocMapped));
  flag_ = static_cast<volatile int*>(mapped);
  timed_out_ = flag_ + 1;
  flag_[0] = 0;
  timed_out_[0] = 0;
}

Timer::~Timer() {
  for (auto& e : events_) cudaEventDestroy(e);
  if (flush_) cudaFree(flush_);
  cudaFreeHost(const_cast<int*>(flag_));
}

void Timer::flush_before_each_call(size_t bytes) {
  BENCH_CUDA(cudaMalloc(&flush_, bytes));
  flush_bytes_ = bytes;
}

void Timer::block() {
  *flag_ = 0;
  *timed_out_ = 0;
  // Host-mapped memory is reachable through its host address under UVA.
  spin_until_released<<<1, 1, 0, stream_>>>(flag_, timed_out_, kBlockTimeoutNs);
  BENCH_CUDA(cudaGetLastError());
}

void Timer::release() {
  __atomic_store_n(const_cast<int*>(flag_), 1, __ATOMIC_SEQ_CST);
  BENCH_CUDA(cudaStreamSynchronize(stream_));
  if (*timed_out_) any_timeout_ = true;
}

std::vector<Timing> Timer::time(int warmups, int max_iters, double budget_ms, const std::vector<Call>& calls) {
  const int contenders = static_cast<int>(calls.size());
  int index = 0;
  BENCH_CUDA(cudaEventRecord(events_[0], stream_));
  for (int i = 0; i < warmups; ++i)
    for (const Call& call : calls) call(index++);
  BENCH_CUDA(cudaEventRecord(events_[1], stream_));
  BENCH_CUDA(cudaStreamSynchronize(stream_));
  float warm_ms = 0.0f;
  BENCH_CUDA(cudaEventElapsedTime(&warm_ms, events_[0], events_[1]));
  const int events_per_call = flush_ ? 2 : 1;  // bursty: a start event after each flush
  int rounds = std::min(max_iters, (kMaxEvents - 1) / (events_per_call * std::max(contenders, 1)));
  if (warmups > 0 && warm_ms > 0.0f) {
    const double fitting = budget_ms / (warm_ms / warmups);
    if (fitting < rounds) rounds = std::max(kMinTimedCalls, static_cast<int>(fitting));
  }
  rounds = std::max(rounds, 1);

  block();
  BENCH_CUDA(cudaEventRecord(events_[0], stream_));
  int event = 0;
  for (int r = 0; r < rounds; ++r)
    for (const Call& call : calls) {
      if (flush_) {
        BENCH_CUDA(cudaMemsetAsync(flush_, 0, flush_bytes_, stream_));
        BENCH_CUDA(cudaEventRecord(events_[++event], stream_));
      }
      call(index++);
      BENCH_CUDA(cudaEventRecord(events_[++event], stream_));
    }
  release();

  std::vector<Timing> timings(contenders);
  std::vector<double> us(rounds);
  for (int c = 0; c < contenders; ++c) {
    for (int r = 0; r < rounds; ++r) {
      const int end = (r * contenders + c + 1) * events_per_call;
      float ms = 0.0f;
      BENCH_CUDA(cudaEventElapsedTime(&ms, events_[end - 1], events_[end]));
      us[r] = 1000.0 * ms;
    }
    std::sort(us.begin(), us.end());
    Timing& t = timings[c];
    t.runs = rounds;
    t.min_us = us.front();
    t.median_us = rounds % 2 ? us[rounds / 2] : 0.5 * (us[rounds / 2 - 1] + us[rounds / 2]);
  }
  return timings;
}

double Timer::copy_bandwidth_gbs(size_t bytes, int iters) {
  void* src = nullptr;
  void* dst = nullptr;
  BENCH_CUDA(cudaMalloc(&src, bytes));
  BENCH_CUDA(cudaMalloc(&dst, bytes));
  constexpr uint64_t kCopySeed = 1;
  constexpr int kCopyWarmups = 3;
  constexpr double kNoBudget = 1e30;
  fill_normal_e4m3(static_cast<uint8_t*>(src), bytes, kCopySeed, stream_);
  const Timing t = time(kCopyWarmups, iters, kNoBudget, [&](int) {
    BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
  });
  BENCH_CUDA(cudaFree(src));
  BENCH_CUDA(cudaFree(dst));
  return 2.0 * static_cast<double>(bytes) / (t.median_us * 1e3);
}

}  // namespace fp8bench
