// Opening a GPU core dump file: as written by the driver, or compressed with
// zstd (`zstd -19` takes an 11 MB lightweight dump to tens of KB).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "audit/bytes.hpp"
#include "audit/mapped_file.hpp"

namespace fp8kit::coredump {

// Decompressed dumps larger than this are refused (a lightweight dump of a
// full H200 is tens of MB; a full dump with memory is not what explain reads).
constexpr std::size_t kMaxDumpBytes = std::size_t{4} << 30;

// `in` itself, or its zstd frames decompressed into `storage`. Throws
// audit::FormatError on a corrupt frame or one that grows past max_bytes.
audit::Bytes decompress_if_zstd(audit::Bytes in, std::vector<std::uint8_t>& storage,
                                std::size_t max_bytes = kMaxDumpBytes);

class DumpFile {
 public:
  // Throws audit::FormatError naming the path and the reason.
  explicit DumpFile(const std::string& path, std::size_t max_bytes = kMaxDumpBytes);
  audit::Bytes bytes() const { return bytes_; }
  bool was_compressed() const { return !storage_.empty(); }

 private:
  std::unique_ptr<audit::MappedFile> map_;
  std::vector<std::uint8_t> storage_;
  audit::Bytes bytes_;
};

}  // namespace fp8kit::coredump
