#include "audit/cubin.hpp"

#include <algorithm>
#include <cstring>

#include "audit/elf.hpp"

namespace fp8kit::audit {

namespace {
constexpr std::uint8_t kStoCudaEntry = 0x10;

// "-arch sm_120f" or "-arch=sm_90a" in the ptxas options of the note.
bool note_variant(Bytes note, arch::Variant* v) {
  static const char* keys[] = {"-arch sm_", "-arch=sm_", "--gpu-name sm_", "--gpu-name=sm_"};
  for (const char* key : keys) {
    const std::size_t klen = std::strlen(key);
    // An empty note section may have no bytes behind it (data null): memmem
    // must not see a null haystack.
    if (note.data == nullptr || note.size < klen) continue;
    const void* hit = memmem(note.data, note.size, key, klen);
    if (!hit) continue;
    std::size_t i = static_cast<std::size_t>(static_cast<const std::uint8_t*>(hit) - note.data) + klen;
    while (i < note.size && note.data[i] >= '0' && note.data[i] <= '9') ++i;
    const char suffix = i < note.size ? static_cast<char>(note.data[i]) : '\0';
    *v = suffix == 'a'   ? arch::Variant::ArchSpecific
         : suffix == 'f' ? arch::Variant::FamilySpecific
                         : arch::Variant::Plain;
    return true;
  }
  return false;
}
}  // namespace

Cubin parse_cubin(Bytes b) {
  const Elf elf(b);
  if (elf.machine() != kEmCuda)
    throw FormatError("ELF is not a cubin (e_machine " + std::to_string(elf.machine()) + ")");
  Cubin c;
  c.arch = elf.abi_version() >= 8 ? static_cast<int>((elf.flags() >> 8) & 0xff) : static_cast<int>(elf.flags() & 0xff);
  if (const ElfSection* note = elf.find(".note.nv.tkinfo"))
    c.variant_from_note = note_variant(elf.section_bytes(*note), &c.variant);
  const auto& secs = elf.sections();
  for (const ElfSymbol& sym : elf.symbols()) {
    if (!sym.is_func() || !(sym.other & kStoCudaEntry) || sym.name.empty()) continue;
    if (sym.shndx == 0 || sym.shndx >= secs.size()) continue;
    const Bytes text = elf.section_bytes(secs[sym.shndx]);
    std::uint64_t begin = sym.value, size = sym.size;
    if (begin > text.size) throw FormatError("kernel " + std::string(sym.name) + " starts outside its section");
    if (size == 0 || size > text.size - begin) size = text.size - begin;
    c.kernels.push_back(
        {sym.name, text.sub(static_cast<std::size_t>(begin), static_cast<std::size_t>(size), "kernel code")});
  }
  return c;
}

std::size_t elf_extent(Bytes b) {
  if (b.size < 64) return 0;
  const std::uint64_t shoff = b.u64(40, "ELF e_shoff");
  const std::uint16_t shentsize = b.u16(58, "ELF e_shentsize");
  const std::uint16_t shnum = b.u16(60, "ELF e_shnum");
  if (shoff == 0 || shentsize < 64 || shnum == 0) return 0;
  if (!b.has(shoff, static_cast<std::size_t>(shnum) * shentsize)) return 0;
  std::uint64_t end = shoff + static_cast<std::uint64_t>(shnum) * shentsize;
  const std::uint64_t phoff = b.u64(32, "ELF e_phoff");
  const std::uint64_t phend =
      phoff + static_cast<std::uint64_t>(b.u16(56, "ELF e_phnum")) * b.u16(54, "ELF e_phentsize");
  if (phoff != 0) {
    if (phoff > b.size || phend > b.size) return 0;
    end = std::max(end, phend);
  }
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t h = shoff + static_cast<std::uint64_t>(i) * shentsize;
    if (b.u32(h + 4, "section type") == 8) continue;
    const std::uint64_t off = b.u64(h + 24, "section offset"), size = b.u64(h + 32, "section size");
    if (off > b.size || size > b.size - off) return 0;
    if (off + size > end) end = off + size;
  }
  return end <= b.size ? static_cast<std::size_t>(end) : 0;
}

}  // namespace fp8kit::audit
