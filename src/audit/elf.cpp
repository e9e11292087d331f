#include "audit/elf.hpp"

#include <cstring>

namespace fp8kit::audit {

namespace {
constexpr std::size_t kMaxSections = 1u << 20;
constexpr std::uint64_t kShfAlloc = 0x2;
constexpr std::uint64_t kShfExecInstr = 0x4;
constexpr std::uint16_t kEtExec = 2;
constexpr std::uint16_t kEtDyn = 3;
}  // namespace

bool holds_run_time_data(std::uint32_t type, std::uint64_t flags) {
  return type != 8 /* SHT_NOBITS */ && (flags & kShfAlloc) && !(flags & kShfExecInstr);
}

bool is_linked_elf(std::uint16_t e_type) { return e_type == kEtExec || e_type == kEtDyn; }

bool is_elf(Bytes b) {
  return b.size >= 4 && std::memcmp(b.data,
                                    "\x7f"
                                    "ELF",
                                    4) == 0;
}

bool is_elf64_cuda(Bytes b) {
  return b.size >= 64 && is_elf(b) && b.data[4] == 2 && b.data[5] == 1 && b.u16(18, "ELF machine") == kEmCuda;
}

Elf::Elf(Bytes file) : file_(file) {
  if (!is_elf(file)) throw FormatError("not an ELF file");
  if (file.size < 64) throw FormatError("ELF header truncated");
  if (file.data[4] != 2) throw FormatError("32-bit ELF is not supported");
  if (file.data[5] != 1) throw FormatError("big-endian ELF is not supported");
  abi_version_ = file.data[8];
  type_ = file.u16(16, "ELF e_type");
  machine_ = file.u16(18, "ELF e_machine");
  flags_ = file.u32(48, "ELF e_flags");
  const std::uint64_t shoff = file.u64(40, "ELF e_shoff");
  const std::uint16_t shentsize = file.u16(58, "ELF e_shentsize");
  std::uint64_t shnum = file.u16(60, "ELF e_shnum");
  std::uint32_t shstrndx = file.u16(62, "ELF e_shstrndx");
  const std::uint64_t phoff = file.u64(32, "ELF e_phoff");
  const std::uint16_t phentsize = file.u16(54, "ELF e_phentsize");
  const std::uint16_t phnum = file.u16(56, "ELF e_phnum");
  if (phoff != 0 && !file.has(phoff, static_cast<std::size_t>(phnum) * phentsize))
    throw FormatError("ELF program header table lies outside the file");
  if (shoff == 0) return;  // no section table: nothing to read
  if (shentsize < 64) throw FormatError("ELF section header size " + std::to_string(shentsize) + " < 64");
  // Extended numbering: the real counts live in section 0.
  if (shnum == 0) shnum = file.u64(shoff + 32, "ELF section 0 size");
  if (shstrndx == 0xffff) shstrndx = file.u32(shoff + 44, "ELF section 0 link");
  if (shnum > kMaxSections) throw FormatError("ELF claims " + std::to_string(shnum) + " sections");
  if (!file.has(shoff, shnum * shentsize)) throw FormatError("ELF section table lies outside the file");
  sections_.resize(shnum);
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const std::uint64_t h = shoff + i * shentsize;
    ElfSection& s = sections_[i];
    s.type = file.u32(h + 4, "section type");
    s.flags = file.u64(h + 8, "section flags");
    s.addr = file.u64(h + 16, "section addr");
    s.offset = file.u64(h + 24, "section offset");
    s.size = file.u64(h + 32, "section size");
    s.link = file.u32(h + 40, "section link");
    s.info = file.u32(h + 44, "section info");
  }
  if (shstrndx < sections_.size()) {
    const ElfSection strtab = sections_[shstrndx];
    for (std::uint64_t i = 0; i < shnum; ++i)
      sections_[i].name = str_at(strtab, file.u32(shoff + i * shentsize, "section name"));
  }
}

std::string_view Elf::str_at(const ElfSection& strtab, std::uint32_t off) const {
  if (!strtab.has_bytes() || !file_.has(strtab.offset, strtab.size) || off >= strtab.size) return {};
  const char* begin = reinterpret_cast<const char*>(file_.data + strtab.offset + off);
  const std::size_t room = strtab.size - off;
  const void* nul = std::memchr(begin, 0, room);
  return std::string_view(begin, nul ? static_cast<const char*>(nul) - begin : room);
}

const ElfSection* Elf::find(std::string_view name) const {
  for (const ElfSection& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

Bytes Elf::section_bytes(const ElfSection& s) const {
  if (!s.has_bytes()) return Bytes();
  return file_.sub(s.offset, s.size, "ELF section");
}

std::vector<ElfSymbol> Elf::symbols() const {
  std::vector<ElfSymbol> out;
  for (const ElfSection& s : sections_) {
    if (s.type != 2 /* SHT_SYMTAB */) continue;
    const Bytes tab = section_bytes(s);
    if (s.link >= sections_.size()) throw FormatError("symbol table links to a missing string table");
    const ElfSection& strtab = sections_[s.link];
    const std::size_t n = tab.size / 24;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t e = i * 24;
      ElfSymbol sym;
      sym.name = str_at(strtab, tab.u32(e, "symbol name"));
      sym.info = tab.u8(e + 4, "symbol info");
      sym.other = tab.u8(e + 5, "symbol other");
      sym.shndx = tab.u16(e + 6, "symbol section");
      sym.value = tab.u64(e + 8, "symbol value");
      sym.size = tab.u64(e + 16, "symbol size");
      out.push_back(sym);
    }
    break;
  }
  return out;
}

}  // namespace fp8kit::audit
