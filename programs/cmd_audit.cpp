// fp8kit audit: which image of each kernel a GPU would load from CUDA
// binaries, and whether it is a trap stub, an empty body or missing; each
// offender graded by the family rule (src/audit/grade.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "audit/audit.hpp"
#include "audit/walk.hpp"
#include "cli.hpp"
#include "devices.hpp"
#include "fp8kit/fp8kit.h"
#include "python_site.hpp"

namespace fp8kit::cli {
namespace {

struct AuditArgs {
  std::vector<std::string> files;
  std::vector<std::string> gpus;
  std::vector<std::string> python_packages;
  bool python = false;
  std::string kernel;
  bool json = false;
  bool all = false;
  bool notes = false;
  bool strict = false;
  unsigned threads = 0;
};

using Records = std::vector<const audit::KernelRecord*>;

std::string join(const std::vector<arch::Image>& images) {
  std::string s;
  for (const auto& im : images) s += (s.empty() ? "" : " ") + audit::image_name(im);
  return s;
}

// Offenders grouped by library, then kernel (first-seen order).
std::vector<std::pair<std::string, Records>> group(const audit::AuditReport& r, bool with_notes) {
  std::vector<std::pair<std::string, Records>> groups;
  std::map<std::string, std::size_t> at;
  for (const auto& o : r.offenders) {
    if (!with_notes && o.severity == audit::Severity::Note) continue;
    const std::string key = o.library + '\n' + o.kernel;
    auto it = at.find(key);
    if (it == at.end()) {
      it = at.emplace(key, groups.size()).first;
      groups.push_back({o.kernel, {}});
    }
    groups[it->second].second.push_back(&o);
  }
  return groups;
}

std::string describe(const audit::KernelRecord& o) {
  std::string s;
  switch (o.outcome) {
    case audit::Outcome::TrapStub:
      s = "TRAP STUB in " + audit::image_name(o.image);
      break;
    case audit::Outcome::Empty:
      s = "EMPTY BODY in " + audit::image_name(o.image);
      break;
    case audit::Outcome::Missing:
      s = o.has_image ? "MISSING from the loaded image " + audit::image_name(o.image) : "MISSING: no image loads";
      break;
    default:
      s = audit::outcome_name(o.outcome);
      break;
  }
  if (!o.real_on.empty()) s += "; real code in " + join(o.real_on);
  return std::string(audit::severity_name(o.severity)) + ": " + s + "\n              " + o.reason;
}

struct LibraryRow {
  std::size_t files = 0, containers = 0, cubins = 0, ptx = 0, kernels = 0;
  std::size_t by_severity[3] = {0, 0, 0};  // Severity order: note, warning, error
};

std::vector<std::pair<std::string, LibraryRow>> libraries(const audit::AuditReport& r) {
  std::vector<std::pair<std::string, LibraryRow>> rows;
  std::map<std::string, std::size_t> at;
  auto row = [&](const std::string& lib) -> LibraryRow& {
    auto it = at.emplace(lib, rows.size()).first;
    if (it->second == rows.size()) rows.push_back({lib, {}});
    return rows[it->second].second;
  };
  for (const auto& in : r.inputs) {
    LibraryRow& l = row(in.library);
    l.files += 1;
    l.containers += in.containers;
    l.cubins += in.cubins;
    l.ptx += in.ptx;
    l.kernels += in.kernels;
  }
  for (const auto& o : r.offenders) ++row(o.library).by_severity[static_cast<int>(o.severity)];
  return rows;
}

void print_inputs(const audit::AuditReport& r) {
  std::printf("fp8kit audit: %zu file%s read, %zu with CUDA code", r.files_read, r.files_read == 1 ? "" : "s",
              r.files_with_cuda);
  if (r.files_skipped) std::printf(" (%zu more skipped: not ELF, ar or fatbin)", r.files_skipped);
  std::printf("\n\n%-36s %6s %10s %7s %5s %8s %7s %8s %6s\n", "library", "files", "containers", "cubins", "PTX",
              "kernels", "errors", "warnings", "notes");
  for (const auto& [name, l] : libraries(r))
    std::printf("%-36s %6zu %10zu %7zu %5zu %8zu %7zu %8zu %6zu\n", name.c_str(), l.files, l.containers, l.cubins,
                l.ptx, l.kernels, l.by_severity[2], l.by_severity[1], l.by_severity[0]);
}

void print_gpus(const audit::AuditReport& r) {
  std::printf("\n%-6s %8s %8s %6s %6s %6s %8s %10s %8s %9s\n", "GPU", "kernels", "native", "jit", "trap", "empty",
              "missing", "not-built", "tc-fp8", "tc-16bit");
  for (const auto& g : r.per_gpu)
    std::printf("%-6s %8zu %8zu %6zu %6zu %6zu %8zu %10zu %8zu %9zu\n", audit::capability_name(g.gpu).c_str(),
                g.kernels, g.sass, g.jit, g.trap, g.empty, g.missing, g.not_built, g.tc_native, g.tc_emulated);
}

void print_offenders(const audit::AuditReport& r, bool with_notes) {
  const auto groups = group(r, with_notes);
  if (groups.empty()) return;
  std::printf("\nOffenders, by library and kernel%s:\n", with_notes ? "" : " (errors and warnings; --notes adds notes)");
  std::string library;
  for (const auto& [kernel, recs] : groups) {
    if (recs.front()->library != library) std::printf(" %s\n", recs.front()->library.c_str());
    library = recs.front()->library;
    const std::string& pretty = recs.front()->demangled;
    if (pretty != kernel)
      std::printf("  %s\n    [%s]\n", pretty.c_str(), kernel.c_str());
    else
      std::printf("  %s\n", kernel.c_str());
    // One line per GPU and verdict; a kernel built into many modules (one per
    // translation unit) says where the first is and how many more.
    std::vector<std::pair<std::string, std::pair<const audit::KernelRecord*, std::size_t>>> lines;
    for (const auto* o : recs) {
      const std::string line = audit::capability_name(o->gpu) + "|" + describe(*o);
      auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == line; });
      if (it == lines.end())
        lines.push_back({line, {o, 1}});
      else
        ++it->second.second;
    }
    for (const auto& [line, first] : lines) {
      const audit::KernelRecord& o = *first.first;
      std::printf("      %-5s %s\n", audit::capability_name(o.gpu).c_str(), describe(o).c_str());
      std::printf("              in %s", o.where.c_str());
      if (first.second > 1) std::printf(" and %zu more modules", first.second - 1);
      std::printf("\n");
    }
  }
}

