// Unreadable dumps: truncated, foreign, corrupt. The reader must throw
// FormatError (explain then exits 2) or return, never crash or read out of
// bounds (the sanitizer build runs these too).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "audit/elf.hpp"
#include "coredump/explain.hpp"
#include "coredump/input.hpp"
#include "coredump_test_util.hpp"

namespace fp8kit::coredump::test {
namespace {

constexpr std::size_t kShEntsize = 56, kShSize = 32, kShOffset = 24, kShLink = 40, kShInfo = 44;  // ELF64 header fields
constexpr std::uint32_t kLoUser = 0x80000000u;

// Parses and explains; false if a FormatError said why. Any other exception fails.
bool readable(const std::vector<std::uint8_t>& b) {
  try {
    const CoreDump d = parse_core_dump(Bytes(b.data(), b.size()));
    (void)explain(d, ExplainOptions{});
    return true;
  } catch (const FormatError&) {
    return false;
  }
}

std::string why(const std::vector<std::uint8_t>& b) {
  try {
    (void)parse_core_dump(Bytes(b.data(), b.size()));
  } catch (const FormatError& e) {
    return e.what();
  }
  return {};
}

struct Header {
  std::uint64_t shoff;
  std::uint16_t shentsize;
};
Header header(const std::vector<std::uint8_t>& b) {
  Header h{};
  std::memcpy(&h.shoff, b.data() + 40, 8);
  std::memcpy(&h.shentsize, b.data() + 58, 2);
  return h;
}
template <typename T>
void put(std::vector<std::uint8_t>& b, std::size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

// The first non-empty section of each table type the reader reads: the
// relocated images (+7), the device ... module tables (+9 ... +16).
std::vector<std::size_t> table_sections(const std::vector<std::uint8_t>& b) {
  const audit::Elf elf(Bytes(b.data(), b.size()));
  std::vector<std::size_t> out;
  std::vector<std::uint32_t> seen;
  for (std::size_t i = 0; i < elf.sections().size(); ++i) {
    const std::uint32_t t = elf.sections()[i].type;
    const bool read = t == kLoUser + 7 || (t >= kLoUser + 9 && t <= kLoUser + 16);
    if (!read || elf.sections()[i].size == 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
    seen.push_back(t);
    out.push_back(i);
  }
  return out;
}

TEST(Malformed, ForeignInputs) {
  EXPECT_FALSE(readable({}));
  const std::string text = "#include <cuda.h>\nint main() {}\n";
  EXPECT_FALSE(readable(std::vector<std::uint8_t>(text.begin(), text.end())));
  std::vector<std::uint8_t> elf_exec = fixture_dump("misaligned");
  put<std::uint16_t>(elf_exec, 16, 2);  // ET_EXEC
  EXPECT_NE(why(elf_exec).find("not a CUDA GPU core dump"), std::string::npos) << why(elf_exec);
}

TEST(Malformed, TruncatedAtEveryTableBoundary) {
  const std::vector<std::uint8_t> full = fixture_dump("misaligned");
  const audit::Elf elf(Bytes(full.data(), full.size()));
  std::size_t cuts = 0;
  for (const std::size_t i : table_sections(full)) {
    const audit::ElfSection& s = elf.sections()[i];
    for (const std::uint64_t at : {s.offset, s.offset + s.size / 2, s.offset + s.size}) {
      if (at >= full.size()) continue;
      EXPECT_FALSE(readable(std::vector<std::uint8_t>(full.begin(), full.begin() + at))) << "cut at " << at;
      ++cuts;
    }
  }
  EXPECT_GT(cuts, 20u);
}

TEST(Malformed, TablesThatLie) {
  const std::vector<std::uint8_t> full = fixture_dump("misaligned");
  const Header h = header(full);
  for (const std::size_t i : table_sections(full)) {
    const std::size_t sh = h.shoff + i * h.shentsize;
    std::vector<std::uint8_t> b = full;
    put<std::uint64_t>(b, sh + kShSize, std::uint64_t{1} << 40);  // runs past the end
    EXPECT_FALSE(readable(b)) << "section " << i << " size";
    b = full;
    put<std::uint64_t>(b, sh + kShOffset, full.size() - 1);
    EXPECT_FALSE(readable(b)) << "section " << i << " offset";
    b = full;
    put<std::uint64_t>(b, sh + kShEntsize, 1);  // rows smaller than the fields read
    readable(b);  // tables without rows (meta, images) may still read
    b = full;
    put<std::uint64_t>(b, sh + kShEntsize, 0);
    readable(b);
    b = full;
    put<std::uint32_t>(b, sh + kShLink, 0xffffu);
    readable(b);
    b = full;
    put<std::uint32_t>(b, sh + kShInfo, 0xffffffu);
    readable(b);
  }
}

TEST(Malformed, ParentLinksAreChecked) {
  std::vector<std::uint8_t> b = fixture_dump("misaligned");
  const Header h = header(b);
  const audit::Elf elf(Bytes(b.data(), b.size()));
  for (std::size_t i = 0; i < elf.sections().size(); ++i) {
    if (elf.sections()[i].type != kLoUser + 15) continue;  // a lane table
    put<std::uint32_t>(b, h.shoff + i * h.shentsize + kShInfo, 1000);
    EXPECT_NE(why(b).find("rows"), std::string::npos) << why(b);
    return;
  }
  FAIL() << "no lane table";
}

TEST(Malformed, FlippedBytesNeverCrash) {
  const std::vector<std::uint8_t> full = fixture_dump("misaligned");
  const Header h = header(full);
  std::mt19937_64 rng(20261201);
  // Half the flips in the section header table, half in the tables' data.
  std::uniform_int_distribution<std::size_t> in_headers(h.shoff, full.size() - 1), anywhere(0, h.shoff - 1);
  std::uniform_int_distribution<int> byte(0, 255), count(1, 8);
  for (int iter = 0; iter < 400; ++iter) {
    std::vector<std::uint8_t> b = full;
    for (int k = count(rng); k > 0; --k)
      b[iter % 2 ? in_headers(rng) : anywhere(rng)] ^= static_cast<std::uint8_t>(byte(rng) | 1);
    readable(b);
  }
}

// Inputs the fuzzer found (tests/fuzz/fuzz_coredump.cpp: 5-byte patches, u32
// offset and u8 xor, applied to the oob_store dump), kept as regressions.
// 2026-12-01: a cubin whose .note.nv.tkinfo section is empty handed memmem a
// null haystack (UBSan in the CI fuzz stage; audit/cubin.cpp).
TEST(Malformed, FuzzerFindings) {
  const std::vector<std::uint8_t> found[] = {
      {0x01, 0x56, 0x56, 0x56, 0x2f, 0x05, 0x20, 0x21, 0x56, 0x2f, 0x05, 0x20, 0x25, 0x21,
       0x01, 0x07, 0x21, 0x21, 0x13, 0x25, 0x21, 0x21, 0x25, 0x21, 0x21, 0x32, 0x21, 0x01},
  };
  const std::vector<std::uint8_t> base = fixture_dump("oob_store");
  for (const std::vector<std::uint8_t>& patches : found) {
    std::vector<std::uint8_t> b = base;
    for (std::size_t i = 0; i + 5 <= patches.size(); i += 5) {
      std::uint32_t off = 0;
      std::memcpy(&off, patches.data() + i, sizeof off);
      b[off % b.size()] ^= patches[i + 4];
    }
    readable(b);
  }
}

TEST(Malformed, CompressedInputs) {
  const std::vector<std::uint8_t> z = read_file(fixture_path("misaligned"));
  std::vector<std::uint8_t> out;
  const std::vector<std::uint8_t> half(z.begin(), z.begin() + z.size() / 2);
  EXPECT_THROW(decompress_if_zstd(Bytes(half.data(), half.size()), out), FormatError);
  std::vector<std::uint8_t> bad = z;
  for (std::size_t i = 8; i < 64 && i < bad.size(); ++i) bad[i] ^= 0x5a;
  EXPECT_THROW(decompress_if_zstd(Bytes(bad.data(), bad.size()), out), FormatError);
  EXPECT_THROW(decompress_if_zstd(Bytes(z.data(), z.size()), out, 1024), FormatError);  // grows past the cap
  const std::vector<std::uint8_t> magic_only = {0x28, 0xb5, 0x2f, 0xfd};
  EXPECT_THROW(decompress_if_zstd(Bytes(magic_only.data(), magic_only.size()), out), FormatError);
  EXPECT_THROW(DumpFile("/nonexistent/dump"), FormatError);
}

}  // namespace
}  // namespace fp8kit::coredump::test
