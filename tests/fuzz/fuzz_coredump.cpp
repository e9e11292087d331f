// libFuzzer target for the GPU core dump reader and fp8kit explain.
//
// A real dump is megabytes with its section table at the end, so mutating
// whole dumps reaches little. Inputs that are ELF files are read as dumps
// as they are; any other input is a list of 5-byte patches (u32 offset,
// u8 xor) applied to a real dump from the H200 (the oob_store fixture), which
// keeps the file well-formed enough for the mutations to reach the tables.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "coredump/explain.hpp"
#include "coredump/input.hpp"

namespace {

constexpr std::size_t kPatchBytes = 5;

const std::vector<std::uint8_t>& base_dump() {
  static const std::vector<std::uint8_t> dump = [] {
    std::ifstream f(FP8KIT_FUZZ_BASE_DUMP, std::ios::binary);
    const std::vector<std::uint8_t> z((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<std::uint8_t> out;
    fp8kit::coredump::decompress_if_zstd(fp8kit::audit::Bytes(z.data(), z.size()), out);
    return out;
  }();
  return dump;
}

void read_dump(const std::uint8_t* data, std::size_t size) {
  using namespace fp8kit::coredump;
  try {
    const CoreDump d = parse_core_dump(Bytes(data, size));
    (void)explain(d, ExplainOptions{});
  } catch (const FormatError&) {
    // bad input, reported as such: what the reader is for
  }
}

}  // namespace

// The reader reports bad input as FormatError; anything else reaching here is a bug.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    if (size >= 4 && std::memcmp(data, "\x7f" "ELF", 4) == 0) {
      read_dump(data, size);
      return 0;
    }
    std::vector<std::uint8_t> b = base_dump();
    if (b.empty()) __builtin_trap();  // the base dump did not load
    for (std::size_t i = 0; i + kPatchBytes <= size; i += kPatchBytes) {
      std::uint32_t off = 0;
      std::memcpy(&off, data + i, sizeof off);
      b[off % b.size()] ^= data[i + 4];
    }
    read_dump(b.data(), b.size());
  } catch (...) {
    __builtin_trap();
  }
  return 0;
}
