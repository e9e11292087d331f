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

Explanation explain_fixture(const std::string& name, std::vector<std::string> binaries = {}) {
  const std::vector<std::uint8_t> b = fixture_dump(name);
  const CoreDump d = parse_core_dump(Bytes(b.data(), b.size()));
  ExplainOptions o;
  o.binaries = std::move(binaries);
  return explain(d, o);  // holds no pointer into the dump
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
