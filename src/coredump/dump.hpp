// A CUDA GPU core dump, read into plain records: devices, resident grids,
// loaded modules (their relocated cubins), and every valid warp with its
// lanes. The reader validates every table link and bound: a truncated,
// foreign or corrupt file is a FormatError naming what was wrong, never an
// out-of-bounds read. Layout: cudbg_layout.hpp; the command: docs/explain.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "audit/bytes.hpp"

namespace fp8kit::coredump {

using audit::Bytes;
using audit::FormatError;
using Dim3 = std::array<std::uint32_t, 3>;

struct Device {
  std::uint32_t id = 0;
  std::string name;     // "NVIDIA H200"; empty when the dump does not hold it
  std::string sm_type;  // "sm_90"
  std::uint32_t sm_major = 0, sm_minor = 0;
  std::uint32_t num_sms = 0, warps_per_sm = 0, lanes_per_warp = 0;
  int capability() const { return static_cast<int>(10 * sm_major + sm_minor); }
};

struct Grid {
  std::uint64_t id = 0;
  std::uint32_t device = 0;  // Device::id
  std::uint64_t context = 0;
  std::uint64_t function_entry = 0;  // device address of the kernel's first instruction
  std::uint64_t module = 0;          // Module::handle
  Dim3 grid_dim{}, block_dim{};
};

struct Module {
  std::uint32_t device = 0;
  std::uint64_t context = 0;
  std::uint64_t handle = 0;
  Bytes image;  // relocated cubin (points into the dump); empty when the dump has none
};

struct Lane {
  std::uint32_t lane = 0;
  Dim3 thread{};
  std::uint64_t pc = 0;
  std::uint32_t exception = 0;  // CUDBGException_t; 0 none
  Bytes regs;                   // R0, R1, ... as u32 when the dump holds them (points into the dump)
  // Register `r` (R0 ...), false when the dump does not hold it.
  bool reg(unsigned r, std::uint32_t* v) const;
};

struct Warp {
  std::uint32_t device = 0, sm = 0, warp = 0;
  std::uint64_t grid = 0;  // Grid::id
  Dim3 block{};
  bool error_pc_valid = false;
  std::uint64_t error_pc = 0;
  std::uint32_t valid_lanes = 0, active_lanes = 0;
  std::uint32_t sm_exception = 0;  // the SM's exception (r575+), 0 if none or not recorded
  std::vector<Lane> lanes;
};

// An exception the SM recorded (driver r575+): for an illegal address the
// faulting warp is often gone from the warp tables, and only this remains.
struct SmFault {
  std::uint32_t device = 0, sm = 0;
  std::uint32_t exception = 0;
  bool error_pc_valid = false;
  std::uint64_t error_pc = 0;
};

struct DumpInfo {
  bool has_meta = false;
  std::uint32_t driver_major = 0, driver_minor = 0, cuda_major = 0, cuda_minor = 0, flags = 0;
};

struct CoreDump {
  std::vector<Device> devices;
  std::vector<Grid> grids;
  std::vector<Module> modules;
  std::vector<Warp> warps;
  std::vector<SmFault> sm_faults;
  DumpInfo info;
  const Device* device(std::uint32_t id) const;
  const Grid* grid(std::uint32_t device, std::uint64_t id) const;
  const Module* module(std::uint32_t device, std::uint64_t handle) const;
};

// True for an ELF64 core file of machine EM_CUDA (what the driver writes).
bool is_core_dump(Bytes b);

// Reads the tables; `file` must outlive the result (images point into it).
CoreDump parse_core_dump(Bytes file);

}  // namespace fp8kit::coredump
