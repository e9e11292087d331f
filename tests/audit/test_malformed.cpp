// Malformed inputs: truncated, corrupt headers, lying sizes, decompression
// bombs. Each gives an error naming the problem; none crashes or hangs (the
// suite runs under ASan+UBSan with -DFP8KIT_SANITIZE=ON).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "audit/elf.hpp"
#include "audit/fatbin.hpp"
#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

AuditReport audit_mem(const std::vector<std::uint8_t>& b) {
  AuditOptions o;
  o.gpus = {120, 121};
  o.threads = 1;
  o.max_image_bytes = 1u << 24;
  return audit_bytes(Bytes(b.data(), b.size()), "mem", o);
}

std::string first_error(const AuditReport& r) { return r.errors.empty() ? "" : r.errors[0].message; }

// Offset of the first fatbin container in a fixture file.
std::size_t container_offset(const std::vector<std::uint8_t>& f) {
  const Elf elf(Bytes(f.data(), f.size()));
  const ElfSection* s = elf.find(".nv_fatbin");
  if (!s) throw std::runtime_error("no .nv_fatbin");
  return static_cast<std::size_t>(s->offset);
}

TEST(Malformed, GarbageAndEmpty) {
  EXPECT_NE(first_error(audit_mem({})).find("not an ELF"), std::string::npos);
  EXPECT_NE(first_error(audit_mem({'h', 'e', 'l', 'l', 'o'})).find("not an ELF"), std::string::npos);
  EXPECT_NE(first_error(audit_mem({0x7f, 'E', 'L', 'F', 2, 1})).find("truncated"), std::string::npos);
  const AuditReport r = audit_files({"/nonexistent/lib.so"}, AuditOptions{});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("No such file"), std::string::npos);
}

TEST(Malformed, TruncatedAnywhere) {
  for (const char* name : {"eq_guard.o", "eq_guard_zstd.o", "eq_guard.fatbin", "eq_guard_121.cubin", "libfixtures.a"}) {
    const auto full = read_file(fixture(name));
    for (std::size_t n = 0; n < full.size(); n += std::max<std::size_t>(1, full.size() / 257)) {
      std::vector<std::uint8_t> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      const AuditReport r = audit_mem(cut);
      // An archive cut between two members is a shorter valid archive.
      if (std::string(name) != "libfixtures.a") EXPECT_FALSE(r.errors.empty()) << name << " cut at " << n;
    }
  }
}

TEST(Malformed, LyingContainerSize) {
  auto f = read_file(fixture("eq_guard.o"));
  const std::size_t c = container_offset(f);
  const std::uint64_t huge = 1ull << 40;
  std::memcpy(&f[c + 8], &huge, 8);
  const std::string e = first_error(audit_mem(f));
  EXPECT_NE(e.find("claims"), std::string::npos) << e;
}

TEST(Malformed, LyingEntrySizes) {
  const auto orig = read_file(fixture("eq_guard.o"));
  const std::size_t entry = container_offset(orig) + 16;
  struct Patch {
    std::size_t at;
    std::uint64_t value;
    int width;
    const char* want;
  } patches[] = {
      {4, 0xffffff00u, 4, "header size"},  // header size beyond the container
      {4, 8, 4, "header size"},            // header size too small
      {8, 1ull << 33, 8, "payload"},       // payload beyond the container
  };
  for (const Patch& p : patches) {
    auto f = orig;
    std::memcpy(&f[entry + p.at], &p.value, static_cast<std::size_t>(p.width));
    const std::string e = first_error(audit_mem(f));
    EXPECT_NE(e.find(p.want), std::string::npos) << "patch @" << p.at << ": " << e;
  }
}

TEST(Malformed, DecompressionBombs) {
  const auto orig = read_file(fixture("eq_guard_zstd.o"));
  const std::size_t entry = container_offset(orig) + 16;
  // A header claiming 1 TiB of output is refused before allocating.
  auto f = orig;
  const std::uint64_t tib = 1ull << 40;
  std::memcpy(&f[entry + 56], &tib, 8);
  std::string e = first_error(audit_mem(f));
  EXPECT_NE(e.find("limit"), std::string::npos) << e;
  // A header claiming less than the frame holds fails cleanly.
  f = orig;
  const std::uint64_t small = 100;
  std::memcpy(&f[entry + 56], &small, 8);
  e = first_error(audit_mem(f));
  EXPECT_NE(e.find("ZSTD"), std::string::npos) << e;
  // A compressed size beyond the payload.
  f = orig;
  const std::uint32_t big = 0x7fffffff;
  std::memcpy(&f[entry + 16], &big, 4);
  e = first_error(audit_mem(f));
  EXPECT_NE(e.find("compressed size"), std::string::npos) << e;
}

TEST(Malformed, CorruptLz4Block) {
  auto f = read_file(fixture("eq_guard_lz4.o"));
  const std::size_t entry = container_offset(f) + 16;
  const std::uint32_t hs = [&] {
    std::uint32_t v;
    std::memcpy(&v, &f[entry + 4], 4);
    return v;
  }();
  for (std::size_t i = 0; i < 64; ++i) f[entry + hs + i] = 0xff;
  const std::string e = first_error(audit_mem(f));
  EXPECT_NE(e.find("LZ4"), std::string::npos) << e;
}

TEST(Malformed, CorruptArchive) {
  auto f = read_file(fixture("libfixtures.a"));
  std::memcpy(&f[8 + 48], "9999999999", 10);  // first member's size
  EXPECT_NE(first_error(audit_mem(f)).find("runs past the end"), std::string::npos);
  f = read_file(fixture("libfixtures.a"));
  f[8 + 58] = 'x';
  EXPECT_NE(first_error(audit_mem(f)).find("magic"), std::string::npos);
}

TEST(Malformed, CorruptCubinSections) {
  auto f = read_file(fixture("eq_guard_121.cubin"));
  const std::uint64_t far = 1ull << 50;
  std::memcpy(&f[40], &far, 8);  // e_shoff
  EXPECT_NE(first_error(audit_mem(f)).find("section table"), std::string::npos);
}

TEST(Malformed, RandomByteFlipsNeverCrash) {
  std::mt19937 rng(12345);
  for (const char* name : {"eq_guard.o", "eq_guard_lz4.o", "eq_guard_zstd.o", "eq_guard_121.cubin", "ptx_only.o"}) {
    const auto orig = read_file(fixture(name));
    for (int iter = 0; iter < 300; ++iter) {
      auto f = orig;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < flips; ++k) f[rng() % f.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      audit_mem(f);
    }
  }
}

}  // namespace
}  // namespace fp8kit::audit::test
