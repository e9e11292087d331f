// The code of one kernel as the host binaries hold it, for the image a GPU
// ran: the listing `explain` shows when the dump holds no code at the PC,
// and the check that a binary given is the one the process ran. Internal to
// fp8kit_coredump.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arch/loader.hpp"

namespace fp8kit::coredump {

struct BinaryCode {
  std::vector<std::uint8_t> text;  // the kernel's .text, as the compiler wrote it
  std::string where;               // "prog:.nv_fatbin+0xc50"
};

// The first image of `arch`/`variant` in `binaries` that holds `kernel`
// (mangled); nothing when none does or a binary cannot be read.
std::optional<BinaryCode> kernel_code(const std::vector<std::string>& binaries, const std::string& kernel, int arch,
                                      arch::Variant variant);

}  // namespace fp8kit::coredump
