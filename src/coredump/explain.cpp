#include "coredump/explain.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "audit/report.hpp"
#include "coredump/binary_code.hpp"
#include "coredump/guard.hpp"
#include "coredump/image.hpp"

namespace fp8kit::coredump {

namespace {

constexpr std::uint64_t kInsnBytes = 16;
constexpr std::uint32_t kMisalignedAddress = 6, kLaneMisalignedAddress = 11, kAssert = 12;
// Lane and device illegal address, out of range, invalid space, illegal address, MMU fault.
constexpr std::uint32_t kAddressFaults[] = {1, 10, 5, 7, 14, 30};

// Parsed images by (device, module handle); nullptr when unreadable.
class Images {
 public:
  Images(const CoreDump& d, std::vector<std::string>& notes) : dump_(d), notes_(notes) {}
  const LoadedImage* get(std::uint32_t device, std::uint64_t handle) {
    const auto key = std::make_pair(device, handle);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second.get();
    std::unique_ptr<LoadedImage> im;
    const Module* m = dump_.module(device, handle);
    if (m != nullptr && m->image.size != 0) {
      try {
        im = std::make_unique<LoadedImage>(m->image);
      } catch (const audit::FormatError& e) {
        notes_.push_back("the image of module " + hex(handle) + " does not read as a cubin: " + e.what());
      }
    }
    return cache_.emplace(key, std::move(im)).first->second.get();
  }
  static std::string hex(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
  }

