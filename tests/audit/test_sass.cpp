// The SASS classifier against cuobjdump -sass on the fixtures, instruction by
// instruction, and the body classes of the fixture kernels.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include "audit/cubin.hpp"
#include "audit/elf.hpp"
#include "audit/fatbin.hpp"
#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

// Cubins of a fixture: the file itself, or the entries of its fatbin.
std::vector<std::vector<std::uint8_t>> cubins_of(const std::string& name) {
  const auto file = read_file(fixture(name));
  const Bytes b(file.data(), file.size());
  if (is_elf64_cuda(b)) return {file};
  std::vector<std::vector<std::uint8_t>> out;
  const Elf elf(b);
  for (const char* sec : {".nv_fatbin", "__nv_relfatbin"}) {
    const ElfSection* s = elf.find(sec);
    if (!s) continue;
    for (const auto& c : parse_fatbin_region(elf.section_bytes(*s)))
      for (const auto& e : c.entries) {
        if (e.kind != EntryKind::Elf) continue;
        std::vector<std::uint8_t> storage;
        const Bytes img = entry_image(e, storage, 1u << 26);
        out.emplace_back(img.data, img.data + img.size);
      }
  }
  return out;
}

Insn expected_class(const std::string& mnemonic) {
  if (mnemonic.rfind("CALL.REL", 0) == 0) return Insn::CallRel;
  const std::string base = mnemonic.substr(0, mnemonic.find('.'));
  static const std::map<std::string, Insn> m = {
      {"NOP", Insn::Nop},          {"EXIT", Insn::Exit},          {"RET", Insn::Ret},
      {"BRA", Insn::Bra},          {"BRX", Insn::IndirectBranch}, {"BRXU", Insn::IndirectBranch},
      {"CALL", Insn::Call},        {"BPT", Insn::Trap},           {"ST", Insn::Store},
      {"STG", Insn::Store},        {"STS", Insn::Store},          {"ATOMG", Insn::Atomic},
      {"ATOMS", Insn::Atomic},     {"RED", Insn::Atomic},         {"REDG", Insn::Atomic},
      {"UBLKCP", Insn::BulkStore}, {"UTMASTG", Insn::BulkStore},  {"HMMA", Insn::Hmma},
      {"IMMA", Insn::Imma},        {"QMMA", Insn::Qmma},          {"HGMMA", Insn::Hgmma},
      {"QGMMA", Insn::Qgmma},      {"UTCHMMA", Insn::UtcMma},     {"UTCQMMA", Insn::UtcMma},
      {"UTCIMMA", Insn::UtcMma},   {"UTCOMMA", Insn::UtcMma},     {"OMMA", Insn::Omma}};
  const auto it = m.find(base);
  return it == m.end() ? Insn::Other : it->second;
}

struct Dumped {
  std::uint64_t offset, lo, hi;
  std::string mnemonic, text;
};

// cuobjdump -sass of one cubin: function name -> instructions.
std::map<std::string, std::vector<Dumped>> dump(const std::vector<std::uint8_t>& cubin) {
  const std::string path = temp_path("classify.cubin");
  write_file(path, cubin);
  std::string out;
  run_command("'" + cuobjdump() + "' -sass '" + path + "' 2>/dev/null", &out);
  std::remove(path.c_str());
  std::map<std::string, std::vector<Dumped>> fns;
  static const std::regex fn(R"(Function : (\S+))");
  static const std::regex insn(
      R"(/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);\s*/\* 0x([0-9a-f]{16}) \*/)");
  static const std::regex hi(R"(^\s*/\* 0x([0-9a-f]{16}) \*/)");
  std::istringstream in(out);
  std::string line, current;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, fn)) {
      current = m[1];
    } else if (std::regex_search(line, m, insn)) {
      Dumped d{std::stoull(m[1], nullptr, 16), std::stoull(m[4], nullptr, 16), 0, m[2], m[2].str() + m[3].str()};
      std::string next;
      if (std::getline(in, next) && std::regex_search(next, m, hi)) d.hi = std::stoull(m[1], nullptr, 16);
      fns[current].push_back(d);
    }
  }
  return fns;
}

