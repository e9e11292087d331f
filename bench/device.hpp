// Device-side helpers of fp8kit_bench: random FP8 inputs, grow-only device
// buffers, and the event timing of a batch of calls queued back to back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <cuda_runtime_api.h>

namespace fp8bench {

// Writes `count` e4m3 bytes, each the round-to-nearest encoding of an N(0,1)
// sample drawn from a counter-based hash of (seed, index). The encoding
// saturates, so no NaN is ever written; zeros are as rare as in real data.
void fill_normal_e4m3(uint8_t* dst, size_t count, uint64_t seed, cudaStream_t stream);

// Device memory that only grows: reused across shapes so the suite does not
// pay an allocation per configuration.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  void* reserve(size_t bytes);  // contents are not kept when it grows
  void* reserve_zeroed(size_t bytes);  // as reserve; zero-filled whenever it is (re)allocated
  void release();
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

struct Timing {
  double median_us = 0.0;
  double min_us = 0.0;
  int runs = 0;
};

// Times calls of one or more contenders, interleaved: each round calls every
// contender once. Each call gets the next index (counting across warm-ups,
// rounds and contenders), so callers that pick input set index % sets never
// hand one contender the inputs the previous call just pulled into L2. Interleaving gives every
// contender the same clocks and temperature, so their ratio does not depend
// on which ran first. After `warmups` rounds, the timed rounds are queued
// behind a spin kernel that holds the stream until all calls and their events
// are queued, so host launch gaps do not count; each contender's time is the
// median of its per-call event intervals. The number of timed rounds is
// max_iters, lowered to fit budget_ms (but at least kMinTimedCalls).
class Timer {
 public:
  static constexpr int kMinTimedCalls = 5;

  explicit Timer(cudaStream_t stream);
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  ~Timer();

  using Call = std::function<void(int)>;
  std::vector<Timing> time(int warmups, int max_iters, double budget_ms, const std::vector<Call>& calls);
  Timing time(int warmups, int max_iters, double budget_ms, const Call& call) {
    return time(warmups, max_iters, budget_ms, std::vector<Call>{call}).front();
  }
  // The bursty protocol: a memset of `bytes` before every timed call (not
  // inside its time), as DeepGEMM's bench_kineto clears memory between calls.
  void flush_before_each_call(size_t bytes);
  // Times the D2D copy of a large buffer (read + write) and returns GB/s.
  double copy_bandwidth_gbs(size_t bytes, int iters);
  // True if a spin kernel ever gave up waiting (the numbers may then include
  // launch gaps); reported in the output.
  bool any_timeout() const { return any_timeout_; }

 private:
  void block();
  void release();

  cudaStream_t stream_;
  static constexpr int kMaxEvents = 1024;
  cudaEvent_t events_[kMaxEvents] = {};
  volatile int* flag_ = nullptr;      // host-mapped: 1 releases the spin kernel
  volatile int* timed_out_ = nullptr; // host-mapped: set by a spin kernel that gave up
  bool any_timeout_ = false;
  void* flush_ = nullptr;  // bursty protocol's memset target, or null (steady)
  size_t flush_bytes_ = 0;
};

}  // namespace fp8bench