 private:
  const CoreDump& dump_;
  std::vector<std::string>& notes_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::unique_ptr<LoadedImage>> cache_;
};

struct WarpFault {
  std::uint32_t code = 0;
  bool trapped = false;
  const Lane* lane = nullptr;  // the first faulting lane
};

// Whether a warp stopped on a fault: a recorded exception, or a PC right
// after an unconditional BPT.TRAP (the driver records no code for a trap).
WarpFault warp_fault(const Warp& w, const CoreDump& dump, Images& images) {
  WarpFault f;
  for (const Lane& l : w.lanes)
    if (l.exception != 0) return {l.exception, false, &l};
  if (w.lanes.empty()) return f;
  if (w.sm_exception != 0 && w.error_pc_valid) return {w.sm_exception, false, &w.lanes.front()};
  const Grid* g = dump.grid(w.device, w.grid);
  const LoadedImage* im = g ? images.get(w.device, g->module) : nullptr;
  if (im == nullptr) return f;
  const Lane& first = w.lanes.front();
  const auto prev = first.pc >= kInsnBytes ? im->instruction_at(first.pc - kInsnBytes) : std::nullopt;
  if (prev && prev->cls() == audit::Insn::Trap && prev->always()) return {0, true, &first};
  return f;
}

// The instructions from `sass_before` before the earlier of the PC and the
// error PC to `sass_after` after the later one.
std::vector<SassLine> sass_around(const CodeSpan& span, const Fault& f, const ExplainOptions& o) {
  std::vector<SassLine> out;
  const auto inside = [&](std::uint64_t a) { return a >= span.address && a - span.address < span.text.size; };
  std::vector<std::uint64_t> marks;
  if (inside(f.pc)) marks.push_back(f.pc - span.address);
  if (f.error_pc_valid && inside(f.error_pc)) marks.push_back(f.error_pc - span.address);
  if (marks.empty()) return out;
  const std::uint64_t lo = *std::min_element(marks.begin(), marks.end());
  const std::uint64_t hi = *std::max_element(marks.begin(), marks.end());
  const std::uint64_t first = lo / kInsnBytes > o.sass_before ? (lo / kInsnBytes - o.sass_before) * kInsnBytes : 0;
  for (std::uint64_t at = first; at <= hi + o.sass_after * kInsnBytes && span.text.has(at, kInsnBytes);
       at += kInsnBytes) {
    SassLine l;
    l.offset = at;
    l.lo = span.text.u64(at, "instruction");
    l.hi = span.text.u64(at + 8, "instruction");
    l.cls = audit::Instruction{l.lo, l.hi}.cls();
    l.at_pc = !f.sm_level && span.address + at == f.pc;
    l.at_error_pc = f.error_pc_valid && span.address + at == f.error_pc;
    out.push_back(l);
  }
  return out;
}

// The module image whose code holds `pc`, when no grid names it.
const LoadedImage* image_holding(const CoreDump& dump, std::uint32_t device, std::uint64_t pc, Images& images) {
  for (const Module& m : dump.modules) {
    if (m.device != device) continue;
    const LoadedImage* im = images.get(device, m.handle);
    if (im != nullptr && im->code_at(pc)) return im;
  }
  return nullptr;
}

// The address of the memory access `m` in `lane`'s registers, when the dump
// holds them and the warp stopped at the instruction or right after it (later
// instructions may have overwritten the address register).
bool access_address(const Fault& f, const audit::MemoryAccess& m, const Lane* lane, std::uint64_t* address) {
  constexpr unsigned kRz = 255;
  if (lane == nullptr || !m.valid || !f.error_pc_valid || (f.pc != f.error_pc && f.pc != f.error_pc + kInsnBytes))
    return false;
  std::uint32_t lo = 0, hi = 0;
  if (m.ra != kRz && !lane->reg(m.ra, &lo)) return false;
  if (m.wide && !lane->reg(m.ra + 1, &hi)) return false;
  *address = ((std::uint64_t{hi} << 32) | lo) + static_cast<std::uint64_t>(static_cast<std::int64_t>(m.offset));
  return true;
}

// The instruction the exception blames, and the address it accessed.
void blame(Fault& f, const CodeSpan& span, const Lane* lane) {
  std::uint64_t at = f.error_pc_valid ? f.error_pc : f.trapped ? f.pc - kInsnBytes : f.pc;
  // A failed assert stops after its CALL to __assertfail: that call is the instruction to show.
  if (f.exception == kAssert && !f.error_pc_valid && at >= span.address + kInsnBytes &&
      span.text.has(at - span.address - kInsnBytes, kInsnBytes) &&
      audit::Instruction{span.text.u64(at - span.address - kInsnBytes, "instruction"),
                         span.text.u64(at - span.address - kInsnBytes + 8, "instruction")}
              .cls() == audit::Insn::Call)
    at -= kInsnBytes;
  if (at < span.address || (at - span.address) % kInsnBytes != 0 || !span.text.has(at - span.address, kInsnBytes))
    return;
  const std::uint64_t off = at - span.address;
  f.has_instruction = true;
  f.instruction_offset = off;
  f.blamed = {span.text.u64(off, "instruction"), span.text.u64(off + 8, "instruction")};
  f.instruction = SassLine{off, f.blamed.lo, f.blamed.hi, f.blamed.cls(), false, false}.text();
  const audit::MemoryAccess m = f.blamed.memory_access();
  std::uint64_t address = 0;
  // Only a memory exception has an address to show. A misaligned access's
  // address is no multiple of its width: one that is was read after it changed.
  const bool misaligned = f.exception == kMisalignedAddress || f.exception == kLaneMisalignedAddress;
  if (!misaligned && std::find(std::begin(kAddressFaults), std::end(kAddressFaults), f.exception) ==
                         std::end(kAddressFaults))
    return;
  if (access_address(f, m, lane, &address) && (!misaligned || (m.width > 1 && address % m.width != 0))) {
    f.address_known = true;
    f.address = address;
  }
}

// Kernel, image, verdict and SASS of a fault, from its grid's module (or,
// without a grid, from the image whose code holds the PC).
void locate(Fault& f, const CoreDump& dump, const Grid* g, Images& images, const ExplainOptions& o,
            const Lane* lane) {
  const std::uint64_t where = f.error_pc_valid ? f.error_pc : f.pc;
  const LoadedImage* im = nullptr;
  if (g != nullptr) {
    f.grid_dim = g->grid_dim;
    f.block_dim = g->block_dim;
    im = images.get(f.device, g->module);
  } else {
    im = image_holding(dump, f.device, where, images);
  }
  if (im == nullptr) return;
  f.has_image = true;
  f.image = im->target();
  f.image_arch = im->arch();
  if (const auto k = im->code_at(g != nullptr ? g->function_entry : where)) {
    f.kernel = k->function;
    f.demangled = audit::demangle(k->function);
    f.body = audit::classify_sass(k->text, im->arch()).body;
  }
  if (const auto span = im->code_at(where)) {
    f.pc_in_image = true;
    f.pc_offset = where - span->address;
    if (span->function != f.kernel) f.function = audit::demangle(span->function);
    f.sass = sass_around(*span, f, o);
    blame(f, *span, lane);
  }
}

using GroupKey = std::tuple<std::uint32_t, std::uint64_t, std::uint64_t, std::uint32_t, bool>;

// Faults the warps hold, grouped by kernel, PC and exception; returns the
// SMs they ran on.
std::set<std::pair<std::uint32_t, std::uint32_t>> add_warp_faults(Explanation& out, const CoreDump& dump,
                                                                  Images& images, const ExplainOptions& o) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> sms;
  const std::size_t base = out.faults.size();
  std::map<GroupKey, std::size_t> index;  // group -> fault
  std::vector<std::set<Dim3>> blocks;     // per fault
  for (const Warp& w : dump.warps) {
    const WarpFault wf = warp_fault(w, dump, images);
    if (wf.lane == nullptr || (wf.code == 0 && !wf.trapped)) continue;
    sms.insert({w.device, w.sm});
    const GroupKey key{w.device, w.grid, wf.lane->pc, wf.code, wf.trapped};
    auto it = index.find(key);
    if (it == index.end()) {
      Fault f;
      f.exception = wf.code;
      f.trapped = wf.trapped;
      f.description = wf.trapped ? "trap: the warp executed BPT.TRAP" : exception_name(wf.code);
      f.device = w.device;
      f.block = w.block;
      f.thread = wf.lane->thread;
      f.sm = w.sm;
      f.warp = w.warp;
      f.lane = wf.lane->lane;
      f.pc = wf.lane->pc;
      f.error_pc_valid = w.error_pc_valid;
      f.error_pc = w.error_pc;
      locate(f, dump, dump.grid(w.device, w.grid), images, o, wf.lane);
      it = index.emplace(key, out.faults.size()).first;
      out.faults.push_back(std::move(f));
      blocks.emplace_back();
    }
    out.faults[it->second].warps += 1;
    blocks[it->second].insert(w.block);
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) out.faults[base + i].blocks = blocks[i].size();
  return sms;
}

// Exceptions only the SM table holds (the faulting warp has left), on SMs
// where no warp explains them; grouped by exception and error PC.
void add_sm_faults(Explanation& out, const CoreDump& dump, Images& images, const ExplainOptions& o,
                   const std::set<std::pair<std::uint32_t, std::uint32_t>>& explained) {
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>, std::size_t> index;
  for (const SmFault& s : dump.sm_faults) {
    if (explained.count({s.device, s.sm}) != 0) continue;
    const auto key = std::make_tuple(s.device, s.exception, s.error_pc_valid ? s.error_pc : 0);
    auto it = index.find(key);
    if (it == index.end()) {
      Fault f;
      f.sm_level = true;
      f.exception = s.exception;
      f.description = exception_name(s.exception);
      f.device = s.device;
      f.sm = s.sm;
      f.error_pc_valid = s.error_pc_valid;
      f.error_pc = s.error_pc;
      f.pc = s.error_pc;
      const Grid* g = nullptr;
      for (const Warp& w : dump.warps)
        if (w.device == s.device && w.sm == s.sm) {
          f.block = w.block;  // a warp of the faulting block, still resident
          g = dump.grid(w.device, w.grid);
          break;
        }
      locate(f, dump, g, images, o, nullptr);
      it = index.emplace(key, out.faults.size()).first;
      out.faults.push_back(std::move(f));
    }
    out.faults[it->second].sms += 1;
  }
}

}  // namespace

