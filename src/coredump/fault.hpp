// A GPU fault as fp8kit explain reports it: the exception and its words, the
// kernel and launch, the SASS around the PC and the instruction blamed, the
// image the GPU ran and what its siblings say. explain.hpp fills these from
// a dump; fault.cpp words them (exception names and meanings, instructions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "audit/sass.hpp"
#include "coredump/dump.hpp"

namespace fp8kit::coredump {


// "warp misaligned address" for CUDBG_EXCEPTION_WARP_MISALIGNED_ADDRESS (6), ...
std::string exception_name(std::uint32_t code);

struct Fault;
// What the exception of `f` usually means for the instruction it blames, on a
// GPU of capability `gpu` (0 when the dump names none): an illegal
// instruction in real code is one the chip does not implement, a misaligned
// address a width the address is no multiple of, ... (fault.cpp).
std::string exception_meaning(const Fault& f, int gpu);

struct SassLine {
  std::uint64_t offset = 0;  // from the kernel's entry
  std::uint64_t lo = 0, hi = 0;
  audit::Insn cls = audit::Insn::Other;
  bool at_pc = false;        // where the warp stopped
  bool at_error_pc = false;  // the instruction the hardware blamed
  std::string text() const;  // "BPT.TRAP", "EXIT", "@P0 BRA", or the raw words
};

enum class SiblingVerdict {
  NotChecked,     // no binary given, or the kernel is not in them
  RealSibling,    // another image of the module has real code: the equality-guard signature
  NoRealSibling,  // every image of the kernel is a stub or empty
  LoadedIsReal,   // the loaded image is real code: no guard story
};

struct Fault {
  std::uint32_t exception = 0;  // CUDBGException_t; 0 with trapped = true
  bool trapped = false;         // stopped right after a BPT.TRAP (the driver records no code for it)
  std::string description;      // "trap (BPT.TRAP)", "warp misaligned address", ...
  std::uint32_t device = 0;
  std::string kernel, demangled;  // empty when the grid or its image is missing
  std::string function;           // where the PC lies when not in the kernel itself (a callee)
  Dim3 grid_dim{}, block_dim{};
  Dim3 block{}, thread{};  // the first faulting lane (sm_level: a resident warp's block; no thread)
  std::uint32_t sm = 0, warp = 0, lane = 0;
  std::size_t warps = 0, blocks = 0;  // stopped here the same way
  bool sm_level = false;              // only the SM table holds it: the faulting warp had left
  std::size_t sms = 0;                // SMs that recorded it (sm_level)
  std::uint64_t pc = 0, error_pc = 0;
  bool error_pc_valid = false;
  bool pc_in_image = false;
  std::uint64_t pc_offset = 0;  // from the kernel's (or callee's) entry
  std::vector<SassLine> sass;
  bool sass_from_binary = false;  // the dump held no code at the PC; the listing is the --binary image's

  // The instruction the exception blames: at the error PC, else the BPT.TRAP
  // before a trapped warp's PC, else the PC; its text and what the exception
  // usually means for it.
  bool has_instruction = false;
  std::uint64_t instruction_offset = 0;  // from the kernel's (or callee's) entry
  audit::Instruction blamed;
  std::string instruction;               // "LDG.64", "BPT.TRAP", or the raw words
  std::string meaning;
  bool address_known = false;  // a memory access's address, from the lane's registers
  std::uint64_t address = 0;

  bool has_image = false;
  std::string image;  // "sm_90"
  int image_arch = 0;
  audit::Body body = audit::Body::Real;

  SiblingVerdict sibling = SiblingVerdict::NotChecked;
  std::vector<std::string> real_on;  // "sm_80", images with real code for the kernel
  std::string sibling_where;         // the binary and container they were found in
  bool same_family = false;          // a real sibling is in this GPU's family
  std::string guard;                 // the guard's likely form
  std::string fix;                   // the family-range fix
};

struct Explanation {
  std::vector<Device> devices;
  DumpInfo info;
  std::vector<Fault> faults;
  std::vector<std::string> notes;  // what could not be checked, and why
};

struct ExplainOptions {
  std::vector<std::string> binaries;  // host binaries holding the modules (siblings come from them)
  std::size_t sass_before = 4, sass_after = 2;  // instructions shown around the PC
};

}  // namespace fp8kit::coredump