void print_text(const audit::AuditReport& r, const AuditArgs& a) {
  print_inputs(r);
  print_gpus(r);
  print_offenders(r, a.notes || a.all);
  if (!r.records.empty()) {
    std::printf("\nEvery kernel:\n");
    for (const auto& k : r.records)
      std::printf("  %-5s %-10s %-12s %-9s %-16s %s\n", audit::capability_name(k.gpu).c_str(),
                  audit::outcome_name(k.outcome), k.has_image ? audit::image_name(k.image).c_str() : "-",
                  audit::tensor_cores_name(k.tensor_cores),
                  k.tensor_ops ? audit::tensor_ops_names(k.tensor_ops).c_str() : "-", k.demangled.c_str());
  }
  const std::size_t errors = r.count(audit::Severity::Error), warnings = r.count(audit::Severity::Warning),
                    notes = r.count(audit::Severity::Note);
  std::size_t trap = 0, missing = 0, empty = 0;
  for (const auto& o : r.offenders) {
    trap += o.outcome == audit::Outcome::TrapStub;
    missing += o.outcome == audit::Outcome::Missing;
    empty += o.outcome == audit::Outcome::Empty;
  }
  std::printf("\n%s: %zu error%s, %zu warning%s%s, %zu note%s (%zu trap stubs, %zu missing images, %zu empty bodies "
              "with real siblings) over %zu GPU%s\n",
              r.has_findings(a.strict) ? "FAIL" : "ok", errors, errors == 1 ? "" : "s", warnings,
              warnings == 1 ? "" : "s", a.strict ? " (--strict: they count)" : "", notes, notes == 1 ? "" : "s", trap,
              missing, empty, r.gpus.size(), r.gpus.size() == 1 ? "" : "s");
}

nlohmann::ordered_json record_json(const audit::KernelRecord& k) {
  nlohmann::ordered_json j{
      {"gpu", audit::capability_name(k.gpu)},
      {"outcome", audit::outcome_name(k.outcome)},
      {"image", k.has_image ? nlohmann::ordered_json(audit::image_name(k.image)) : nlohmann::ordered_json(nullptr)},
      {"tensor_cores", audit::tensor_cores_name(k.tensor_cores)},
      {"tensor_ops", nlohmann::ordered_json::array()},
      {"where", k.where},
      {"library", k.library}};
  std::string ops = audit::tensor_ops_names(k.tensor_ops);
  for (std::size_t p = 0; !ops.empty();) {
    const std::size_t c = ops.find(',', p);
    j["tensor_ops"].push_back(ops.substr(p, c == std::string::npos ? std::string::npos : c - p));
    if (c == std::string::npos) break;
    p = c + 1;
  }
  j["real_on"] = nlohmann::ordered_json::array();
  for (const auto& im : k.real_on) j["real_on"].push_back(audit::image_name(im));
  return j;
}

