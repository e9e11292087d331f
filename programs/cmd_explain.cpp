// fp8kit explain: names the kernel a GPU core dump caught faulting, and why
// (src/coredump/explain.hpp; docs/explain.md shows the output).
#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.hpp"
#include "coredump/explain.hpp"
#include "coredump/input.hpp"

namespace fp8kit::cli {
namespace {

using coredump::Fault;
using coredump::SiblingVerdict;

struct ExplainArgs {
  std::string core;
  std::vector<std::string> binaries;
  bool json = false;
};

std::string dim3(const coredump::Dim3& d) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
}

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

// "sm_90": as the dump names the device's SM type, else from its capability.
std::string sm_of(const coredump::Device& d) {
  return d.sm_type.empty() ? "sm_" + std::to_string(d.capability()) : d.sm_type;
}

const char* body_text(audit::Body b) {
  switch (b) {
    case audit::Body::TrapStub: return "a trap stub: it traps before any real work";
    case audit::Body::Empty: return "an empty body: it exits before any real work";
    case audit::Body::Real: break;
  }
  return "real code";
}

std::string diagnosis(const Fault& f) {
  if (f.sibling != SiblingVerdict::RealSibling) return {};
  std::string on;
  for (const std::string& s : f.real_on) on += (on.empty() ? "" : ", ") + s;
  return "the equality-guard signature: the " + f.image + " image this GPU ran is a " +
         (f.body == audit::Body::Empty ? "an empty body" : "trap stub") + " while " + on + " of the same module " +
         (f.same_family ? "(this GPU's own family) " : "(another family) ") +
         "has real code; the guard is an equality, the fix is a family range";
}

void print_fault(std::FILE* out, std::size_t n, const Fault& f) {
  std::fprintf(out, "\nfault %zu: %s\n", n, f.description.c_str());
  const std::string kernel = f.kernel.empty() ? "(unknown: the dump has no grid or image for it)" : f.demangled;
  std::fprintf(out, "  kernel     %s\n", kernel.c_str());
  if (!f.function.empty()) std::fprintf(out, "  in         %s (called from the kernel)\n", f.function.c_str());
  if (f.sm_level) {
    std::fprintf(out, "  launch     grid %s x block %s; recorded by %zu SM%s: the faulting warps had left\n",
                 dim3(f.grid_dim).c_str(), dim3(f.block_dim).c_str(), f.sms, f.sms == 1 ? "" : "s");
    std::fprintf(out, "  first      block %s (device %u, SM %u; the faulting thread is not in the dump)\n",
                 dim3(f.block).c_str(), f.device, f.sm);
  } else {
    std::fprintf(out, "  launch     grid %s x block %s; %zu warp%s of %zu block%s stopped here\n",
                 dim3(f.grid_dim).c_str(), dim3(f.block_dim).c_str(), f.warps, f.warps == 1 ? "" : "s", f.blocks,
                 f.blocks == 1 ? "" : "s");
    std::fprintf(out, "  first      block %s thread %s (device %u, SM %u, warp %u, lane %u)\n", dim3(f.block).c_str(),
                 dim3(f.thread).c_str(), f.device, f.sm, f.warp, f.lane);
  }
  std::fprintf(out, "  pc         %s", hex(f.pc).c_str());
  if (f.error_pc_valid && f.error_pc != f.pc) std::fprintf(out, "  (error pc %s)", hex(f.error_pc).c_str());
  if (f.pc_in_image)
    std::fprintf(out, "  = %s+%s", f.function.empty() ? "entry" : "callee", hex(f.pc_offset).c_str());
  std::fprintf(out, "\n");
  if (f.sass_from_binary) std::fprintf(out, "             (the dump holds no code here: the listing is the --binary image's)\n");
  for (const coredump::SassLine& l : f.sass)
    std::fprintf(out, "         %s +%04" PRIx64 "  %s\n", l.at_pc ? "=>" : l.at_error_pc ? "!>" : "  ", l.offset,
                 l.text().c_str());
  if (f.has_instruction)
    std::fprintf(out, "  insn       %s at %s+%s%s\n", f.instruction.c_str(), f.function.empty() ? "entry" : "callee",
                 hex(f.instruction_offset).c_str(), f.address_known ? (", address " + hex(f.address)).c_str() : "");
  if (!f.meaning.empty()) std::fprintf(out, "  meaning    %s\n", f.meaning.c_str());
  if (f.has_image)
    std::fprintf(out, "  image      %s, the image this GPU ran: %s\n", f.image.c_str(), body_text(f.body));
  if (f.sibling == SiblingVerdict::NoRealSibling)
    std::fprintf(out, "  siblings   no image of this kernel in %s has real code\n", f.sibling_where.c_str());
  if (f.sibling == SiblingVerdict::RealSibling) {
    std::string on;
    for (const std::string& s : f.real_on) on += (on.empty() ? "" : ", ") + s;
    std::fprintf(out, "  siblings   real code on %s (%s)\n", on.c_str(), f.sibling_where.c_str());
    std::fprintf(out, "  diagnosis  %s\n", diagnosis(f).c_str());
    std::fprintf(out, "  guard      likely %s\n", f.guard.c_str());
    std::fprintf(out, "  fix        %s\n", f.fix.c_str());
  }
}

void print_text(std::FILE* out, const std::string& core, const coredump::Explanation& ex) {
  std::fprintf(out, "fp8kit explain: %s\n", core.c_str());
  for (const coredump::Device& d : ex.devices)
    std::fprintf(out, "device %u: %s, %s (capability %u.%u), %u SMs\n", d.id,
                 d.name.empty() ? "its name is absent from the dump" : d.name.c_str(), sm_of(d).c_str(), d.sm_major,
                 d.sm_minor, d.num_sms);
  if (ex.info.has_meta)
    std::fprintf(out, "driver %u.%u, CUDA %u.%u\n", ex.info.driver_major, ex.info.driver_minor, ex.info.cuda_major,
                 ex.info.cuda_minor);
  if (ex.faults.empty()) std::fprintf(out, "no faulting warp in this dump\n");
  for (std::size_t i = 0; i < ex.faults.size(); ++i) print_fault(out, i + 1, ex.faults[i]);
  for (const std::string& n : ex.notes) std::fprintf(out, "note: %s\n", n.c_str());
}

const char* sibling_name(SiblingVerdict v) {
  switch (v) {
    case SiblingVerdict::RealSibling: return "real_sibling";
    case SiblingVerdict::NoRealSibling: return "no_real_sibling";
    case SiblingVerdict::LoadedIsReal: return "loaded_is_real";
    case SiblingVerdict::NotChecked: break;
  }
  return "not_checked";
}

nlohmann::ordered_json fault_json(const Fault& f) {
  nlohmann::ordered_json j;
  j["exception"] = f.description;
  j["exception_code"] = f.exception;
  j["trap"] = f.trapped;
  j["kernel"] = f.kernel;
  j["demangled"] = f.demangled;
  if (!f.function.empty()) j["function"] = f.function;
  j["grid_dim"] = f.grid_dim;
  j["block_dim"] = f.block_dim;
  j["block"] = f.block;
  j["thread"] = f.thread;
  j["device"] = f.device;
  j["sm"] = f.sm;
  j["warp"] = f.warp;
  j["lane"] = f.lane;
  j["warps"] = f.warps;
  j["blocks"] = f.blocks;
  j["sm_level"] = f.sm_level;
  j["sms"] = f.sms;
  j["pc"] = hex(f.pc);
  j["error_pc"] = f.error_pc_valid ? nlohmann::ordered_json(hex(f.error_pc)) : nlohmann::ordered_json();
  j["pc_offset"] = f.pc_in_image ? nlohmann::ordered_json(hex(f.pc_offset)) : nlohmann::ordered_json();
  j["sass"] = nlohmann::ordered_json::array();
  for (const coredump::SassLine& l : f.sass)
    j["sass"].push_back(
        {{"offset", hex(l.offset)}, {"text", l.text()}, {"at_pc", l.at_pc}, {"at_error_pc", l.at_error_pc}});
  j["sass_from_binary"] = f.sass_from_binary;
  j["instruction"] = f.has_instruction ? nlohmann::ordered_json(f.instruction) : nlohmann::ordered_json();
  j["instruction_offset"] = f.has_instruction ? nlohmann::ordered_json(hex(f.instruction_offset)) : nlohmann::ordered_json();
  j["address"] = f.address_known ? nlohmann::ordered_json(hex(f.address)) : nlohmann::ordered_json();
  j["meaning"] = f.meaning;
  j["image"] = f.has_image ? nlohmann::ordered_json(f.image) : nlohmann::ordered_json();
  j["body"] = audit::body_name(f.body);
  j["sibling"] = sibling_name(f.sibling);
  j["real_on"] = f.real_on;
  j["same_family"] = f.same_family;
  j["diagnosis"] = diagnosis(f);
  j["guard"] = f.guard;
  j["fix"] = f.fix;
  return j;
}

void print_json(std::FILE* out, const std::string& core, const coredump::Explanation& ex, int code) {
  nlohmann::ordered_json j;
  j["tool"] = "fp8kit explain";
  j["core"] = core;
  j["devices"] = nlohmann::ordered_json::array();
  for (const coredump::Device& d : ex.devices)
    j["devices"].push_back({{"id", d.id},
                            {"name", d.name.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(d.name)},
                            {"sm", sm_of(d)},
                            {"capability", d.capability()}});
  j["faults"] = nlohmann::ordered_json::array();
  for (const Fault& f : ex.faults) j["faults"].push_back(fault_json(f));
  j["notes"] = ex.notes;
  j["exit_code"] = code;
  std::fprintf(out, "%s\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
}

}  // namespace

int explain_core(const std::string& core, const std::vector<std::string>& binaries, bool json, std::FILE* out) {
  coredump::Explanation ex;
  try {
    const coredump::DumpFile file(core);
    const coredump::CoreDump dump = coredump::parse_core_dump(file.bytes());
    coredump::ExplainOptions o;
    o.binaries = binaries;
    ex = coredump::explain(dump, o);
  } catch (const audit::FormatError& e) {
    std::fprintf(stderr, "fp8kit explain: %s: not a readable GPU core dump: %s\n", core.c_str(), e.what());
    return kExitBadInput;
  }
  const int code = ex.faults.empty() ? kExitOk : kExitFindings;
  if (json)
    print_json(out, core, ex, code);
  else
    print_text(out, core, ex);
  return code;
}

void register_explain(CLI::App& app, Action& action) {
  auto args = std::make_shared<ExplainArgs>();
  auto* sub = app.add_subcommand("explain", "Name the kernel a GPU core dump caught faulting, and why");
  sub->add_option("core", args->core, "GPU core dump (as the driver wrote it, or .zst)")->required();
  sub->add_option("--binary", args->binaries,
                  "host binary holding the kernels (executable, .so, ...): shows sibling images with real code");
  sub->add_flag("--json", args->json, "machine-readable diagnosis (docs/explain.md gives the schema)");
  sub->callback([args, &action] {
    action = [args] { return explain_core(args->core, args->binaries, args->json, stdout); };
  });
}

}  // namespace fp8kit::cli
