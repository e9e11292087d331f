// Fatbinary containers, as nvcc and fatbinary write them (little-endian):
//
//   container  { u32 magic 0xBA55ED50, u16 version 1, u16 header_size 16,
//                u64 fat_size }  then fat_size bytes of entries
//   entry      { u16 kind (1 PTX, 2 ELF), u16 version, u32 header_size,
//                u64 payload_size @8, u32 compressed_size @16,
//                u16 minor, u16 major @24, u32 sm_arch @28,
//                u64 flags @40, u64 uncompressed_size @56, ... }
//              then payload_size bytes (padded); the next entry starts at
//              header_size + payload_size. header_size varies (64 ... 112).
//   flags      0x2000 LZ4 block, 0x8000 ZSTD frame,
//              0x100000 `a` target, 0x200000 `f` target.
// Layout checked on nvcc 13.0 objects (docs/audit.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "arch/loader.hpp"
#include "audit/bytes.hpp"

namespace fp8kit::audit {

constexpr std::uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr std::uint32_t kFatbinWrapperMagic = 0x466243B1u;

enum class Codec { None, Lz4, Zstd };
enum class EntryKind { Ptx, Elf, Other };

struct FatbinEntry {
  EntryKind kind = EntryKind::Other;
  std::uint32_t arch = 0;  // capability units (120 for sm_120)
  arch::Variant variant = arch::Variant::Plain;
  std::uint64_t flags = 0;
  Codec codec = Codec::None;
  Bytes payload;  // the stored bytes: compressed ones, or the raw image
  std::uint64_t uncompressed_size = 0;
  std::size_t offset = 0;  // of the entry header, from the container start
};

struct FatbinContainer {
  std::size_t offset = 0;  // within the region it was parsed from
  std::size_t size = 0;    // header + fat_size
  std::vector<FatbinEntry> entries;
};

// True when a plausible container header starts at `off`.
bool fatbin_header_at(Bytes region, std::size_t off);

// Parses one container at `off`; throws FormatError on a lying header.
FatbinContainer parse_fatbin(Bytes region, std::size_t off);

// Parses every container in `region` (a fatbin section or a .fatbin file):
// containers follow each other with padding between them.
std::vector<FatbinContainer> parse_fatbin_region(Bytes region);

// The image of an entry, decompressed when needed into `storage`. Refuses
// (FormatError) an entry that claims or produces more than max_bytes.
Bytes entry_image(const FatbinEntry& e, std::vector<std::uint8_t>& storage, std::size_t max_bytes);

}  // namespace fp8kit::audit
