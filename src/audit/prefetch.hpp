// Read-ahead for the audit's files: a background thread asks the kernel to
// read every file, in the order the audit will map them, while the workers
// are busy with earlier ones, staying at most `window` bytes ahead of the
// batch in work (the page cache, not the resident set, holds what it reads).
//
// Why chunks: Linux caps one POSIX_FADV_WILLNEED call at the device's
// read-ahead size (read_ahead_kb, often 128 KiB), so one call over a whole
// file reads only its first pages. Calls of kChunk bytes each are queued
// without waiting, which keeps the disk's queue deep instead of one 4 KiB
// page fault at a time (docs/audit.md "Speed and memory").
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fp8kit::audit {

class Prefetcher {
 public:
  struct File {
    std::string path;  // empty: bytes already in memory, nothing to read
    std::size_t size = 0;
  };
  static constexpr std::size_t kChunk = std::size_t{128} << 10;  // the smallest usual read_ahead_kb

  // Starts reading `files` (in audit order) at once, up to `window` bytes.
  Prefetcher(std::vector<File> files, std::size_t window);
  ~Prefetcher();  // stops and joins
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The audit has started on the file at this index: read up to `window`
  // bytes past its start.
  void reached(std::size_t file_index);

 private:
  void run();

  std::vector<File> files_;
  std::vector<std::size_t> starts_;  // byte position of each file in the sequence
  std::size_t window_;
  std::size_t limit_;  // read nothing that starts at or past this position
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace fp8kit::audit