namespace {

// With --binary: the kernel's code in the binary, for the image the GPU ran.
// Where the dump holds no code at the PC it gives the listing; where both hold
// it and they differ, the binary is not the one the process ran.
void compare_with_binaries(Fault& f, const ExplainOptions& o, std::vector<std::string>& notes) {
  if (o.binaries.empty() || f.kernel.empty() || !f.has_image || !f.function.empty()) return;
  const arch::Variant variant = f.image.back() == 'a'   ? arch::Variant::ArchSpecific
                                : f.image.back() == 'f' ? arch::Variant::FamilySpecific
                                                        : arch::Variant::Plain;
  const std::optional<BinaryCode> code = kernel_code(o.binaries, f.kernel, f.image_arch, variant);
  if (!code) return;
  const audit::Bytes text(code->text.data(), code->text.size());
  if (!f.pc_in_image) {
    const CodeSpan span{f.kernel, f.error_pc_valid ? f.error_pc - f.pc_offset : f.pc - f.pc_offset, text};
    f.sass = sass_around(span, f, o);
    f.sass_from_binary = !f.sass.empty();
    return;
  }
  for (const SassLine& l : f.sass)
    if (!text.has(l.offset, kInsnBytes) || text.u64(l.offset, "instruction") != l.lo ||
        text.u64(l.offset + 8, "instruction") != l.hi) {
      notes.push_back(code->where + " holds " + f.demangled + " for " + f.image + " with other code at +" +
                      Images::hex(l.offset) + " than the GPU ran: not the binary the process ran, or another build");
      return;
    }
}

}  // namespace

Explanation explain(const CoreDump& dump, const ExplainOptions& options) {
  Explanation out;
  out.devices = dump.devices;
  out.info = dump.info;
  Images images(dump, out.notes);
  const auto explained = add_warp_faults(out, dump, images, options);
  add_sm_faults(out, dump, images, options, explained);
  check_siblings(out, dump, options);
  for (Fault& f : out.faults) {
    compare_with_binaries(f, options, out.notes);
    const Device* d = dump.device(f.device);
    f.meaning = exception_meaning(f, d != nullptr ? d->capability() : 0);
  }
  return out;
}

}  // namespace fp8kit::coredump
