// A cubin (ELF64, EM_CUDA): its target and its kernels.
//
// e_flags has two layouts, told apart by EI_ABIVERSION: 7 and lower (CUDA
// <= 12.x) keep the SM in bits 0-7, 8 (CUDA 13) in bits 8-15. The `a`/`f`
// variant is not in the header; ptxas writes its options ("-arch sm_120f")
// into .note.nv.tkinfo, which is read when present.
#pragma once

#include <string_view>
#include <vector>

#include "arch/loader.hpp"
#include "audit/bytes.hpp"

namespace fp8kit::audit {

struct CubinKernel {
  std::string_view name;  // mangled, points into the cubin
  Bytes text;             // the kernel's code
};

struct Cubin {
  int arch = 0;  // capability units
  arch::Variant variant = arch::Variant::Plain;
  bool variant_from_note = false;
  std::vector<CubinKernel> kernels;  // symbols marked as entries (STO_CUDA_ENTRY)
};

// Throws FormatError when `b` is not a well-formed cubin.
Cubin parse_cubin(Bytes b);

// Size of the ELF image that starts at b.data (section table end or the end
// of its last section), for cubins found embedded in other data; 0 if none.
std::size_t elf_extent(Bytes b);

}  // namespace fp8kit::audit
