// The core dump reader on dumps the driver wrote on an H200 (driver 580,
// CUDA 13.0): tables, links, lanes. cuda-gdb's view of the same dumps is in
// docs/explain.md.
#include <gtest/gtest.h>

#include "coredump/dump.hpp"
#include "coredump_test_util.hpp"

namespace fp8kit::coredump::test {
namespace {

constexpr std::uint32_t kSkipAbortFlag = 1u << 4;  // CU_COREDUMP_SKIP_ABORT

struct Loaded {
  std::vector<std::uint8_t> bytes;
  CoreDump dump;
};

Loaded load(const std::string& name) {
  Loaded l;
  l.bytes = fixture_dump(name);
  l.dump = parse_core_dump(Bytes(l.bytes.data(), l.bytes.size()));
  return l;
}

TEST(Dump, DeviceTableOfTheH200) {
  const Loaded l = load("seed_noabort");
  ASSERT_EQ(l.dump.devices.size(), 1u);
  const Device& d = l.dump.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.sm_type, "sm_90");
  EXPECT_EQ(d.capability(), 90);
  EXPECT_EQ(d.num_sms, 132u);
  EXPECT_EQ(d.warps_per_sm, 64u);
  EXPECT_EQ(d.lanes_per_warp, 32u);
  ASSERT_TRUE(l.dump.info.has_meta);
  EXPECT_EQ(l.dump.info.driver_major, 580u);
  EXPECT_EQ(l.dump.info.cuda_major, 13u);
  EXPECT_NE(l.dump.info.flags & kSkipAbortFlag, 0u);  // fp8kit run's flags
}

TEST(Dump, SeedHasOnlyTheGemmGridResident) {
  for (const char* name : {"seed", "seed_noabort"}) {
    const Loaded l = load(name);
    ASSERT_EQ(l.dump.grids.size(), 1u) << name;  // rms_norm waits behind the GEMM in the stream
    const Grid& g = l.dump.grids[0];
    EXPECT_EQ(g.grid_dim, (Dim3{4, 4, 1})) << name;
    EXPECT_EQ(g.block_dim, (Dim3{16, 16, 1})) << name;
    const Module* m = l.dump.module(g.device, g.module);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_GT(m->image.size, 0u) << name;
    std::size_t warps = 0;
    for (const Warp& w : l.dump.warps)
      if (w.grid == g.id) {
        ++warps;
        EXPECT_EQ(w.lanes.size(), 32u);
        EXPECT_FALSE(w.error_pc_valid);  // a trap records no error PC
      }
    EXPECT_EQ(warps, 16u * 8u) << name;  // 16 blocks of 256 threads
  }
}

TEST(Dump, MisalignedLanesCarryTheExceptionAndTheErrorPc) {
  const Loaded l = load("misaligned");
  ASSERT_EQ(l.dump.grids.size(), 1u);
  const Grid& g = l.dump.grids[0];
  ASSERT_EQ(l.dump.warps.size(), 1u);
  const Warp& w = l.dump.warps[0];
  EXPECT_EQ(w.sm, 124u);
  EXPECT_TRUE(w.error_pc_valid);
  EXPECT_EQ(w.error_pc, g.function_entry + 0x70);
  EXPECT_EQ(w.sm_exception, 6u);
  ASSERT_EQ(w.lanes.size(), 32u);
  for (std::uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(w.lanes[i].lane, i);
    EXPECT_EQ(w.lanes[i].thread, (Dim3{i, 0, 0}));
    EXPECT_EQ(w.lanes[i].exception, 6u);  // CUDBG_EXCEPTION_WARP_MISALIGNED_ADDRESS
    EXPECT_EQ(w.lanes[i].pc, g.function_entry + 0x80);
  }
}

TEST(Dump, AssertLanesCarryCode12) {
  const Loaded l = load("device_assert");
  std::size_t lanes = 0;
  for (const Warp& w : l.dump.warps)
    for (const Lane& ln : w.lanes) {
      EXPECT_EQ(ln.exception, 12u);  // CUDBG_EXCEPTION_WARP_ASSERT
      ++lanes;
    }
  EXPECT_EQ(lanes, 256u);
}

TEST(Dump, IllegalAddressIsOnlyInTheSmTable) {
  const Loaded l = load("oob_store");
  ASSERT_EQ(l.dump.sm_faults.size(), 2u);
  for (const SmFault& s : l.dump.sm_faults) {
    EXPECT_EQ(s.exception, 14u);  // CUDBG_EXCEPTION_WARP_ILLEGAL_ADDRESS
    EXPECT_TRUE(s.error_pc_valid);
    EXPECT_EQ(s.error_pc, l.dump.grids.at(0).function_entry + 0xd0);
  }
  EXPECT_EQ(l.dump.warps.size(), 6u);  // warp 0 of each block, the faulting one, is gone
  for (const Warp& w : l.dump.warps)
    for (const Lane& ln : w.lanes) EXPECT_EQ(ln.exception, 0u);
}

TEST(Dump, RecognisesCoreDumpsOnly) {
  const Loaded l = load("misaligned");
  EXPECT_TRUE(is_core_dump(Bytes(l.bytes.data(), l.bytes.size())));
  const Module* m = l.dump.module(0, l.dump.grids[0].module);
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(is_core_dump(m->image));  // a cubin: EM_CUDA, but not ET_CORE
  EXPECT_THROW(parse_core_dump(m->image), FormatError);
}

}  // namespace
}  // namespace fp8kit::coredump::test
