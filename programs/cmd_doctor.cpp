// fp8kit doctor: the main job. `info`, then on each GPU a checked GEMM per
// scale mode through the path AUTO picks and through every other path that
// can run there, and a checked NVFP4 GEMM (W4A4, W4A16) per NVFP4 path;
// without a GPU, an audit of every kernel this very binary carries,
// attributed to the library's kernel families (no trap stub, empty body or
// missing image, no kernel without a family, no family without one).
#include <CLI/CLI.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <cstring>
#include <string>
#include <memory>

#include "api/kernel_catalog.hpp"
#include "audit/audit.hpp"
#include "audit/families.hpp"
#include "cli.hpp"
#include "cmd_info.hpp"
#include "core/enums.hpp"
#include "devices.hpp"
#include "gemm_run.hpp"
#include "tools/scale_configs.hpp"

namespace fp8kit::cli {
namespace {

// A GPU fault in another program surfaces at some later, innocent call;
// fp8kit run names the kernel that really faulted (docs/explain.md).
constexpr const char* kRunHint =
    "hint: if a CUDA program dies with \"unspecified launch failure\" or \"illegal address\", "
    "`fp8kit run -- PROGRAM ARGS...` names the kernel that faulted and why";

// Ragged in M and N, K two 128-blocks and a 16-deep tail: every edge case of
// the tiling in one small problem.
constexpr int64_t kM = 333, kN = 1000, kK = 272;
constexpr int64_t kNvfp4K = 288;
constexpr int64_t kTimedSize = 4096;
constexpr int kTimedIters = 20;

// Whether this build has GEMM kernels of the path named `name`:
// fp8kit_build_targets lists "name: its targets;" for every GEMM path.
bool builds_gemm_path(const char* name) {
  const std::string all = fp8kit_build_targets();
  const std::string key = std::string(name) + ":";
  const size_t at = all.find(key);
  if (at == std::string::npos) return false;
  const size_t from = at + key.size(), end = all.find(';', from);
  return all.substr(from, end == std::string::npos ? std::string::npos : end - from).find_first_not_of(' ') !=
         std::string::npos;
}

nlohmann::json check_gpus(const std::vector<DeviceInfo>& gpus) {
  nlohmann::json out = nlohmann::json::array();
  for (const DeviceInfo& g : gpus) {
    cudaSetDevice(g.device);
    nlohmann::json runs = nlohmann::json::array();
    for (const tools::ScaleConfig& config : tools::kReportedConfigs) {
      for (const PathName& named : kPathNames) {
        const fp8kit_path p = named.path;
        if (p != FP8KIT_PATH_AUTO && !builds_gemm_path(named.name)) continue;
        GemmRun run;
        run.spec = ref::GemmCase{kM, kN, kK};
        run.spec.a_mode = config.a;
        run.spec.b_mode = config.b;
        run.spec.bias = true;
        run.spec.bias_type = FP8KIT_DTYPE_BF16;
        run.path = p;
        nlohmann::json r = run_gemm(run);
        r["scales"] = config.name;
        r["forced"] = p != FP8KIT_PATH_AUTO;
        // A forced path the GPU cannot run is information, not a failure.
        if (p != FP8KIT_PATH_AUTO && r["status"] == "unsupported") r["ok"] = nullptr;
        runs.push_back(r);
      }
    }
    // NVFP4, W4A4 and W4A16, through AUTO and each NVFP4 path; K a multiple
    // of the format's 32 with a half stage (K % 64 == 32).
    for (const fp8kit_dtype a : {FP8KIT_DTYPE_NVFP4, FP8KIT_DTYPE_BF16}) {
      for (const fp8kit_path p : {FP8KIT_PATH_AUTO, FP8KIT_PATH_SM120_MMA, FP8KIT_PATH_SM75_HMMA}) {
        ref::Nvfp4Case c{kM, kN, kNvfp4K};
        c.a_type = a;
        c.bias = true;
        nlohmann::json r = run_nvfp4_gemm(Nvfp4Run{c, p, 0});
        r["scales"] = "nvfp4";
        r["forced"] = p != FP8KIT_PATH_AUTO;
        if (p != FP8KIT_PATH_AUTO && r["status"] == "unsupported") r["ok"] = nullptr;
        runs.push_back(r);
      }
    }
    GemmRun timed;
    timed.spec = ref::GemmCase{kTimedSize, kTimedSize, kTimedSize};
    timed.iters = kTimedIters;
    nlohmann::json t = run_gemm(timed);
    t["scales"] = "tensor";
    t["forced"] = false;
    runs.push_back(t);
    out.push_back({{"gpu", g.device}, {"runs", runs}});
  }
  return out;
}

// The library's kernel families (api/kernel_catalog.hpp) as the audit
// attributes them: "GEMM sm89_mma", matched by the kernels' names.
std::vector<audit::KernelFamily> shipped_families() {
  std::vector<audit::KernelFamily> out;
  for (const KernelFamilyEntry& e : kernel_catalog())
    if (!e.images->empty())
      out.push_back({std::string(e.kind) + " " + e.path, e.kernels.function, e.kernels.policy ? e.kernels.policy : ""});
  return out;
}

// Every kernel this binary carries, whatever its name, on every released GPU
// and an SM12x minor nobody has seen; each attributed to its family of the
// library's registry. Fails on a trap stub, an empty body or a missing image
// anywhere, on a kernel of fp8kit's namespace no family claims, and on a
// family with no kernel in the binary.
nlohmann::json self_audit() {
  constexpr int kUnseenSm12x = 123;  // the family image must load on it
  audit::AuditOptions opt;
  opt.gpus = audit::default_gpus();
  opt.gpus.push_back(kUnseenSm12x);
  opt.keep_records = true;
  const audit::AuditReport rep = audit::audit_files({"/proc/self/exe"}, opt);
  const audit::FamilyAudit fam = audit::attribute_families(rep, shipped_families(), "fp8kit::");
  nlohmann::json j{{"gpus", nlohmann::json::array()},      {"families", nlohmann::json::array()},
                   {"offenders", nlohmann::json::array()}, {"errors", nlohmann::json::array()},
                   {"unattributed", fam.unattributed},     {"families_without_kernels", fam.empty}};
  for (const auto& s : rep.per_gpu)
    j["gpus"].push_back({{"gpu", audit::capability_name(s.gpu)},
                         {"kernels", s.kernels},
                         {"sass", s.sass},
                         {"jit", s.jit},
                         {"trap", s.trap},
                         {"empty", s.empty},
                         {"missing", s.missing},
                         {"tensor_cores_native", s.tc_native},
                         {"tensor_cores_emulated", s.tc_emulated}});
  for (const audit::FamilyTally& t : fam.tallies)
    j["families"].push_back({{"family", t.family},
                             {"gpu", audit::capability_name(t.gpu)},
                             {"kernels", t.kernels},
                             {"sass", t.sass},
                             {"jit", t.jit},
                             {"trap", t.trap},
                             {"empty", t.empty},
                             {"missing", t.missing},
                             {"not_built", t.not_built},
                             {"tensor_ops", audit::tensor_ops_names(t.tensor_ops)}});
  for (const auto& o : rep.offenders)
    j["offenders"].push_back(
        {{"kernel", o.demangled}, {"gpu", audit::capability_name(o.gpu)}, {"outcome", audit::outcome_name(o.outcome)}});
  for (const auto& e : rep.errors) j["errors"].push_back(e.where + ": " + e.message);
  j["ok"] = fam.ok() && rep.offenders.empty() && rep.errors.empty();
  return j;
}

// One row per family: per GPU the kernels that load as SASS ("16"), as JIT
// ("16j"), none built there ("-"), or trap / empty / missing ones ("3T").
void print_families(const nlohmann::json& a) {
  std::vector<std::string> gpus;
  for (const auto& g : a["gpus"]) gpus.push_back(g["gpu"].get<std::string>());
  std::printf("\nSelf-audit, kernels per family of the library's registry and per GPU (S: SASS, j: JIT):\n");
  std::printf("  %-30s", "family");
  for (const auto& g : gpus) std::printf(" %5s", g.c_str());
  std::printf("  tensor ops\n");
  std::string current;
  std::map<std::string, std::string> cells;
  std::set<std::string> ops;  // the family's tensor-core instructions over its SASS images
  auto flush = [&] {
    if (current.empty()) return;
    std::printf("  %-30s", current.c_str());
    for (const auto& g : gpus) std::printf(" %5s", cells.count(g) ? cells[g].c_str() : "?");
    std::string names;
    for (const std::string& o : ops) names += (names.empty() ? "" : " ") + o;
    std::printf("  %s\n", names.c_str());
    cells.clear();
    ops.clear();
  };
  for (const auto& t : a["families"]) {
    const std::string family = t["family"].get<std::string>();
    if (family != current) flush(), current = family;
    const size_t bad = t["trap"].get<size_t>() + t["empty"].get<size_t>() + t["missing"].get<size_t>();
    const size_t sass = t["sass"].get<size_t>(), jit = t["jit"].get<size_t>();
    std::string cell = bad ? std::to_string(bad) + "!" : sass ? std::to_string(sass) : jit ? std::to_string(jit) + "j" : "-";
    cells[t["gpu"].get<std::string>()] = cell;
    std::istringstream words(t["tensor_ops"].get<std::string>());  // "HMMA,QMMA"
    for (std::string w; std::getline(words, w, ',');)
      if (!w.empty()) ops.insert(w);
  }
  flush();
  for (const auto& k : a["unattributed"]) std::printf("  NO FAMILY %s\n", k.get<std::string>().c_str());
  for (const auto& f : a["families_without_kernels"])
    std::printf("  NO KERNELS for family %s in this binary\n", f.get<std::string>().c_str());
  for (const auto& o : a["offenders"])
    std::printf("  OFFENDER %s on %s: %s\n", o["kernel"].get<std::string>().c_str(), o["gpu"].get<std::string>().c_str(),
                o["outcome"].get<std::string>().c_str());
  for (const auto& e : a["errors"]) std::printf("  ERROR %s\n", e.get<std::string>().c_str());
}

int execute(bool json) {
  nlohmann::json j;
  j["info"] = collect_info();
  std::string why;
  const std::vector<DeviceInfo> gpus = list_gpus(&why);
  bool ok = true;
  if (!gpus.empty()) {
    j["checks"] = check_gpus(gpus);
    for (const auto& g : j["checks"])
      for (const auto& r : g["runs"]) ok = ok && !(r["ok"].is_boolean() && !r["ok"].get<bool>());
  } else {
    j["self_audit"] = self_audit();
    ok = j["self_audit"]["ok"].get<bool>();
  }
  j["ok"] = ok;
  j["hint"] = kRunHint;
  if (json) {
    std::printf("%s\n", j.dump(2).c_str());
    return ok ? kExitOk : kExitFindings;
  }
  print_info(j["info"]);
  if (j.contains("checks")) {
    for (const auto& g : j["checks"]) {
      std::printf("\nGPU %d checks (random inputs vs float64 reference):\n", g["gpu"].get<int>());
      for (const auto& r : g["runs"]) {
        const std::string what = r["label"].get<std::string>() + (r["forced"].get<bool>() ? " forced " : " auto ");
        if (r["ok"].is_null()) {
          std::printf("  %-62s %-11s not available here\n", what.c_str(), r["path"].get<std::string>().c_str());
        } else if (!r.contains("checked")) {
          std::printf("  %-62s FAILED: %s\n", what.c_str(), r["message"].get<std::string>().c_str());
        } else {
          std::printf("  %-62s %-11s %s (worst error %.2f of bound)", what.c_str(), r["path"].get<std::string>().c_str(),
                      r["ok"].get<bool>() ? "ok" : "WRONG", r["worst_error_over_bound"].get<double>());
          if (r.contains("median_us"))
            std::printf(", %.1f us, %.0f TFLOP/s", r["median_us"].get<double>(), r["tflops"].get<double>());
          std::printf("\n");
        }
      }
    }
  } else {
    print_families(j["self_audit"]);
  }
  std::printf("\n%s\n", ok ? "doctor: all checks passed" : "doctor: PROBLEMS FOUND (see above)");
  std::printf("%s\n", kRunHint);
  return ok ? kExitOk : kExitFindings;
}

}  // namespace

void register_doctor(CLI::App& app, Action& action) {
  auto json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("doctor", "info, then a checked GEMM per scale mode (or, without a GPU, a self-audit)");
  sub->add_flag("--json", *json, "machine-readable output");
  sub->callback([&action, json] { action = [json] { return execute(*json); }; });
}

}  // namespace fp8kit::cli
