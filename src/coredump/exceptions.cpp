// Names of the driver's exception codes (CUDBGException_t in cuda-gdb's
// public cudadebugger.h). Codes 1-3, 11, 13, 15 and 16 are lane-level codes
// that CUDA 13.1 retired; old drivers may still write them.
#include <string>

#include "coredump/explain.hpp"

namespace fp8kit::coredump {

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

}  // namespace fp8kit::coredump
