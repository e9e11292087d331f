// fp8kit explain's diagnosis of each fixture, and the guard story of the
// seed: a trap stub on the GPU's image while a sibling has real code.
#include <gtest/gtest.h>

#include "coredump/explain.hpp"
#include "coredump/guard.hpp"
#include "coredump_test_util.hpp"

namespace fp8kit::coredump::test {
namespace {

constexpr const char* kGemm = "_Z22fp8_scaled_gemm_kernelPKhS0_Pfiii";
constexpr unsigned kLdgOpcode = 0x181;  // LDG.E.64 in the misaligned kernel (cuda-gdb: the error PC's line)

Explanation explain_bytes(const std::vector<std::uint8_t>& b, std::vector<std::string> binaries = {}) {
  const CoreDump d = parse_core_dump(Bytes(b.data(), b.size()));
  ExplainOptions o;
  o.binaries = std::move(binaries);
  return explain(d, o);  // holds no pointer into the dump
}

Explanation explain_fixture(const std::string& name, std::vector<std::string> binaries = {}) {
  return explain_bytes(fixture_dump(name), std::move(binaries));
}

const SassLine* line_at_pc(const Fault& f) {
  for (const SassLine& l : f.sass)
    if (l.at_pc) return &l;
  return nullptr;
}

TEST(Explain, SeedIsATrapStubGemm) {
  for (const char* name : {"seed", "seed_noabort"}) {
    const Explanation ex = explain_fixture(name);
    ASSERT_EQ(ex.faults.size(), 1u) << name;
    const Fault& f = ex.faults[0];
    EXPECT_TRUE(f.trapped);
    EXPECT_EQ(f.exception, 0u);  // the driver records no code for a trap
    EXPECT_EQ(f.kernel, kGemm);
    EXPECT_EQ(f.demangled.rfind("fp8_scaled_gemm_kernel(", 0), 0u) << f.demangled;
    EXPECT_TRUE(f.function.empty());
    EXPECT_EQ(f.warps, 128u);
    EXPECT_EQ(f.blocks, 16u);
    EXPECT_EQ(f.pc_offset, 0x20u);
    ASSERT_TRUE(f.has_image);
    EXPECT_EQ(f.image, "sm_90");
    EXPECT_EQ(f.body, audit::Body::TrapStub);
    EXPECT_EQ(f.sibling, SiblingVerdict::NotChecked);
    const SassLine* pc = line_at_pc(f);
    ASSERT_NE(pc, nullptr);
    EXPECT_EQ(pc->cls, audit::Insn::Bra);  // the BRA-to-self after the trap
    ASSERT_GE(pc - f.sass.data(), 1);
    EXPECT_EQ((pc - 1)->cls, audit::Insn::Trap);
    EXPECT_EQ((pc - 1)->text(), "BPT.TRAP");
    EXPECT_TRUE(f.has_instruction);
    EXPECT_EQ(f.instruction, "BPT.TRAP");
    EXPECT_EQ(f.instruction_offset, 0x10u);
    EXPECT_NE(f.meaning.find("executed BPT.TRAP"), std::string::npos) << f.meaning;
    ASSERT_FALSE(ex.notes.empty());
    EXPECT_NE(ex.notes[0].find("--binary"), std::string::npos);
  }
}

TEST(Explain, SeedSiblingWithRealCodeFromTheBinary) {
  const Explanation ex = explain_fixture("seed_noabort", {planted("seed")});
  ASSERT_EQ(ex.faults.size(), 1u);
  const Fault& f = ex.faults[0];
  EXPECT_EQ(f.sibling, SiblingVerdict::RealSibling);
  EXPECT_EQ(f.real_on, std::vector<std::string>{"sm_80"});
  EXPECT_FALSE(f.same_family);  // Hopper has one member: the sibling is Ampere
  EXPECT_NE(f.guard.find("__CUDA_ARCH__ == 800"), std::string::npos) << f.guard;
  EXPECT_NE(f.fix.find("__CUDA_ARCH__ >= 800 && __CUDA_ARCH__ < 890"), std::string::npos) << f.fix;
  EXPECT_NE(f.fix.find("Hopper"), std::string::npos) << f.fix;
  EXPECT_NE(f.sibling_where.find("seed"), std::string::npos);
  for (const std::string& n : ex.notes) EXPECT_EQ(n.find("the dump ran"), std::string::npos) << n;
  // The binary's sm_90 image holds the code the GPU ran.
  for (const std::string& n : ex.notes) EXPECT_EQ(n.find("with other code"), std::string::npos) << n;
  EXPECT_FALSE(f.sass_from_binary);
}

TEST(Explain, MisalignedLoad) {
  const Explanation ex = explain_fixture("misaligned");
  ASSERT_EQ(ex.faults.size(), 1u);
  const Fault& f = ex.faults[0];
  EXPECT_EQ(f.exception, 6u);
  EXPECT_EQ(f.description, "warp misaligned address");
  EXPECT_EQ(f.demangled, "misaligned_load_kernel(char const*, double*)");
  EXPECT_TRUE(f.error_pc_valid);
  EXPECT_EQ(f.pc_offset, 0x70u);  // the error PC: the load, one before where the warp stopped
  bool saw_error_line = false;
  for (const SassLine& l : f.sass)
    if (l.at_error_pc) {
      saw_error_line = true;
      EXPECT_EQ((audit::Instruction{l.lo, l.hi}.opcode()), kLdgOpcode);
      EXPECT_EQ(l.offset, 0x70u);
    }
  EXPECT_TRUE(saw_error_line);
  EXPECT_EQ(f.body, audit::Body::Real);
  EXPECT_EQ(f.sibling, SiblingVerdict::LoadedIsReal);
  // The instruction the exception blames, its width, and the address from the lane's registers.
  EXPECT_EQ(f.instruction, "LDG.64");
  EXPECT_EQ(f.instruction_offset, 0x70u);
  ASSERT_TRUE(f.address_known);
  EXPECT_EQ(f.address % 8, 4u);  // the planted program loads 4 bytes past an 8-byte boundary
  EXPECT_NE(f.meaning.find("an 8-byte global load of address"), std::string::npos) << f.meaning;
  EXPECT_NE(f.meaning.find("4 bytes past an 8-byte boundary"), std::string::npos) << f.meaning;
}

// An illegal instruction in real code, from the misaligned dump with its
// lanes' exception rewritten: the instruction at the error PC is shown, with
// what the exception means for it, on the GPU the image was built for and on
// another one.
TEST(Explain, IllegalInstructionInRealCode) {
  constexpr std::uint32_t kIllegalInstruction = 4;
  const std::vector<std::uint8_t> dump = with_lane_exception(fixture_dump("misaligned"), kIllegalInstruction);
  Explanation ex = explain_bytes(dump);
  ASSERT_EQ(ex.faults.size(), 1u);
  const Fault& f = ex.faults[0];
  EXPECT_EQ(f.description, "warp illegal instruction");
  EXPECT_EQ(f.body, audit::Body::Real);  // real code, not a stub
  EXPECT_EQ(f.instruction, "LDG.64");
  EXPECT_EQ(f.instruction_offset, 0x70u);
  EXPECT_FALSE(f.address_known);  // an address is read for memory faults only
  EXPECT_NE(f.meaning.find("an instruction the chip does not implement"), std::string::npos) << f.meaning;
  EXPECT_NE(f.meaning.find("loaded as sm_90"), std::string::npos) << f.meaning;
  // The same dump from a GPU of another capability: the image's target against the GPU's.
  ex = explain_bytes(with_capability(dump, 10, 0));
  ASSERT_EQ(ex.faults.size(), 1u);
  EXPECT_NE(ex.faults[0].meaning.find("the image is sm_90, built for 9.0, and the GPU is 10.0"), std::string::npos)
      << ex.faults[0].meaning;
}

TEST(Explain, DeviceNameAbsentFromTheDump) {
  const Explanation ex = explain_bytes(without_device_name(fixture_dump("misaligned")));
  ASSERT_EQ(ex.devices.size(), 1u);
  EXPECT_EQ(ex.devices[0].name, "");
  EXPECT_EQ(ex.devices[0].capability(), 90);
  EXPECT_EQ(explain_fixture("misaligned").devices[0].name, "NVIDIA H200");
}

// An illegal address: the faulting warps have left, only the SM table holds
// the exception and its PC (cuda-gdb 13.0 aborted on this dump).
TEST(Explain, OutOfBoundsStoreFromTheSmTable) {
  const Explanation ex = explain_fixture("oob_store");
  ASSERT_EQ(ex.faults.size(), 1u);
  const Fault& f = ex.faults[0];
  EXPECT_TRUE(f.sm_level);
  EXPECT_EQ(f.sms, 2u);
  EXPECT_EQ(f.exception, 14u);
  EXPECT_EQ(f.description, "warp illegal address");
  EXPECT_EQ(f.demangled, "scatter_out_of_bounds_kernel(float*, long long)");
  EXPECT_EQ(f.grid_dim, (Dim3{2, 1, 1}));
  EXPECT_TRUE(f.error_pc_valid);
  EXPECT_EQ(f.pc_offset, 0xd0u);
  bool saw = false;
  for (const SassLine& l : f.sass) {
    EXPECT_FALSE(l.at_pc);  // where the faulting warp stopped is not in the dump
    if (l.at_error_pc) {
      saw = true;
      EXPECT_EQ(l.cls, audit::Insn::Store);
    }
  }
  EXPECT_TRUE(saw);
  EXPECT_EQ(f.sibling, SiblingVerdict::LoadedIsReal);
  EXPECT_EQ(f.instruction, "STG.32");
  EXPECT_FALSE(f.address_known);  // the warp had left: no registers
  EXPECT_NE(f.meaning.find("a 4-byte global store to an address no allocation"), std::string::npos) << f.meaning;
}

TEST(Explain, DeviceAssert) {
  const Explanation ex = explain_fixture("device_assert");
  ASSERT_EQ(ex.faults.size(), 1u);
  const Fault& f = ex.faults[0];
  EXPECT_EQ(f.exception, 12u);
  EXPECT_EQ(f.demangled, "check_scales_kernel(float const*, int)");
  EXPECT_EQ(f.warps, 8u);
  EXPECT_EQ(f.blocks, 2u);
  const SassLine* pc = line_at_pc(f);
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(pc->cls, audit::Insn::Exit);
  ASSERT_GE(pc - f.sass.data(), 1);
  EXPECT_EQ((pc - 1)->cls, audit::Insn::Call);  // __assertfail
  EXPECT_EQ(f.body, audit::Body::Real);  // a trap behind a branch is real code, not a stub
  EXPECT_EQ(f.instruction, "CALL");      // the call to __assertfail, before the PC
  EXPECT_NE(f.meaning.find("assert failed"), std::string::npos) << f.meaning;
}

// The seed's own case, which the lent Hopper cannot show: on a 12.1 GPU the
// sm_121 image traps while sm_120 of the same family has real code.
TEST(Explain, SameFamilySiblingOn121) {
  CoreDump d;
  Device dev;
  dev.sm_major = 12;
  dev.sm_minor = 1;
  d.devices.push_back(dev);
  Explanation ex;
  Fault f;
  f.kernel = kGemm;
  f.demangled = "fp8_scaled_gemm_kernel";
  f.has_image = true;
  f.image = "sm_121";
  f.image_arch = 121;
  f.body = audit::Body::TrapStub;
  ex.faults.push_back(f);
  ExplainOptions o;
  o.binaries = {planted("seed_120_121.o")};
  check_siblings(ex, d, o);
  const Fault& g = ex.faults[0];
  EXPECT_EQ(g.sibling, SiblingVerdict::RealSibling);
  EXPECT_EQ(g.real_on, std::vector<std::string>{"sm_120"});
  EXPECT_TRUE(g.same_family);
  EXPECT_NE(g.guard.find("__CUDA_ARCH__ == 1200"), std::string::npos) << g.guard;
  EXPECT_NE(g.fix.find("__CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300"), std::string::npos) << g.fix;
  EXPECT_NE(g.fix.find("12.1"), std::string::npos) << g.fix;
  for (const std::string& n : ex.notes) ADD_FAILURE() << n;
}

TEST(Explain, ABinaryWithoutTheLoadedImageIsNotTheOneThatRan) {
  // seed_120_121.o holds the kernel, but nothing a 9.0 GPU loads.
  const Explanation ex = explain_fixture("seed_noabort", {planted("seed_120_121.o")});
  ASSERT_EQ(ex.faults.size(), 1u);
  EXPECT_EQ(ex.faults[0].sibling, SiblingVerdict::NotChecked);
  bool noted = false;
  for (const std::string& n : ex.notes) noted = noted || n.find("not the binary the process ran") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Explain, AdviceAcrossFamilies) {
  const GuardAdvice a = advise(90, "sm_90", {arch::Image{arch::ImageKind::Sass, 80, arch::Variant::Plain},
                                             arch::Image{arch::ImageKind::Sass, 86, arch::Variant::Plain}});
  EXPECT_FALSE(a.same_family);
  EXPECT_NE(a.guard.find("__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 860"), std::string::npos) << a.guard;
  EXPECT_NE(a.fix.find("Ampere"), std::string::npos) << a.fix;
  EXPECT_EQ(a.fix.find("Ampere `__CUDA_ARCH__ >= 800 && __CUDA_ARCH__ < 890`, Ampere"), std::string::npos) << a.fix;
}

TEST(Explain, ExceptionNames) {
  EXPECT_EQ(exception_name(4), "warp illegal instruction");
  EXPECT_EQ(exception_name(5), "warp out-of-range address");
  EXPECT_EQ(exception_name(14), "warp illegal address");
  EXPECT_EQ(exception_name(999), "exception code 999");
}

}  // namespace
}  // namespace fp8kit::coredump::test
