#include "audit/fatbin.hpp"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/text.hpp"

namespace fp8kit::audit {

namespace {
constexpr std::uint64_t kFlagLz4 = 0x2000;
constexpr std::uint64_t kFlagZstd = 0x8000;
constexpr std::uint64_t kFlagArchSpecific = 0x100000;
constexpr std::uint64_t kFlagFamilySpecific = 0x200000;
constexpr std::size_t kContainerHeader = 16;
constexpr std::size_t kMinEntryHeader = 48;  // through the flags word

}  // namespace

bool fatbin_header_at(Bytes region, std::size_t off) {
  if (!region.has(off, kContainerHeader)) return false;
  if (region.u32(off, "fatbin magic") != kFatbinMagic) return false;
  const std::uint16_t hs = region.u16(off + 6, "fatbin header size");
  const std::uint64_t fat = region.u64(off + 8, "fatbin size");
  return hs >= kContainerHeader && region.has(off, hs) && fat <= region.size - off - hs;
}

FatbinContainer parse_fatbin(Bytes region, std::size_t off) {
  if (!region.has(off, kContainerHeader)) throw FormatError("fatbin header truncated");
  if (region.u32(off, "fatbin magic") != kFatbinMagic) throw FormatError("no fatbin magic at offset " + hex(off));
  const std::uint16_t hs = region.u16(off + 6, "fatbin header size");
  const std::uint64_t fat = region.u64(off + 8, "fatbin size");
  if (hs < kContainerHeader) throw FormatError("fatbin header size " + std::to_string(hs) + " < 16");
  if (!region.has(off, hs) || fat > region.size - off - hs)
    throw FormatError("fatbin at " + hex(off) + " claims " + std::to_string(fat) + " bytes, more than the " +
                      std::to_string(region.size - off) + " that follow");
  FatbinContainer c;
  c.offset = off;
  c.size = hs + static_cast<std::size_t>(fat);
  const Bytes body = region.sub(off + hs, static_cast<std::size_t>(fat), "fatbin body");
  std::size_t e = 0;
  while (body.has(e, 8)) {
    const std::uint16_t kind = body.u16(e, "entry kind");
    const std::uint32_t ehs = body.u32(e + 4, "entry header size");
    if (kind == 0 && ehs == 0) break;  // zero padding at the end
    if (ehs < kMinEntryHeader || !body.has(e, ehs))
      throw FormatError("fatbin entry at " + hex(hs + e) + ": header size " + std::to_string(ehs) + " out of range");
    const std::uint64_t psize = body.u64(e + 8, "entry payload size");
    if (psize > body.size - e - ehs)
      throw FormatError("fatbin entry at " + hex(hs + e) + " claims " + std::to_string(psize) +
                        " payload bytes, beyond the container");
    FatbinEntry en;
    en.kind = kind == 1 ? EntryKind::Ptx : kind == 2 ? EntryKind::Elf : EntryKind::Other;
    en.offset = hs + e;
    en.arch = body.u32(e + 28, "entry arch");
    en.flags = body.u64(e + 40, "entry flags");
    if (en.flags & kFlagArchSpecific)
      en.variant = arch::Variant::ArchSpecific;
    else if (en.flags & kFlagFamilySpecific)
      en.variant = arch::Variant::FamilySpecific;
    std::uint64_t stored = psize;
    if (en.flags & (kFlagLz4 | kFlagZstd)) {
      if (ehs < 64) throw FormatError("compressed fatbin entry without its size field");
      en.codec = (en.flags & kFlagZstd) ? Codec::Zstd : Codec::Lz4;
      stored = body.u32(e + 16, "entry compressed size");
      en.uncompressed_size = body.u64(e + 56, "entry uncompressed size");
      if (stored > psize) throw FormatError("fatbin entry at " + hex(hs + e) + ": compressed size exceeds payload");
    } else {
      en.uncompressed_size = psize;
    }
    en.payload = body.sub(e + ehs, static_cast<std::size_t>(stored), "entry payload");
    c.entries.push_back(en);
    e += ehs + static_cast<std::size_t>(psize);
  }
  return c;
}

std::vector<FatbinContainer> parse_fatbin_region(Bytes region) {
  std::vector<FatbinContainer> out;
  static const std::uint8_t magic[4] = {0x50, 0xED, 0x55, 0xBA};
  std::size_t off = 0;
  while (off < region.size) {
    const void* hit = memmem(region.data + off, region.size - off, magic, sizeof magic);
    if (!hit) break;
    off = static_cast<std::size_t>(static_cast<const std::uint8_t*>(hit) - region.data);
    // Inside a fatbin section every magic starts a container: one whose
    // header lies is an error, not data.
    out.push_back(parse_fatbin(region, off));
    off += out.back().size;
  }
  return out;
}

Bytes entry_image(const FatbinEntry& e, std::vector<std::uint8_t>& storage, std::size_t max_bytes) {
  if (e.codec == Codec::None) return e.payload;
  if (e.uncompressed_size == 0 || e.uncompressed_size > max_bytes)
    throw FormatError("compressed entry claims " + std::to_string(e.uncompressed_size) + " bytes (limit " +
                      std::to_string(max_bytes) + ")");
  const std::size_t n = static_cast<std::size_t>(e.uncompressed_size);
  storage.resize(n);
  if (e.codec == Codec::Zstd) {
    const unsigned long long framed = ZSTD_getFrameContentSize(e.payload.data, e.payload.size);
    if (framed == ZSTD_CONTENTSIZE_ERROR) throw FormatError("ZSTD entry: not a ZSTD frame");
    if (framed != ZSTD_CONTENTSIZE_UNKNOWN && framed > n)
      throw FormatError("ZSTD entry: frame holds " + std::to_string(framed) + " bytes, header says " +
                        std::to_string(n));
    const std::size_t got = ZSTD_decompress(storage.data(), n, e.payload.data, e.payload.size);
    if (ZSTD_isError(got)) throw FormatError(std::string("ZSTD entry: ") + ZSTD_getErrorName(got));
    storage.resize(got);
  } else {
    if (e.payload.size > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE) ||
        n > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE) * 255u)
      throw FormatError("LZ4 entry too large");
    const int got =
        LZ4_decompress_safe(reinterpret_cast<const char*>(e.payload.data), reinterpret_cast<char*>(storage.data()),
                            static_cast<int>(e.payload.size), static_cast<int>(std::min<std::size_t>(n, 0x7fffffff)));
    if (got < 0) throw FormatError("LZ4 entry: corrupt block");
    storage.resize(static_cast<std::size_t>(got));
  }
  return Bytes(storage.data(), storage.size());
}

}  // namespace fp8kit::audit
