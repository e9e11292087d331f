// Just enough SASS decoding to tell a trap stub, an empty body and real code
// apart, and to see which tensor-core instructions a kernel uses.
//
// Volta and later (sm_70+) encode every instruction in 128 bits, two
// little-endian 64-bit words. In the first word bits 0-8 are the opcode (bits
// 9-11 pick the operand form, so IMAD is 0x224, 0x424, ... and all are 0x024)
// and bits 12-15 the guard predicate (7 = PT: always; 15 = !PT: never; bit 15
// negates). Opcodes below were read off `cuobjdump -sass` on sm_75 ... sm_121
// (tests/audit checks the classes against cuobjdump on the fixtures).
#pragma once

#include <cstdint>
#include <string>

#include "audit/bytes.hpp"

namespace fp8kit::audit {

enum class Body { Real, TrapStub, Empty };
const char* body_name(Body b);

// Tensor-core instruction families seen in a kernel, as bits.
namespace tc {
constexpr std::uint32_t kHmma = 1u << 0;     // mma.sync f16/bf16/tf32 (sm_75+), FP8 emulation
constexpr std::uint32_t kImma = 1u << 1;     // mma.sync s8/u8
constexpr std::uint32_t kQmma = 1u << 2;     // mma.sync e4m3/e5m2: native FP8 (sm_89, sm_12x)
constexpr std::uint32_t kHgmma = 1u << 3;    // wgmma f16/bf16/tf32 (sm_90a)
constexpr std::uint32_t kQgmma = 1u << 4;    // wgmma e4m3/e5m2 (sm_90a)
constexpr std::uint32_t kUtcHmma = 1u << 5;  // tcgen05.mma kind::f16/tf32 (sm_100a+)
constexpr std::uint32_t kUtcImma = 1u << 6;  // tcgen05.mma kind::i8
constexpr std::uint32_t kUtcQmma = 1u << 7;  // tcgen05.mma kind::f8f6f4 / mxf8f6f4 (FP8)
constexpr std::uint32_t kUtcOmma = 1u << 8;  // tcgen05.mma kind::mxf4* (FP4)
constexpr std::uint32_t kQmmaSf = 1u << 9;   // mma.sync kind::mxf8f6f4.block_scale (sm_12Xa/f)
constexpr std::uint32_t kOmmaSf = 1u << 10;  // mma.sync kind::mxf4nvf4.block_scale: FP4 (sm_12Xa/f)
// Native 8- and 4-bit float tensor-core instructions (FP8, and the SM12x FP4 mma).
constexpr std::uint32_t kFp8Native = kQmma | kQmmaSf | kQgmma | kUtcQmma | kOmmaSf;
}  // namespace tc

// "HMMA,QMMA" style list of the bits.
std::string tensor_ops_names(std::uint32_t ops);

// Classes of single instructions, as far as the classifier cares.
enum class Insn {
  Other,
  Nop,
  Exit,
  Ret,
  Bra,
  IndirectBranch,
  Call,     // CALL.ABS: the target is a relocation (another function, vprintf)
  CallRel,  // CALL.REL: a subroutine of the same code, at branch_target()
  Trap,
  Store,
  Atomic,
  BulkStore,
  Hmma,
  Imma,
  Qmma,
  Hgmma,
  Qgmma,
  UtcMma,
  Omma,  // OMMA.SF: the block-scaled FP4 mma.sync
};
const char* insn_name(Insn c);

// A load, store or atomic: its memory space, kind, width and address operand.
// Bits 9-11 of the second word are the width of LD/ST forms (0/1 8-bit, 2/3
// 16, 4 32, 5 64, 6 128 bits); bits 24-31 of the first word the address
// register Ra (255: RZ), bits 40-63 a signed byte offset; bit 8 of the second
// word a 64-bit address register pair (`[R6.64]`). Read off cuobjdump on sm_90.
struct MemoryAccess {
  bool valid = false;
  const char* space = "";  // "global", "shared", "local", "generic"
  const char* kind = "";   // "load", "store", "atomic"
  const char* name = "";   // "LDG", "STS", "ATOMG", ...
  unsigned width = 0;      // bytes; 0 when the encoding does not say (atomics)
  unsigned ra = 0;         // address register
  bool wide = false;       // Ra:Ra+1 holds a 64-bit address
  std::int32_t offset = 0;
};

struct Instruction {
  std::uint64_t lo = 0, hi = 0;
  Insn cls() const;
  unsigned opcode() const { return static_cast<unsigned>(lo & 0x1ff); }
  unsigned predicate() const { return static_cast<unsigned>((lo >> 12) & 0xf); }
  bool always() const { return predicate() == 0x7; }
  bool never() const { return predicate() == 0xf; }
  // BRA.U (operand form 2 in bits 9-11): `BRA.U !UP0, target` branches on a
  // uniform predicate, so it is conditional although its guard is PT
  // (PyTorch's vectorized elementwise kernels on sm_120 start with one).
  bool uniform_branch() const { return opcode() == 0x147 && ((lo >> 9) & 0x7) == 0x2; }
  // Target of a BRA or CALL.REL at byte offset pc in code for `arch`.
  std::int64_t branch_target(std::int64_t pc, int arch) const;
  std::uint32_t tensor_op() const;  // tc:: bit of a tensor-core instruction, else 0
  MemoryAccess memory_access() const;  // valid for LD/ST/ATOM/RED forms
};

// "LDG.64", "STS.32", "ATOMG": a memory instruction's name and width.
std::string memory_name(const MemoryAccess& m);

struct SassSummary {
  Body body = Body::Real;
  std::uint32_t tensor_ops = 0;
  bool decoded = false;  // false: pre-Volta encoding, not decoded (treated as real)
};

// Classifies one kernel's code (its .text section span) for target `arch`.
// A trap stub reaches an unconditional BPT.TRAP from the entry through
// straight-line code without a store, atomic or tensor-core instruction; an
// empty body reaches an unconditional EXIT that way without even a call. Traps
// behind a branch or a predicated EXIT (assert, error paths) are real code.
// Unconditional branches and CALL.REL subroutines (a RET returns after the
// call) are followed, so a kernel whose body is a called subroutine
// (`BSSY; CALL.REL.NOINC body; BSYNC; EXIT`, FlashAttention-2 on sm_90) is
// judged by that body; a CALL.ABS (relocated: another function) counts as a
// call whose callee is not seen.
SassSummary classify_sass(Bytes text, int arch);

}  // namespace fp8kit::audit
