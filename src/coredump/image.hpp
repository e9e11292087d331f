// A module's relocated cubin from a dump: its target, the code section that
// holds an address, and that section's classification. Internal to
// fp8kit_coredump.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arch/loader.hpp"
#include "audit/bytes.hpp"
#include "audit/elf.hpp"
#include "audit/sass.hpp"

namespace fp8kit::coredump {

struct CodeSpan {
  std::string function;      // mangled name (".text.<name>")
  std::uint64_t address = 0;  // load address of its first instruction
  audit::Bytes text;
};

class LoadedImage {
 public:
  // Throws audit::FormatError when `cubin` is not a readable cubin.
  explicit LoadedImage(audit::Bytes cubin);
  int arch() const { return arch_; }
  arch::Variant variant() const { return variant_; }
  std::string target() const;  // "sm_90", "sm_90a"
  // The function whose code holds `address`, if any.
  std::optional<CodeSpan> code_at(std::uint64_t address) const;
  // The 128-bit instruction at `address` (Volta+ encoding), if inside the code.
  std::optional<audit::Instruction> instruction_at(std::uint64_t address) const;

 private:
  audit::Elf elf_;
  int arch_ = 0;
  arch::Variant variant_ = arch::Variant::Plain;
};

}  // namespace fp8kit::coredump
