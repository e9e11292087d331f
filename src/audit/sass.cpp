#include "audit/sass.hpp"

#include <vector>

namespace fp8kit::audit {

namespace {
constexpr int kMaxStraightLine = 4096;  // instructions followed from the entry
constexpr std::size_t kMaxCallDepth = 16;  // nested CALL.REL followed
}

const char* body_name(Body b) {
  switch (b) {
    case Body::Real:
      return "real";
    case Body::TrapStub:
      return "trap stub";
    case Body::Empty:
      return "empty";
  }
  return "?";
}

std::string tensor_ops_names(std::uint32_t ops) {
  static const struct {
    std::uint32_t bit;
    const char* name;
  } names[] = {{tc::kHmma, "HMMA"},       {tc::kImma, "IMMA"},       {tc::kQmma, "QMMA"},
               {tc::kHgmma, "HGMMA"},     {tc::kQgmma, "QGMMA"},     {tc::kUtcHmma, "UTCHMMA"},
               {tc::kUtcImma, "UTCIMMA"}, {tc::kUtcQmma, "UTCQMMA"}, {tc::kUtcOmma, "UTCOMMA"}, {tc::kQmmaSf, "QMMA.SF"},
               {tc::kOmmaSf, "OMMA.SF"}};
  std::string s;
  for (const auto& n : names)
    if (ops & n.bit) s += (s.empty() ? "" : ",") + std::string(n.name);
  return s;
}

const char* insn_name(Insn c) {
  switch (c) {
    case Insn::Other:
      return "other";
    case Insn::Nop:
      return "NOP";
    case Insn::Exit:
      return "EXIT";
    case Insn::Ret:
      return "RET";
    case Insn::Bra:
      return "BRA";
    case Insn::IndirectBranch:
      return "BRX";
    case Insn::Call:
      return "CALL";
    case Insn::CallRel:
      return "CALL.REL";
    case Insn::Trap:
      return "BPT";
    case Insn::Store:
      return "store";
    case Insn::Atomic:
      return "atomic";
    case Insn::BulkStore:
      return "bulk store";
    case Insn::Hmma:
      return "HMMA";
    case Insn::Imma:
      return "IMMA";
    case Insn::Qmma:
      return "QMMA";
    case Insn::Hgmma:
      return "HGMMA";
    case Insn::Qgmma:
      return "QGMMA";
    case Insn::UtcMma:
      return "UTC*MMA";
    case Insn::Omma:
      return "OMMA";
  }
  return "?";
}

Insn Instruction::cls() const {
  switch (opcode()) {
    case 0x118:
      return Insn::Nop;
    case 0x14d:
      return Insn::Exit;
    case 0x150:
      return Insn::Ret;
    case 0x147:
      return Insn::Bra;
    case 0x149:
    case 0x158:
      return Insn::IndirectBranch;  // BRX, BRXU
    case 0x143:
      return Insn::Call;  // CALL.ABS
    case 0x144:
      return Insn::CallRel;
    case 0x15c:
      return Insn::Trap;
    case 0x185:
    case 0x186:
    case 0x188:
      return Insn::Store;  // ST, STG, STS
    case 0x18c:
    case 0x18e:
    case 0x1a8:
    case 0x1a9:
      return Insn::Atomic;  // ATOMS, RED, ATOMG
    case 0x1b5:
    case 0x1ba:
      return Insn::BulkStore;  // UTMASTG, UBLKCP
    case 0x03c:
      return Insn::Hmma;
    case 0x037:
      return Insn::Imma;
    case 0x07a:
      return Insn::Qmma;
    case 0x1f0:
      return Insn::Hgmma;
    case 0x1f3:
      return Insn::Qgmma;
    case 0x1ea:
      return Insn::UtcMma;
    case 0x07f:
      return Insn::Omma;  // OMMA.SF.16864 (0x...747f)
    default:
      return Insn::Other;
  }
}

std::int64_t Instruction::branch_target(std::int64_t pc, int arch) const {
  // A signed byte offset from the next instruction, in two layouts (checked
  // against cuobjdump): up to sm_8x all of it in bits 32..81; from sm_90 on
  // bits 2-9 of it sit in bits 16-23 and bits 10 and up in bits 34..81.
  std::uint64_t raw;
  if (arch < 90) {
    raw = (lo >> 32) | ((hi & 0x3ffff) << 32);
  } else {
    const std::uint64_t high = (lo >> 34) | ((hi & 0x3ffff) << 30);
    raw = (((lo >> 16) & 0xff) << 2) | (high << 10);
  }
  const std::int64_t off = static_cast<std::int64_t>(raw << 14) >> 14;  // sign-extend 50 bits
  return pc + 16 + off;
}

namespace {
constexpr std::uint64_t kQmmaSfOpcodeHigh = 0x2;
}  // namespace

std::uint32_t Instruction::tensor_op() const {
  switch (cls()) {
    case Insn::Hmma:
      return tc::kHmma;
    case Insn::Imma:
      return tc::kImma;
    case Insn::Qmma:
      // Bits 9-11 of the opcode field: 1 in QMMA (0x...727a), 2 in the
      // block-scaled QMMA.SF (0x...747a), as cuobjdump shows them (docs/audit.md).
      return ((lo >> 9) & 0x7) == kQmmaSfOpcodeHigh ? tc::kQmmaSf : tc::kQmma;
    case Insn::Omma:
      return tc::kOmmaSf;
    case Insn::Hgmma:
      return tc::kHgmma;
    case Insn::Qgmma:
      return tc::kQgmma;
    case Insn::UtcMma: {
      // The kind sits in bits 8-9 of the second word: 0 f16/tf32 (or FP4 with
      // block scales, bits 62-63 of the first word), 1 i8, 3 f8f6f4.
      const unsigned kind = static_cast<unsigned>((hi >> 8) & 0x3);
      if (kind == 3) return tc::kUtcQmma;
      if (kind == 1) return tc::kUtcImma;
      return (lo >> 62) ? tc::kUtcOmma : tc::kUtcHmma;
    }
    default:
      return 0;
  }
}

MemoryAccess Instruction::memory_access() const {
  struct Form {
    unsigned opcode;
    const char *name, *space, *kind;
    bool sized;
  };
  static constexpr Form kForms[] = {
      {0x180, "LD", "generic", "load", true},      {0x181, "LDG", "global", "load", true},
      {0x183, "LDL", "local", "load", true},       {0x184, "LDS", "shared", "load", true},
      {0x185, "ST", "generic", "store", true},     {0x186, "STG", "global", "store", true},
      {0x187, "STL", "local", "store", true},      {0x188, "STS", "shared", "store", true},
      {0x18c, "ATOMS", "shared", "atomic", false}, {0x18e, "RED", "global", "atomic", false},
      {0x1a8, "ATOMG", "global", "atomic", false},
  };
  static constexpr unsigned kWidths[] = {1, 1, 2, 2, 4, 8, 16, 0};
  constexpr unsigned kRz = 255;
  MemoryAccess m;
  for (const Form& f : kForms) {
    if (f.opcode != opcode()) continue;
    m.valid = true;
    m.name = f.name;
    m.space = f.space;
    m.kind = f.kind;
    m.width = f.sized ? kWidths[(hi >> 9) & 0x7] : 0;
    m.ra = static_cast<unsigned>((lo >> 24) & 0xff);
    m.wide = ((hi >> 8) & 0x1) != 0 && m.ra != kRz;
    const std::uint32_t raw = static_cast<std::uint32_t>((lo >> 40) & 0xffffff);
    m.offset = static_cast<std::int32_t>(raw << 8) >> 8;  // sign-extend 24 bits
  }
  return m;
}

std::string memory_name(const MemoryAccess& m) {
  if (!m.valid) return "";
  return std::string(m.name) + (m.width ? "." + std::to_string(m.width * 8) : "");
}

namespace {

// The walk from a kernel's entry along the one path every thread takes.
struct Walk {
  Walk(Bytes code, int target) : text(code), arch(target), n(code.size / 16) {}
  Bytes text;
  int arch;
  std::size_t n;  // instructions
  bool work = false, called = false;
  std::vector<std::size_t> returns;  // CALL.REL return points, innermost last

