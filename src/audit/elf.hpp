// Minimal ELF64 little-endian reader: sections and symbols, nothing else.
// Used for host binaries (to find the fatbin sections) and for cubins.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "audit/bytes.hpp"

namespace fp8kit::audit {

constexpr std::uint16_t kEmCuda = 190;

struct ElfSection {
  std::string_view name;
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint64_t addr = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
  bool has_bytes() const { return type != 8 /* SHT_NOBITS */; }
};

// In a linked file (executable or shared library), whether a section can hold
// data the program reads at run time, such as a fatbin or cubin it embeds:
// loaded (SHF_ALLOC) and not code (SHF_EXECINSTR). Code, symbols, strings and
// debug information cannot; the embedded-cubin scan and the read-ahead skip them.
bool holds_run_time_data(std::uint32_t type, std::uint64_t flags);
// ET_EXEC or ET_DYN, from e_type at offset 16 of the ELF header.
bool is_linked_elf(std::uint16_t e_type);

struct ElfSymbol {
  std::string_view name;
  std::uint8_t info = 0;   // binding << 4 | type
  std::uint8_t other = 0;  // CUDA: 0x10 marks a kernel entry
  std::uint16_t shndx = 0;
  std::uint64_t value = 0;
  std::uint64_t size = 0;
  bool is_func() const { return (info & 0xf) == 2; }
};

bool is_elf(Bytes b);
bool is_elf64_cuda(Bytes b);  // cubin: ELF64, EM_CUDA

class Elf {
 public:
  // Validates the header and the section table; throws FormatError.
  explicit Elf(Bytes file);

  Bytes file() const { return file_; }
  std::uint16_t machine() const { return machine_; }
  std::uint8_t abi_version() const { return abi_version_; }
  std::uint32_t flags() const { return flags_; }
  std::uint16_t type() const { return type_; }  // e_type
  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* find(std::string_view name) const;
  // The bytes of a section (empty for NOBITS); throws if they lie outside.
  Bytes section_bytes(const ElfSection& s) const;
  // Symbols of the first SHT_SYMTAB (empty when there is none).
  std::vector<ElfSymbol> symbols() const;

 private:
  std::string_view str_at(const ElfSection& strtab, std::uint32_t off) const;

  Bytes file_;
  std::uint16_t machine_ = 0;
  std::uint16_t type_ = 0;
  std::uint8_t abi_version_ = 0;
  std::uint32_t flags_ = 0;
  std::vector<ElfSection> sections_;
};

}  // namespace fp8kit::audit
