// The words of a fault: names of the driver's exception codes
// (CUDBGException_t in cuda-gdb's public cudadebugger.h), what each usually
// means for the instruction it blames, and an instruction's text. Codes 1-3,
// 11, 13, 15 and 16 are lane-level codes that CUDA 13.1 retired; old drivers
// may still write them.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "audit/report.hpp"
#include "coredump/fault.hpp"

namespace fp8kit::coredump {

std::string SassLine::text() const {
  const audit::Instruction in{lo, hi};
  // Guard predicate: bit 3 negates, bits 0-2 pick P0-P6 (7 is PT).
  constexpr unsigned kNegate = 8, kIndex = 7;
  std::string pred;
  if (!in.always())
    pred = std::string("@") + ((in.predicate() & kNegate) ? "!" : "") + "P" +
           std::to_string(in.predicate() & kIndex) + " ";
  char raw[48];  // the two words in cuobjdump's order
  std::snprintf(raw, sizeof raw, "0x%016llx 0x%016llx", static_cast<unsigned long long>(lo),
                static_cast<unsigned long long>(hi));
  const audit::MemoryAccess m = in.memory_access();
  if (m.valid) return pred + audit::memory_name(m);
  switch (cls) {
    case audit::Insn::Other: return pred + "(" + raw + ")";
    case audit::Insn::Trap: return pred + "BPT.TRAP";
    default: return pred + audit::insn_name(cls);
  }
}

std::string exception_name(std::uint32_t code) {
  switch (code) {
    case 0: return "no exception";
    case 1: return "lane illegal address";
    case 2: return "lane user stack overflow";
    case 3: return "device hardware stack overflow";
    case 4: return "warp illegal instruction";
    case 5: return "warp out-of-range address";
    case 6: return "warp misaligned address";
    case 7: return "warp invalid address space";
    case 8: return "warp invalid PC";
    case 9: return "warp hardware stack overflow";
    case 10: return "device illegal address";
    case 11: return "lane misaligned address";
    case 12: return "warp assert (a device-side assert failed)";
    case 13: return "lane syscall error";
    case 14: return "warp illegal address";
    case 17: return "cluster out-of-range address";
    case 18: return "cluster block not present";
    case 19: return "warp stack canary";
    case 20: return "warp tensor-memory access check";
    case 21: return "warp tensor-memory leak";
    case 22: return "warp call requires a newer driver";
    case 23: return "warp misaligned PC";
    case 24: return "warp PC overflow";
    case 25: return "warp misaligned register";
    case 26: return "warp illegal instruction encoding";
    case 27: return "warp illegal instruction parameter";
    case 28: return "warp out-of-range register";
    case 29: return "warp invalid constant address (LDC)";
    case 30: return "warp MMU fault";
    case 31: return "warp mbarrier arrive error";
    case 32: return "cluster poison";
    case 33: return "warp API stack error";
    case 34: return "warp block not present";
    case 35: return "warp user stack overflow";
    case 36: return "TMA syscall error";
    default: return "exception code " + std::to_string(code);
  }
}

namespace {

constexpr std::uint32_t kLaneIllegalAddress = 1, kIllegalInstruction = 4, kOutOfRange = 5, kMisaligned = 6,
                        kInvalidSpace = 7, kInvalidPc = 8, kStackOverflow = 9, kDeviceIllegalAddress = 10,
                        kLaneMisaligned = 11, kAssert = 12, kIllegalAddress = 14, kMisalignedPc = 23,
                        kPcOverflow = 24, kIllegalEncoding = 26, kIllegalParameter = 27, kMmuFault = 30;

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

// "an 8-byte global load" of the blamed instruction, or "".
std::string access_text(const Fault& f) {
  const audit::MemoryAccess m = f.blamed.memory_access();
  if (!f.has_instruction || !m.valid) return "";
  const std::string w = m.width ? std::to_string(m.width) + "-byte " : "";
  return std::string(m.width == 8 ? "an " : "a ") + w + m.space + " " + m.kind;
}

}  // namespace

std::string exception_meaning(const Fault& f, int gpu) {
  if (f.trapped)
    return "the warp executed BPT.TRAP: `asm(\"trap;\")`, `__trap()` or a trap the compiler put in a stub for a target "
           "the source has no code for";
  const std::string access = access_text(f);
  const std::string at = f.address_known ? " of address " + hex(f.address) + " (lane " + std::to_string(f.lane) + ")"
                                         : "";
  switch (f.exception) {
    case kIllegalInstruction:
    case kIllegalEncoding:
    case kIllegalParameter: {
      const std::string gpu_name = gpu ? audit::capability_name(gpu) : "this GPU";
      if (f.has_image && gpu && f.image_arch != gpu)
        return "an instruction the chip does not implement: the image is " + f.image + ", built for " +
               audit::capability_name(f.image_arch) + ", and the GPU is " + gpu_name +
               ", which lacks an instruction that code uses";
      return "an instruction the chip does not implement, or one it cannot decode: code compiled for another "
             "architecture (an `a` or `f` target, a newer GPU) and loaded as " +
             (f.has_image ? f.image : std::string("this image")) + ", or an image corrupted after it was built";
    }
    case kMisaligned:
    case kLaneMisaligned: {
      if (access.empty()) return "a memory access whose address is not a multiple of its width";
      const audit::MemoryAccess m = f.blamed.memory_access();
      std::string past;
      if (f.address_known && m.width > 1)
        past = ", " + std::to_string(f.address % m.width) + " bytes past " + (m.width == 8 ? "an " : "a ") +
               std::to_string(m.width) + "-byte boundary";
      return access + at + ", whose address is not a multiple of its width" + past +
             ": a pointer offset from an aligned one, or cast to a wider type than its data";
    }
    case kLaneIllegalAddress:
    case kDeviceIllegalAddress:
    case kIllegalAddress:
    case kMmuFault:
      return (access.empty() ? std::string("a memory access") : access) + at +
             " to an address no allocation of the context maps: an index past the end, a freed or host pointer, or "
             "a pointer of another device";
    case kOutOfRange:
      return (access.empty() ? std::string("a memory access") : access) + at +
             " outside its memory space (shared or local memory past the block's or thread's size)";
    case kInvalidSpace:
      return (access.empty() ? std::string("a memory access") : access) +
             " through a generic pointer into a space that instruction cannot reach";
    case kAssert: return "a device-side assert failed: the warp called __assertfail just before the PC";
    case kInvalidPc:
    case kMisalignedPc:
    case kPcOverflow:
      return "the warp jumped to an address that holds no code: a corrupt function pointer or return address";
    case kStackOverflow:
      return "the call stack outgrew its space: deep recursion, or a stack size set too small";
    default: return "";
  }
}

}  // namespace fp8kit::coredump
