// What the audit reads and in which order: the read-ahead, the sections the
// embedded-cubin scan skips, and reports that keep input order although files
// and modules are worked on largest first.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "audit/elf.hpp"
#include "audit/prefetch.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

namespace fp8kit::audit::test {
namespace {

std::size_t kernels_in(const std::vector<std::uint8_t>& file, const std::string& name) {
  const std::string path = temp_path(name);
  write_file(path, file);
  const AuditReport r = audit_one(path, {121}, false);
  std::remove(path.c_str());
  EXPECT_TRUE(r.errors.empty()) << r.errors[0].message;
  return r.per_gpu[0].kernels;
}

TEST(Reading, EmbeddedScanSkipsCodeOfLinkedFiles) {
  // Bytes of a cubin inside a shared library's .text are code, not data the
  // library could hand to the driver: the scan does not look there. The same
  // bytes after the sections (as vendors keep them in .rodata) are found.
  const auto lib = read_file(fixture("libfixshared.so"));
  const auto cubin = read_file(fixture("eq_guard_121.cubin"));
  const Elf elf(Bytes(lib.data(), lib.size()));
  const ElfSection* text = elf.find(".text");
  ASSERT_NE(text, nullptr);
  const std::size_t at = (static_cast<std::size_t>(text->offset) + 127) & ~std::size_t{127};
  ASSERT_LE(at + cubin.size(), text->offset + text->size);
  const std::size_t plain = kernels_in(lib, "plain.so");

  auto in_text = lib;
  std::copy(cubin.begin(), cubin.end(), in_text.begin() + static_cast<std::ptrdiff_t>(at));
  EXPECT_EQ(kernels_in(in_text, "in_text.so"), plain);

  auto appended = lib;
  appended.resize((appended.size() + 127) & ~std::size_t{127}, 0);
  appended.insert(appended.end(), cubin.begin(), cubin.end());
  EXPECT_EQ(kernels_in(appended, "appended.so"), plain + 1);
}

TEST(Reading, ReportKeepsInputOrder) {
  // Sizes out of order: the largest file is read first, its modules too.
  const std::vector<std::string> names = {"eq_guard.o", "libfixshared.so", "eq_guard_lz4.o", "libfixtures.a"};
  std::vector<InputFile> files;
  for (const std::string& n : names) files.push_back({fixture(n), n, true});
  AuditOptions o;
  o.gpus = {120, 121};
  o.threads = 4;
  const AuditReport r = audit_inputs(files, 0, o);
  ASSERT_EQ(r.inputs.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(r.inputs[i].library, names[i]);
  std::vector<std::size_t> seen;
  for (const KernelRecord& k : r.offenders) {
    const auto it = std::find(names.begin(), names.end(), k.library);
    ASSERT_NE(it, names.end());
    seen.push_back(static_cast<std::size_t>(it - names.begin()));
  }
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_GE(seen.size(), 3u);
  o.threads = 1;
  const AuditReport one = audit_inputs(files, 0, o);
  ASSERT_EQ(one.offenders.size(), r.offenders.size());
  for (std::size_t i = 0; i < r.offenders.size(); ++i) {
    EXPECT_EQ(one.offenders[i].where, r.offenders[i].where);
    EXPECT_EQ(one.offenders[i].kernel, r.offenders[i].kernel);
    EXPECT_EQ(one.offenders[i].gpu, r.offenders[i].gpu);
  }
}

TEST(Reading, PrefetcherStopsAndToleratesBadFiles) {
  const std::string missing = temp_path("no_such_file");
  std::remove(missing.c_str());
  // A missing file, bytes held in memory (no path), a size larger than the
  // file, then a file it must wait for (window 0) when it is destroyed.
  Prefetcher p({{missing, 1 << 20}, {"", 1 << 20}, {fixture("eq_guard.o"), std::size_t{1} << 30},
                {fixture("libfixshared.so"), 1 << 20}},
               0);
  p.reached(99);  // past the end: ignored
  SUCCEED();
}

// Pages of `path` in the page cache.
std::size_t resident_pages(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const std::size_t size = static_cast<std::size_t>(fs::file_size(path));
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((size + page - 1) / page);
  ::mincore(map, size, in.data());
  ::munmap(map, size);
  return static_cast<std::size_t>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; }));
}

TEST(Reading, PrefetcherReadsTheWholeFile) {
  // One WILLNEED over a whole file reads only its first read_ahead_kb; the
  // chunked calls read all of it (but its code and symbol sections).
  const std::string path = temp_path("prefetched.so");
  write_file(path, read_file(fixture("libfixshared.so")));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  const std::size_t size = static_cast<std::size_t>(fs::file_size(path));
  if (resident_pages(path) != 0) GTEST_SKIP() << "the file system keeps evicted pages (tmpfs?)";
  const auto lib = read_file(fixture("libfixshared.so"));
  const Elf elf(Bytes(lib.data(), lib.size()));
  std::size_t wanted = size;
  for (const ElfSection& s : elf.sections())
    if (s.has_bytes() && !holds_run_time_data(s.type, s.flags)) wanted -= static_cast<std::size_t>(s.size);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  {
    Prefetcher p({{path, size}}, std::size_t{64} << 20);
    for (int i = 0; i < 200 && resident_pages(path) * page < wanted; ++i) ::usleep(10000);
  }
  EXPECT_GE(resident_pages(path) * page, wanted);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace fp8kit::audit::test
