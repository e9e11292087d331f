// Bounds-checked little-endian reads over untrusted bytes.
//
// Every parser in fp8kit_audit reads through Bytes: a read past the end
// throws FormatError naming what was being read, so a truncated or lying
// input becomes a message, never an out-of-bounds access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace fp8kit::audit {

class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Bytes {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;

  Bytes() = default;
  Bytes(const std::uint8_t* d, std::size_t n) : data(d), size(n) {}

  bool has(std::size_t off, std::size_t n) const { return off <= size && n <= size - off; }

  Bytes sub(std::size_t off, std::size_t n, const char* what) const {
    if (!has(off, n))
      throw FormatError(std::string(what) + ": range [" + std::to_string(off) + ", +" + std::to_string(n) +
                        ") lies outside " + std::to_string(size) + " bytes");
    return Bytes(data + off, n);
  }

  template <typename T>
  T get(std::size_t off, const char* what) const {
    if (!has(off, sizeof(T))) throw FormatError(std::string(what) + ": truncated at offset " + std::to_string(off));
    T v;
    std::memcpy(&v, data + off, sizeof(T));
    return v;  // the targets are little-endian hosts (x86-64, aarch64)
  }
  std::uint8_t u8(std::size_t off, const char* what) const { return get<std::uint8_t>(off, what); }
  std::uint16_t u16(std::size_t off, const char* what) const { return get<std::uint16_t>(off, what); }
  std::uint32_t u32(std::size_t off, const char* what) const { return get<std::uint32_t>(off, what); }
  std::uint64_t u64(std::size_t off, const char* what) const { return get<std::uint64_t>(off, what); }
};

}  // namespace fp8kit::audit
