#include "coredump/input.hpp"

#include <zstd.h>

namespace fp8kit::coredump {

namespace {
constexpr std::uint32_t kZstdMagic = 0xFD2FB528u;
}

audit::Bytes decompress_if_zstd(audit::Bytes in, std::vector<std::uint8_t>& storage, std::size_t max_bytes) {
  if (in.size < 4 || in.u32(0, "zstd magic") != kZstdMagic) return in;
  std::unique_ptr<ZSTD_DStream, decltype(&ZSTD_freeDStream)> ds(ZSTD_createDStream(), ZSTD_freeDStream);
  if (!ds) throw audit::FormatError("zstd: out of memory");
  storage.clear();
  const std::size_t chunk = ZSTD_DStreamOutSize();
  ZSTD_inBuffer src{in.data, in.size, 0};
  for (;;) {
    const std::size_t used = storage.size();
    if (used > max_bytes)
      throw audit::FormatError("zstd: the dump decompresses to more than " + std::to_string(max_bytes) + " bytes");
    storage.resize(used + chunk);
    ZSTD_outBuffer dst{storage.data() + used, chunk, 0};
    const std::size_t ret = ZSTD_decompressStream(ds.get(), &dst, &src);
    storage.resize(used + dst.pos);
    if (ZSTD_isError(ret)) throw audit::FormatError(std::string("zstd: ") + ZSTD_getErrorName(ret));
    const bool input_done = src.pos == src.size;
    if (input_done && ret == 0) break;  // every frame complete
    if (input_done && dst.pos == 0) throw audit::FormatError("zstd: the compressed dump is truncated");
  }
  if (storage.size() > max_bytes)
    throw audit::FormatError("zstd: the dump decompresses to more than " + std::to_string(max_bytes) + " bytes");
  if (storage.empty()) throw audit::FormatError("zstd: the compressed dump holds no data");
  return audit::Bytes(storage.data(), storage.size());
}

DumpFile::DumpFile(const std::string& path, std::size_t max_bytes) {
  map_ = std::make_unique<audit::MappedFile>(path);
  try {
    bytes_ = decompress_if_zstd(map_->bytes(), storage_, max_bytes);
  } catch (const audit::FormatError& e) {
    throw audit::FormatError(path + ": " + e.what());
  }
  if (!storage_.empty()) map_.reset();
}

}  // namespace fp8kit::coredump