nlohmann::ordered_json summary_json(const audit::AuditReport& r) {
  nlohmann::ordered_json s = nlohmann::ordered_json::array();
  for (const auto& g : r.per_gpu)
    s.push_back({{"gpu", audit::capability_name(g.gpu)},
                 {"kernels", g.kernels},
                 {"native", g.sass},
                 {"jit", g.jit},
                 {"trap", g.trap},
                 {"empty", g.empty},
                 {"missing", g.missing},
                 {"not_built", g.not_built},
                 {"tensor_cores", {{"native", g.tc_native}, {"emulated", g.tc_emulated}}}});
  return s;
}

nlohmann::ordered_json inputs_json(const audit::AuditReport& r) {
  nlohmann::ordered_json j{{"files",
                            {{"read", r.files_read}, {"with_cuda", r.files_with_cuda}, {"skipped", r.files_skipped}}},
                           {"libraries", nlohmann::ordered_json::array()},
                           {"inputs", nlohmann::ordered_json::array()}};
  for (const auto& [name, l] : libraries(r))
    j["libraries"].push_back({{"library", name},
                              {"files", l.files},
                              {"containers", l.containers},
                              {"cubins", l.cubins},
                              {"ptx", l.ptx},
                              {"kernels", l.kernels},
                              {"errors", l.by_severity[2]},
                              {"warnings", l.by_severity[1]},
                              {"notes", l.by_severity[0]}});
  for (const auto& in : r.inputs)
    j["inputs"].push_back({{"path", in.path},
                           {"library", in.library},
                           {"containers", in.containers},
                           {"cubins", in.cubins},
                           {"ptx", in.ptx},
                           {"kernels", in.kernels}});
  return j;
}

