// The tables of a CUDA GPU core dump, as the driver writes them.
//
// A dump is an ELF64 core file (ET_CORE, EM_CUDA) whose sections are tables
// of fixed-size rows, told apart by sh_type (SHT_LOUSER + n). A table's rows
// are sh_entsize bytes: the driver appends fields over releases, so a reader
// takes the prefix it knows and skips the rest. Tables form a tree through
// sh_link (the parent table's section index) and sh_info (the parent row):
//
//   devtbl -> smtbl -> ctatbl -> wptbl -> lntbl      (device, SM, CTA, warp, lane)
//   lntbl -> regs                                    (a lane's registers, sh_info its row)
//   devtbl -> gridtbl                                (one row per resident grid)
//   ctxtbl -> modtbl -> relfimg / elfimg             (context, module, its image)
//
// Field offsets below are those of NVIDIA's public description of the format,
// cuda-gdb's `cudacoredump.h` (the Cudbg*TableEntry structs, little-endian,
// natural alignment), checked against dumps from an H200 with driver 580
// (tests/coredump/fixtures, docs/explain.md). Only the fields fp8kit reads
// are named.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fp8kit::coredump::layout {

constexpr std::uint16_t kEtCore = 4;
constexpr std::uint32_t kShtLoUser = 0x80000000u;

// ELF64 header and section header fields the audit's Elf does not keep.
namespace elf {
constexpr std::size_t kEType = 16, kEShoff = 40, kEShentsize = 58;  // in the file header
constexpr std::size_t kShAddr = 16, kShEntsize = 56;                // in a section header
}  // namespace elf

// sh_type of each table (SHT_LOUSER + n).
enum Table : std::uint32_t {
  kRegisters = kShtLoUser + 5,       // one lane's registers R0, R1, ... (u32 each)
  kRelocatedImage = kShtLoUser + 7,  // a module's cubin with load addresses applied
  kDeviceTable = kShtLoUser + 9,
  kContextTable = kShtLoUser + 10,
  kSmTable = kShtLoUser + 11,
  kGridTable = kShtLoUser + 12,
  kCtaTable = kShtLoUser + 13,
  kWarpTable = kShtLoUser + 14,
  kLaneTable = kShtLoUser + 15,
  kModuleTable = kShtLoUser + 16,
  kMetaData = kShtLoUser + 22,  // driver r565+
};

// CudbgDeviceTableEntry: three u64 string-table indices, then u32 fields.
namespace device {
constexpr std::size_t kName = 0, kType = 8, kSmType = 16;
constexpr std::size_t kDevId = 24, kNumSms = 36, kNumWarps = 40, kNumLanes = 44;
constexpr std::size_t kSmMajor = 56, kSmMinor = 60;
constexpr std::size_t kMinRow = 64;
}  // namespace device

// CudbgGridTableEntry.
namespace grid {
constexpr std::size_t kGridId = 0, kContext = 8, kFunctionEntry = 24, kModule = 32;
constexpr std::size_t kGridDim = 72, kBlockDim = 84;  // three u32 each
constexpr std::size_t kMinRow = 96;
}  // namespace grid

// CudbgSmTableEntry: smId, pad, then (r575+) exception, errorPCValid, errorPC.
namespace sm {
constexpr std::size_t kSmId = 0, kException = 8, kErrorPcValid = 12, kErrorPc = 16;
constexpr std::size_t kMinRow = 8, kMinRowWithException = 24;
}  // namespace sm

// CudbgCTATableEntry.
namespace cta {
constexpr std::size_t kGridId = 0, kBlockIdx = 8;  // three u32
constexpr std::size_t kMinRow = 20;
}  // namespace cta

// CudbgWarpTableEntry.
namespace warp {
constexpr std::size_t kErrorPc = 0, kWarpId = 8, kValidLanes = 12, kActiveLanes = 16, kErrorPcValid = 24;
constexpr std::size_t kMinRow = 28;
}  // namespace warp

// CudbgThreadTableEntry (one row per valid lane).
namespace lane {
constexpr std::size_t kVirtualPc = 0, kLane = 16, kThreadIdx = 20, kException = 32;
constexpr std::size_t kMinRow = 36;
}  // namespace lane

// CudbgContextTableEntry and CudbgModuleTableEntry.
namespace context {
constexpr std::size_t kContextId = 0, kDeviceIdx = 32;
constexpr std::size_t kMinRow = 36;
}  // namespace context
namespace module {
constexpr std::size_t kHandle = 0;
constexpr std::size_t kMinRow = 8;
}  // namespace module

// CudbgMetaDataEntry: generator name index, then driver and CUDA versions.
namespace meta {
constexpr std::size_t kDriverMajor = 8, kDriverMinor = 12, kCudaMajor = 16, kCudaMinor = 20, kFlags = 24;
constexpr std::size_t kMinRow = 28;
}  // namespace meta

}  // namespace fp8kit::coredump::layout
