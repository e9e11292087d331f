// The audit's one worker pool shape: fn(worker, i) for i in [0, n) on up to
// `threads` threads, items taken in order from a shared counter.
#pragma once

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace fp8kit::audit {

template <typename Fn>
void parallel_for(std::size_t n, unsigned threads, Fn fn) {
  std::atomic<std::size_t> next{0};
  auto work = [&](unsigned w) {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) fn(w, i);
  };
  if (threads <= 1 || n <= 1) {
    work(0);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (std::thread& t : pool) t.join();
}

}  // namespace fp8kit::audit