void print_json(const audit::AuditReport& r, const AuditArgs& a, int exit_code) {
  nlohmann::ordered_json j;
  j["tool"] = "fp8kit audit";
  j["version"] = std::to_string(FP8KIT_VERSION_MAJOR) + "." + std::to_string(FP8KIT_VERSION_MINOR) + "." +
                 std::to_string(FP8KIT_VERSION_PATCH);
  j["gpus_requested"] = r.gpus_requested;
  j["strict"] = a.strict;
  j["gpus"] = nlohmann::ordered_json::array();
  for (int g : r.gpus) j["gpus"].push_back(audit::capability_name(g));
  j.update(inputs_json(r));
  j["summary"] = summary_json(r);
  j["counts"] = {{"error", r.count(audit::Severity::Error)},
                 {"warning", r.count(audit::Severity::Warning)},
                 {"note", r.count(audit::Severity::Note)}};
  j["offenders"] = nlohmann::ordered_json::array();
  for (const auto& [kernel, recs] : group(r, true)) {
    nlohmann::ordered_json o{{"kernel", kernel},
                             {"demangled", recs.front()->demangled},
                             {"library", recs.front()->library},
                             {"gpus", nlohmann::ordered_json::array()}};
    for (const auto* k : recs) {
      nlohmann::ordered_json g = record_json(*k);
      g["severity"] = audit::severity_name(k->severity);
      g["reason"] = k->reason;
      o["gpus"].push_back(g);
    }
    j["offenders"].push_back(o);
  }
  if (!r.records.empty()) {
    j["records"] = nlohmann::ordered_json::array();
    for (const auto& k : r.records) {
      nlohmann::ordered_json rec = record_json(k);
      rec["kernel"] = k.kernel;
      rec["demangled"] = k.demangled;
      j["records"].push_back(rec);
    }
  }
  j["errors"] = nlohmann::ordered_json::array();
  for (const auto& e : r.errors) j["errors"].push_back({{"where", e.where}, {"message", e.message}});
  j["unread"] = nlohmann::ordered_json::array();
  for (const auto& e : r.unread) j["unread"].push_back({{"where", e.where}, {"message", e.message}});
  j["result"] = exit_code == kExitOk ? "clean" : exit_code == kExitFindings ? "findings" : "error";
  j["exit_code"] = exit_code;
  std::printf("%s\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
}

// --gpu values into capabilities; "local" is the GPUs of this machine.
int resolve_gpus(const std::vector<std::string>& names, std::vector<int>* caps) {
  for (const std::string& g : names) {
    if (g == "local") {
      std::string why;
      const std::vector<DeviceInfo> gpus = list_gpus(&why);
      if (gpus.empty()) {
        std::fprintf(stderr, "fp8kit audit: --gpu local: no GPU on this machine (%s)\n", why.c_str());
        return kExitUnsupported;
      }
      for (const DeviceInfo& d : gpus) caps->push_back(d.cap);
      continue;
    }
    int cap = 0;
    std::string why;
    if (!audit::parse_gpu(g, &cap, &why)) {
      std::fprintf(stderr, "fp8kit audit: --gpu %s\n", why.c_str());
      return kExitBadInput;
    }
    caps->push_back(cap);
  }
  std::sort(caps->begin(), caps->end());
  caps->erase(std::unique(caps->begin(), caps->end()), caps->end());
  return kExitOk;
}

int run_audit(const AuditArgs& a) {
  audit::AuditOptions options;
  if (const int code = resolve_gpus(a.gpus, &options.gpus); code != kExitOk) return code;
  std::vector<audit::WalkRoot> roots;
  for (const std::string& f : a.files) roots.push_back({f, ""});
  if (a.python) {
    std::string why;
    std::vector<std::string> packages;
    for (const std::string& p : a.python_packages)
      if (!p.empty()) packages.push_back(p);
    if (!python_roots(packages, &roots, &why)) {
      std::fprintf(stderr, "fp8kit audit: --python: %s\n", why.c_str());
      return kExitBadInput;
    }
  }
  if (roots.empty()) {
    std::fprintf(stderr, "fp8kit audit: nothing to audit (name files or directories, or --python)\n");
    return kExitBadInput;
  }
  options.kernel_regex = a.kernel;
  options.keep_records = a.all;
  options.threads = a.threads;
  audit::Expanded inputs = audit::expand_inputs(roots);
  audit::AuditReport report = audit::audit_inputs(inputs.files, inputs.skipped, options);
  report.errors.insert(report.errors.begin(), inputs.errors.begin(), inputs.errors.end());
  for (const auto& e : report.errors)
    std::fprintf(stderr, "fp8kit audit: %s: %s\n", e.where.c_str(), e.message.c_str());
  for (const auto& e : report.unread)
    std::fprintf(stderr, "fp8kit audit: skipped %s: %s\n", e.where.c_str(), e.message.c_str());
  const int code = !report.errors.empty()          ? kExitBadInput
                   : report.has_findings(a.strict) ? kExitFindings
                                                   : kExitOk;
  if (a.json)
    print_json(report, a, code);
  else
    print_text(report, a);
  return code;
}

}  // namespace

void register_audit(CLI::App& app, Action& action) {
  auto args = std::make_shared<AuditArgs>();
  auto* sub =
      app.add_subcommand("audit", "Find trap stubs, empty bodies and missing images in CUDA binaries (no GPU needed)");
  sub->add_option("files", args->files,
                  "ELF executables, shared libraries, objects, archives, .fatbin, .cubin, or directories (read "
                  "recursively)");
  auto* python = sub->add_option("--python", args->python_packages,
                                 "audit the running Python's site-packages, or only the named packages (torch, "
                                 "vllm, flashinfer, nvidia, ...)");
  python->expected(0, -1);
  sub->add_option("--gpu", args->gpus,
                  "GPU capability to model (sm_121, 12.1 or 121; 'local': the GPUs of this machine; repeatable). "
                  "Default: every released capability, 7.5 ... 12.1")
      ->allow_extra_args(false);  // one value per --gpu: a file after it stays a file
  sub->add_option("--kernel", args->kernel, "only kernels whose mangled or demangled name matches this regex");
  sub->add_flag("--json", args->json, "machine-readable report (docs/audit.md gives the schema)");
  sub->add_flag("--all", args->all, "list every kernel on every GPU, not only the offenders");
  sub->add_flag("--notes", args->notes, "list notes too (arch-specific kernels stubbed by design)");
  sub->add_flag("--strict", args->strict, "warnings count as findings (exit 1)");
  sub->add_option("--threads", args->threads, "worker threads (default: one per CPU)");
  sub->callback([args, python, &action] {
    args->python = python->count() > 0;
    action = [args] { return run_audit(*args); };
  });
}

}  // namespace fp8kit::cli