class SassVsCuobjdump : public ::testing::TestWithParam<const char*> {};

TEST_P(SassVsCuobjdump, EveryInstructionClassMatches) {
  if (cuobjdump().empty()) GTEST_SKIP() << "cuobjdump not found at configure time";
  std::size_t checked = 0, branches = 0;
  for (const auto& bytes : cubins_of(GetParam())) {
    const Cubin c = parse_cubin(Bytes(bytes.data(), bytes.size()));
    const auto fns = dump(bytes);
    for (const CubinKernel& k : c.kernels) {
      const auto it = fns.find(std::string(k.name));
      ASSERT_NE(it, fns.end()) << k.name << " not in cuobjdump output";
      for (const Dumped& d : it->second) {
        ASSERT_LT(d.offset + 16, k.text.size + 1);
        Instruction in;
        in.lo = k.text.u64(d.offset, "insn");
        in.hi = k.text.u64(d.offset + 8, "insn");
        ASSERT_EQ(in.lo, d.lo) << "decoder misaligned at " << d.offset;
        ASSERT_EQ(in.hi, d.hi);
        EXPECT_EQ(insn_name(in.cls()), insn_name(expected_class(d.mnemonic)))
            << "sm_" << c.arch << " " << k.name << " +" << std::hex << d.offset << ": " << d.text;
        if (in.cls() == Insn::Bra || in.cls() == Insn::CallRel) {
          static const std::regex target(R"((0x[0-9a-f]+)\s*$)");
          std::smatch m;
          if (std::regex_search(d.text, m, target)) {
            EXPECT_EQ(in.branch_target(static_cast<std::int64_t>(d.offset), c.arch),
                      static_cast<std::int64_t>(std::stoull(m[1], nullptr, 16)))
                << d.text;
            ++branches;
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0u);
  RecordProperty("instructions", static_cast<int>(checked));
  RecordProperty("branches", static_cast<int>(branches));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SassVsCuobjdump,
                         ::testing::Values("tensor_75.cubin", "tensor_89.cubin", "tensor_90.cubin", "tensor_120.cubin",
                                           "eq_guard.o", "eq_guard_121.cubin", "range_guard_89.o", "plain.o",
                                           "rdc_a.o", "call_body.o", "feat_90a_120a.o",
                                           "uniform_branch.o"));

// Body class and tensor ops of `kernel` in the cubin for `arch` of a fixture.
SassSummary summary(const std::string& name, int arch, const std::string& kernel) {
  for (const auto& bytes : cubins_of(name)) {
    const Cubin c = parse_cubin(Bytes(bytes.data(), bytes.size()));
    if (c.arch != arch) continue;
    for (const auto& k : c.kernels)
      if (std::string(k.name).find(kernel) != std::string::npos) return classify_sass(k.text, c.arch);
  }
  ADD_FAILURE() << kernel << " for sm_" << arch << " not found in " << name;
  return {};
}

TEST(SassBody, EqualityGuard) {
  EXPECT_EQ(summary("eq_guard.o", 120, "eq_guard").body, Body::Real);
  EXPECT_EQ(summary("eq_guard.o", 121, "eq_guard").body, Body::TrapStub);
  EXPECT_EQ(summary("eq_guard_121.cubin", 121, "eq_guard").body, Body::TrapStub);
}

TEST(SassBody, RangeGuardOutsideItsRangeIsEmpty) {
  EXPECT_EQ(summary("range_guard_89.o", 89, "range_guard").body, Body::Empty);
  EXPECT_EQ(summary("range_guard_89.o", 120, "range_guard").body, Body::Real);
}

TEST(SassBody, BenignTrapsAreRealCode) {
  EXPECT_EQ(summary("plain.o", 120, "plain_kernel").body, Body::Real);  // trap behind a branch
  EXPECT_EQ(summary("plain.o", 120, "print_trap").body, Body::TrapStub);
  EXPECT_EQ(summary("plain.o", 120, "empty_kernel").body, Body::Empty);
  EXPECT_EQ(summary("tensor_120.cubin", 120, "loop_kernel").body, Body::Real);
}

TEST(SassBody, CalledSubroutinesAreFollowed) {
  // BSSY; CALL.REL.NOINC body; BSYNC; EXIT: the body decides (both branch layouts).
  for (int sm : {75, 90, 120}) {
    SCOPED_TRACE(sm);
    EXPECT_EQ(summary("call_body.o", sm, "call_body_kernel").body, Body::Real);
    EXPECT_EQ(summary("call_body.o", sm, "call_trap_kernel").body, Body::TrapStub);
    EXPECT_EQ(summary("call_body.o", sm, "call_empty_kernel").body, Body::Empty);
  }
}

TEST(SassBody, UniformBranchIsConditional) {
  for (int sm : {90, 120}) EXPECT_EQ(summary("uniform_branch.o", sm, "uniform_branch").body, Body::Real) << sm;
}

// A kernel of 128-bit words, for walks the fixtures do not make.
struct Code {
  std::vector<std::uint64_t> words;
  static constexpr std::uint64_t kAlways = 0x7000;
  // sm_90+ layout of a relative target (bits 2-9 of the offset in bits 16-23).
  Code& jump(unsigned opcode, int to) {
    const std::int64_t off = static_cast<std::int64_t>(to) * 16 - (static_cast<std::int64_t>(size()) + 1) * 16;
    const std::uint64_t raw = static_cast<std::uint64_t>(off) & ((std::uint64_t{1} << 50) - 1);
    words.push_back(opcode | kAlways | (((raw >> 2) & 0xff) << 16) | ((raw >> 10) << 34));
    words.push_back((raw >> 10) >> 30);
    return *this;
  }
  Code& op(unsigned opcode, std::uint64_t predicate = kAlways) {
    words.push_back(opcode | predicate);
    words.push_back(0);
    return *this;
  }
  std::size_t size() const { return words.size() / 2; }
  Body body() const {
    return classify_sass(Bytes(reinterpret_cast<const std::uint8_t*>(words.data()), words.size() * 8), 90).body;
  }
};
constexpr unsigned kMov = 0x002, kStg = 0x186, kExit = 0x14d, kRet = 0x150, kTrap = 0x15c, kBra = 0x147,
                   kCallRel = 0x144, kCallAbs = 0x143;

TEST(SassBody, WalksThroughCallsAndBranches) {
  // CALL sub; EXIT; sub: STG; RET -> real.
  EXPECT_EQ(Code().jump(kCallRel, 2).op(kExit).op(kStg).op(kRet).body(), Body::Real);
  // CALL sub; EXIT; sub: RET -> empty (the subroutine did nothing).
  EXPECT_EQ(Code().jump(kCallRel, 2).op(kExit).op(kRet).body(), Body::Empty);
  // CALL a; a: CALL b; ...; b: TRAP -> trap stub, nested.
  EXPECT_EQ(Code().jump(kCallRel, 2).op(kExit).jump(kCallRel, 4).op(kRet).op(kTrap).body(), Body::TrapStub);
  // A backward unconditional branch is followed: BRA 2; TRAP; MOV; BRA 1 -> trap stub.
  EXPECT_EQ(Code().jump(kBra, 2).op(kTrap).op(kMov).jump(kBra, 1).body(), Body::TrapStub);
  // A branch to itself spins: real (never a stub); so is a call out of the code.
  EXPECT_EQ(Code().op(kMov).jump(kBra, 1).body(), Body::Real);
  EXPECT_EQ(Code().jump(kCallRel, 40).op(kExit).body(), Body::Real);
  // BRA.U !UP0 (form 2) to an EXIT: conditional, so real (the seen empty-body false positive).
  EXPECT_EQ(Code().jump(kBra | 0x400, 2).op(kStg).op(kExit).body(), Body::Real);
  EXPECT_EQ(Code().jump(kBra, 2).op(kStg).op(kExit).body(), Body::Empty);  // the plain BRA skips the store
  // A conditional CALL.REL depends on data: real.
  EXPECT_EQ(Code().op(kCallRel | 0x1000, 0).op(kTrap).body(), Body::Real);
  // CALL.ABS (printf) then trap: still the print-and-trap stub; then EXIT: real.
  EXPECT_EQ(Code().op(kCallAbs).op(kTrap).body(), Body::TrapStub);
  EXPECT_EQ(Code().op(kCallAbs).op(kExit).body(), Body::Real);
  // Unbounded recursion stops at the depth limit as real code.
  EXPECT_EQ(Code().jump(kCallRel, 1).jump(kCallRel, 0).body(), Body::Real);
}

TEST(SassTensorOps, NativeAndEmulatedFp8) {
  EXPECT_EQ(summary("tensor_89.cubin", 89, "fp8_mma").tensor_ops, tc::kQmma);
  EXPECT_EQ(summary("tensor_120.cubin", 120, "fp8_mma").tensor_ops, tc::kQmma);
  EXPECT_EQ(summary("tensor_90.cubin", 90, "fp8_mma").tensor_ops, tc::kHmma);  // ptxas emulation
  EXPECT_EQ(summary("tensor_75.cubin", 75, "fp8_mma").body, Body::Empty);      // guarded away
  for (int sm : {75, 89, 90, 120})
    EXPECT_EQ(summary("tensor_" + std::to_string(sm) + ".cubin", sm, "f16_mma").tensor_ops, tc::kHmma) << sm;
  EXPECT_EQ(summary("tensor_120.cubin", 120, "loop_kernel").tensor_ops, 0u);
}

TEST(SassTensorOps, WordsFromTheManual) {
  // Encodings read off cuobjdump (docs/audit.md): QGMMA, HGMMA, UTCQMMA, UTCHMMA.
  auto ops = [](std::uint64_t lo, std::uint64_t hi) {
    Instruction in;
    in.lo = lo;
    in.hi = hi;
    return in.tensor_op();
  };
  EXPECT_EQ(ops(0x00000000041879f3ull, 0), tc::kQgmma);
  EXPECT_EQ(ops(0x00000000041879f0ull, 0), tc::kHgmma);
  EXPECT_EQ(ops(0x00ff040e0c0075eaull, 0x0181d80008000306ull), tc::kUtcQmma);
  EXPECT_EQ(ops(0x00ff040e0c0075eaull, 0x0001d80008000006ull), tc::kUtcHmma);
  EXPECT_EQ(ops(0x00ff040a080075eaull, 0x0001d80008000106ull), tc::kUtcImma);
  EXPECT_EQ(ops(0xc00c040a080075eaull, 0x0001d80008000006ull), tc::kUtcOmma);
  EXPECT_EQ(ops(0x000c040a08007deaull, 0x0181d80008000306ull), tc::kUtcQmma);  // block-scaled
  // mma.sync FP8 on SM12x: plain QMMA.16832 (0x...727a) and the block-scaled
  // QMMA.SF.16832 (0x...747a) differ in bits 9-11 of the opcode field.
  EXPECT_EQ(ops(0x000000000000727aull, 0), tc::kQmma);
  EXPECT_EQ(ops(0x000000000000747aull, 0), tc::kQmmaSf);
  EXPECT_EQ(tensor_ops_names(tc::kQmma | tc::kQmmaSf), "QMMA,QMMA.SF");
  // The block-scaled FP4 mma.sync: OMMA.SF.16864 (opcode low 12 bits 0x47f).
  EXPECT_EQ(ops(0x000000000000747full, 0), tc::kOmmaSf);
  EXPECT_EQ(tensor_ops_names(tc::kOmmaSf), "OMMA.SF");
}

}  // namespace
}  // namespace fp8kit::audit::test
