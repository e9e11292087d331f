// fp8kit audit: which image of each kernel a GPU would load from a CUDA
// binary, and whether it is a trap stub, an empty body or missing.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "audit/audit.hpp"
#include "cli.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit::cli {
namespace {

struct AuditArgs {
  std::vector<std::string> files;
  std::vector<std::string> gpus;
  std::string kernel;
  bool json = false;
  bool all = false;
  unsigned threads = 0;
};

std::string join(const std::vector<arch::Image>& images) {
  std::string s;
  for (const auto& im : images) s += (s.empty() ? "" : " ") + audit::image_name(im);
  return s;
}

// Offenders grouped by kernel (first-seen order), then by GPU.
std::vector<std::pair<std::string, std::vector<const audit::KernelRecord*>>> group(const audit::AuditReport& r) {
  std::vector<std::pair<std::string, std::vector<const audit::KernelRecord*>>> groups;
  std::map<std::string, std::size_t> at;
  for (const auto& o : r.offenders) {
    auto it = at.find(o.kernel);
    if (it == at.end()) {
      it = at.emplace(o.kernel, groups.size()).first;
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
  if (o.outcome == audit::Outcome::TrapStub && !o.real_on.empty()) s += " (equality-guard signature)";
  return s;
}

void print_text(const audit::AuditReport& r) {
  std::size_t containers = 0, cubins = 0, ptx = 0, kernels = 0;
  for (const auto& in : r.inputs) {
    containers += in.containers;
    cubins += in.cubins;
    ptx += in.ptx;
    kernels += in.kernels;
  }
  std::printf("fp8kit audit: %zu input%s, %zu fatbin containers, %zu cubins, %zu PTX, %zu kernels\n", r.inputs.size(),
              r.inputs.size() == 1 ? "" : "s", containers, cubins, ptx, kernels);
  if (r.inputs.size() > 1)
    for (const auto& in : r.inputs)
      std::printf("  %s: %zu containers, %zu cubins, %zu PTX, %zu kernels\n", in.path.c_str(), in.containers, in.cubins,
                  in.ptx, in.kernels);
  std::printf("\n%-6s %8s %8s %6s %6s %6s %8s %10s %8s %9s\n", "GPU", "kernels", "native", "jit", "trap", "empty",
              "missing", "not-built", "tc-fp8", "tc-16bit");
  for (const auto& g : r.per_gpu)
    std::printf("%-6s %8zu %8zu %6zu %6zu %6zu %8zu %10zu %8zu %9zu\n", audit::capability_name(g.gpu).c_str(),
                g.kernels, g.sass, g.jit, g.trap, g.empty, g.missing, g.not_built, g.tc_native, g.tc_emulated);
  const auto groups = group(r);
  if (!groups.empty()) {
    std::printf("\nOffenders, by kernel:\n");
    for (const auto& [kernel, recs] : groups) {
      const std::string& pretty = recs.front()->demangled;
      if (pretty != kernel)
        std::printf("  %s\n    [%s]\n", pretty.c_str(), kernel.c_str());
      else
        std::printf("  %s\n", kernel.c_str());
      std::string where;
      for (const auto* o : recs) {
        if (o->where != where) std::printf("    in %s\n", o->where.c_str());
        where = o->where;
        std::printf("      %-5s %s\n", audit::capability_name(o->gpu).c_str(), describe(*o).c_str());
      }
    }
  }
  if (!r.records.empty()) {
    std::printf("\nEvery kernel:\n");
    for (const auto& k : r.records)
      std::printf("  %-5s %-10s %-12s %-9s %-16s %s\n", audit::capability_name(k.gpu).c_str(),
                  audit::outcome_name(k.outcome), k.has_image ? audit::image_name(k.image).c_str() : "-",
                  audit::tensor_cores_name(k.tensor_cores),
                  k.tensor_ops ? audit::tensor_ops_names(k.tensor_ops).c_str() : "-", k.demangled.c_str());
  }
  std::size_t trap = 0, missing = 0, empty = 0;
  for (const auto& g : r.per_gpu) {
    trap += g.trap;
    missing += g.missing;
  }
  for (const auto& o : r.offenders) empty += o.outcome == audit::Outcome::Empty;
  std::printf("\n%s: %zu trap stub%s, %zu missing image%s%s, %zu silent empty bod%s (warnings) over %zu GPU%s\n",
              r.has_findings() ? "FAIL" : "ok", trap, trap == 1 ? "" : "s", missing, missing == 1 ? "" : "s",
              missing && !r.gpus_requested ? " (survey list: warnings; name GPUs with --gpu to fail on them)" : "",
              empty, empty == 1 ? "y" : "ies", r.gpus.size(), r.gpus.size() == 1 ? "" : "s");
}

nlohmann::ordered_json record_json(const audit::KernelRecord& k) {
  nlohmann::ordered_json j{
      {"gpu", audit::capability_name(k.gpu)},
      {"outcome", audit::outcome_name(k.outcome)},
      {"image", k.has_image ? nlohmann::ordered_json(audit::image_name(k.image)) : nlohmann::ordered_json(nullptr)},
      {"tensor_cores", audit::tensor_cores_name(k.tensor_cores)},
      {"tensor_ops", nlohmann::ordered_json::array()},
      {"where", k.where}};
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

void print_json(const audit::AuditReport& r, int exit_code) {
  nlohmann::ordered_json j;
  j["tool"] = "fp8kit audit";
  j["version"] = std::to_string(FP8KIT_VERSION_MAJOR) + "." + std::to_string(FP8KIT_VERSION_MINOR) + "." +
                 std::to_string(FP8KIT_VERSION_PATCH);
  j["gpus_requested"] = r.gpus_requested;
  j["gpus"] = nlohmann::ordered_json::array();
  for (int g : r.gpus) j["gpus"].push_back(audit::capability_name(g));
  j["inputs"] = nlohmann::ordered_json::array();
  for (const auto& in : r.inputs)
    j["inputs"].push_back({{"path", in.path},
                           {"containers", in.containers},
                           {"cubins", in.cubins},
                           {"ptx", in.ptx},
                           {"kernels", in.kernels}});
  j["summary"] = nlohmann::ordered_json::array();
  for (const auto& g : r.per_gpu)
    j["summary"].push_back({{"gpu", audit::capability_name(g.gpu)},
                            {"kernels", g.kernels},
                            {"native", g.sass},
                            {"jit", g.jit},
                            {"trap", g.trap},
                            {"empty", g.empty},
                            {"missing", g.missing},
                            {"not_built", g.not_built},
                            {"tensor_cores", {{"native", g.tc_native}, {"emulated", g.tc_emulated}}}});
  j["offenders"] = nlohmann::ordered_json::array();
  for (const auto& [kernel, recs] : group(r)) {
    nlohmann::ordered_json o{
        {"kernel", kernel}, {"demangled", recs.front()->demangled}, {"gpus", nlohmann::ordered_json::array()}};
    for (const auto* k : recs) o["gpus"].push_back(record_json(*k));
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
  j["result"] = exit_code == kExitOk ? "clean" : exit_code == kExitFindings ? "findings" : "error";
  j["exit_code"] = exit_code;
  std::printf("%s\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
}

int run_audit(const AuditArgs& a) {
  audit::AuditOptions options;
  for (const std::string& g : a.gpus) {
    int cap = 0;
    std::string why;
    if (!audit::parse_gpu(g, &cap, &why)) {
      std::fprintf(stderr, "fp8kit audit: --gpu %s\n", why.c_str());
      return kExitBadInput;
    }
    options.gpus.push_back(cap);
  }
  options.kernel_regex = a.kernel;
  options.keep_records = a.all;
  options.threads = a.threads;
  const audit::AuditReport report = audit::audit_files(a.files, options);
  for (const auto& e : report.errors)
    std::fprintf(stderr, "fp8kit audit: %s: %s\n", e.where.c_str(), e.message.c_str());
  const int code = !report.errors.empty() ? kExitBadInput : report.has_findings() ? kExitFindings : kExitOk;
  if (a.json)
    print_json(report, code);
  else
    print_text(report);
  return code;
}

}  // namespace

void register_audit(CLI::App& app, Action& action) {
  auto args = std::make_shared<AuditArgs>();
  auto* sub =
      app.add_subcommand("audit", "Find trap stubs, empty bodies and missing images in CUDA binaries (no GPU needed)");
  sub->add_option("files", args->files, "ELF executables, shared libraries, objects, archives, .fatbin, .cubin")
      ->required();
  sub->add_option("--gpu", args->gpus,
                  "GPU capability to model (sm_121, 12.1 or 121; repeatable). Default: every released "
                  "capability, 7.5 ... 12.1");
  sub->add_option("--kernel", args->kernel, "only kernels whose mangled or demangled name matches this regex");
  sub->add_flag("--json", args->json, "machine-readable report (docs/audit.md gives the schema)");
  sub->add_flag("--all", args->all, "list every kernel on every GPU, not only the offenders");
  sub->add_option("--threads", args->threads, "worker threads (default: one per CPU)");
  sub->callback([args, &action] { action = [args] { return run_audit(*args); }; });
}

}  // namespace fp8kit::cli