  Instruction at(std::size_t i) const {
    Instruction in;
    in.lo = text.u64(i * 16, "instruction");
    in.hi = text.u64(i * 16 + 8, "instruction");
    return in;
  }
  // Index of a forward or backward jump's target; false when it leaves the
  // code, is misaligned or is the instruction itself (a spin: real code).
  bool target(const Instruction& in, std::size_t i, std::size_t* to) const {
    const std::int64_t pc = static_cast<std::int64_t>(i * 16);
    const std::int64_t t = in.branch_target(pc, arch);
    if (t == pc || t < 0 || t % 16 != 0 || static_cast<std::uint64_t>(t) >= n * 16) return false;
    *to = static_cast<std::size_t>(t / 16);
    return true;
  }
  Body run();
};

Body Walk::run() {
  std::size_t i = 0;
  for (int steps = 0; i < n && steps < kMaxStraightLine; ++steps) {
    const Instruction in = at(i);
    if (in.never()) {
      ++i;
      continue;
    }
    const Insn c = in.cls();
    if (!in.always() || in.uniform_branch()) {
      // Control that depends on data: from here on the code is real.
      if (c == Insn::Exit || c == Insn::Ret || c == Insn::Bra || c == Insn::IndirectBranch || c == Insn::Trap ||
          c == Insn::CallRel)
        return Body::Real;
      if (c != Insn::Other && c != Insn::Nop && c != Insn::Call) work = true;
      ++i;
      continue;
    }
    switch (c) {
      case Insn::Trap:
        return work ? Body::Real : Body::TrapStub;
      case Insn::Ret:
        if (!returns.empty()) {
          i = returns.back();
          returns.pop_back();
          continue;
        }
        return work || called ? Body::Real : Body::Empty;
      case Insn::Exit:
        return work || called ? Body::Real : Body::Empty;
      case Insn::Bra:
        if (!target(in, i, &i)) return Body::Real;
        continue;
      case Insn::CallRel: {
        std::size_t to = 0;
        if (returns.size() >= kMaxCallDepth || !target(in, i, &to)) return Body::Real;
        returns.push_back(i + 1);
        i = to;
        continue;
      }
      case Insn::IndirectBranch:
        return Body::Real;
      case Insn::Call:
        called = true;
        break;
      case Insn::Other:
      case Insn::Nop:
        break;
      default:
        work = true;
        break;
    }
    ++i;
  }
  return Body::Real;
}

}  // namespace

SassSummary classify_sass(Bytes text, int arch) {
  SassSummary s;
  if (arch < 70) return s;
  s.decoded = true;
  Walk w(text, arch);
  for (std::size_t i = 0; i < w.n; ++i) s.tensor_ops |= w.at(i).tensor_op();
  s.body = w.run();
  return s;
}

}  // namespace fp8kit::audit
