#include "coredump/image.hpp"

#include <cstring>
#include <string_view>
#include <vector>

#include "audit/report.hpp"
#include "audit/cubin.hpp"
#include "coredump/cudbg_layout.hpp"

namespace fp8kit::coredump {

namespace {
constexpr std::string_view kTextPrefix = ".text.";
constexpr std::uint64_t kShfExecInstr = 0x4;
constexpr std::size_t kInsnBytes = 16;  // Volta and later
constexpr std::size_t kSymValue = 8, kSymShndx = 6, kSymBytes = 24;  // an ELF64 symbol
constexpr std::uint32_t kShtSymtab = 2;

void put_u64(std::vector<std::uint8_t>& b, std::size_t off, std::uint64_t v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

// A copy of a relocated cubin as the compiler wrote it: section addresses 0
// and symbol values relative to their section, which is what the audit's
// cubin reader expects.
std::vector<std::uint8_t> unrelocated_copy(const audit::Elf& elf) {
  const audit::Bytes f = elf.file();
  std::vector<std::uint8_t> out(f.data, f.data + f.size);
  const std::uint64_t shoff = f.u64(layout::elf::kEShoff, "ELF e_shoff");
  const std::uint16_t shentsize = f.u16(layout::elf::kEShentsize, "ELF e_shentsize");
  const auto& secs = elf.sections();
  for (const audit::ElfSection& s : secs) {
    if (s.type != kShtSymtab) continue;
    const audit::Bytes tab = elf.section_bytes(s);
    for (std::size_t e = 0; e + kSymBytes <= tab.size; e += kSymBytes) {
      const std::uint16_t shndx = tab.u16(e + kSymShndx, "symbol section");
      const std::uint64_t value = tab.u64(e + kSymValue, "symbol value");
      if (shndx < secs.size() && secs[shndx].addr != 0 && value >= secs[shndx].addr)
        put_u64(out, s.offset + e + kSymValue, value - secs[shndx].addr);
    }
  }
  for (std::size_t i = 0; i < secs.size(); ++i) put_u64(out, shoff + i * shentsize + layout::elf::kShAddr, 0);
  return out;
}

}  // namespace

LoadedImage::LoadedImage(audit::Bytes cubin) : elf_(cubin) {
  const std::vector<std::uint8_t> copy = unrelocated_copy(elf_);
  const audit::Cubin c = audit::parse_cubin(audit::Bytes(copy.data(), copy.size()));
  arch_ = c.arch;
  variant_ = c.variant;
}

std::string LoadedImage::target() const {
  return audit::image_name(arch::Image{arch::ImageKind::Sass, arch_, variant_});
}

std::optional<CodeSpan> LoadedImage::code_at(std::uint64_t address) const {
  for (const audit::ElfSection& s : elf_.sections()) {
    if (!(s.flags & kShfExecInstr) || s.name.substr(0, kTextPrefix.size()) != kTextPrefix) continue;
    if (address < s.addr || address - s.addr >= s.size) continue;
    return CodeSpan{std::string(s.name.substr(kTextPrefix.size())), s.addr, elf_.section_bytes(s)};
  }
  return std::nullopt;
}

std::optional<audit::Instruction> LoadedImage::instruction_at(std::uint64_t address) const {
  const std::optional<CodeSpan> span = code_at(address);
  if (!span) return std::nullopt;
  const std::uint64_t off = address - span->address;
  if (off % kInsnBytes != 0 || !span->text.has(off, kInsnBytes)) return std::nullopt;
  audit::Instruction in;
  in.lo = span->text.u64(off, "instruction");
  in.hi = span->text.u64(off + 8, "instruction");
  return in;
}

}  // namespace fp8kit::coredump
