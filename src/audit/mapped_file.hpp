// A read-only memory map of a whole file (empty files map to no bytes).
#pragma once

#include <string>

#include "audit/bytes.hpp"

namespace fp8kit::audit {

class MappedFile {
 public:
  // Throws FormatError with the path and the OS reason when it cannot map.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  Bytes bytes() const { return Bytes(static_cast<const std::uint8_t*>(addr_), size_); }

 private:
  void* addr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace fp8kit::audit
