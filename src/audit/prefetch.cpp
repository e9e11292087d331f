#include "audit/prefetch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "audit/bytes.hpp"
#include "audit/elf.hpp"

namespace fp8kit::audit {

namespace {

constexpr std::size_t kElfHeader = 64;
constexpr std::size_t kMaxSectionTable = std::size_t{16} << 20;

struct Span {
  std::size_t lo, hi;
};

bool pread_all(int fd, std::vector<std::uint8_t>& buf, std::uint64_t off) {
  return ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(off)) == static_cast<ssize_t>(buf.size());
}

// The sections of a linked ELF file that the audit does not read (code,
// symbols, debug information: elf.hpp holds_run_time_data), from its header
// and section table; none for any other file or a header that does not parse.
std::vector<Span> unread_sections(int fd, std::size_t size) {
  std::vector<std::uint8_t> head(kElfHeader);
  if (size < kElfHeader || !pread_all(fd, head, 0)) return {};
  const Bytes h(head.data(), head.size());
  if (!is_elf(h) || h.data[4] != 2 || h.data[5] != 1 || !is_linked_elf(h.u16(16, "e_type"))) return {};
  const std::uint64_t shoff = h.u64(40, "e_shoff");
  const std::uint16_t shentsize = h.u16(58, "e_shentsize"), shnum = h.u16(60, "e_shnum");
  const std::uint64_t table = std::uint64_t{shentsize} * shnum;
  if (shentsize < 64 || shnum == 0 || table > kMaxSectionTable || shoff > size || table > size - shoff) return {};
  std::vector<std::uint8_t> sh(static_cast<std::size_t>(table));
  if (!pread_all(fd, sh, shoff)) return {};
  const Bytes t(sh.data(), sh.size());
  std::vector<Span> out;
  for (std::size_t i = 0; i < shnum; ++i) {
    const std::size_t e = i * shentsize;
    const std::uint32_t type = t.u32(e + 4, "sh_type");
    const std::uint64_t off = t.u64(e + 24, "sh_offset"), len = t.u64(e + 32, "sh_size");
    if (type == 8 /* SHT_NOBITS */ || holds_run_time_data(type, t.u64(e + 8, "sh_flags")) || off >= size) continue;
    out.push_back({static_cast<std::size_t>(off), static_cast<std::size_t>(off + std::min<std::uint64_t>(len, size - off))});
  }
  std::sort(out.begin(), out.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
  return out;
}

// The byte ranges of a file the audit reads: all but unread_sections.
std::vector<Span> read_spans(int fd, std::size_t size) {
  std::vector<Span> out;
  std::size_t at = 0;
  for (const Span& skip : unread_sections(fd, size)) {
    if (skip.lo > at) out.push_back({at, skip.lo});
    at = std::max(at, skip.hi);
  }
  if (at < size) out.push_back({at, size});
  return out;
}

}  // namespace

Prefetcher::Prefetcher(std::vector<File> files, std::size_t window)
    : files_(std::move(files)), window_(window), limit_(window) {
  std::size_t at = 0;
  for (const File& f : files_) {
    starts_.push_back(at);
    if (!f.path.empty()) at += f.size;
  }
  if (at > 0) thread_ = std::thread([this] { run(); });
}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Prefetcher::reached(std::size_t file_index) {
  if (file_index >= files_.size()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    limit_ = std::max(limit_, starts_[file_index] + window_);
  }
  cv_.notify_all();
}

void Prefetcher::run() {
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (files_[i].path.empty()) continue;
    const int fd = ::open(files_[i].path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    std::vector<Span> spans;
    try {
      spans = read_spans(fd, files_[i].size);
    } catch (const std::exception&) {
      spans = {{0, files_[i].size}};  // a hint only: read it all
    }
    bool stopped = false;
    for (const Span& r : spans) {
      for (std::size_t off = r.lo; off < r.hi && !stopped; off += kChunk) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || starts_[i] + off < limit_; });
        stopped = stop_;
        lock.unlock();
        const std::size_t n = std::min(kChunk, r.hi - off);
        if (!stopped) ::posix_fadvise(fd, static_cast<off_t>(off), static_cast<off_t>(n), POSIX_FADV_WILLNEED);
      }
    }
    ::close(fd);
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
  }
}

}  // namespace fp8kit::audit
