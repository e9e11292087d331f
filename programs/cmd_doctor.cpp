// fp8kit doctor: the main job. `info`, then on each GPU a checked GEMM per
// scale mode through the path AUTO picks and through every other path that
// can run there, and a checked NVFP4 GEMM (W4A4, W4A16) per NVFP4 path; without a GPU, an audit of the kernels this very binary
// carries (every FP8 and NVFP4 GEMM image real code, none a trap stub or
// missing; the NVFP4 SM12x kernels' sm_120f image, with OMMA.SF, is what
// 12.0, 12.1 and 12.3 load).
#include <CLI/CLI.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <memory>

#include "audit/audit.hpp"
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
const char* const kSelfKernels = "fp8_gemm|nvfp4_gemm|nvfp4_grouped_gemm";

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
        nlohmann::json r = run_nvfp4_gemm(c, p);
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

nlohmann::json self_audit() {
  audit::AuditOptions opt;
  opt.gpus = audit::default_gpus();
  opt.gpus.push_back(123);  // an unknown SM12x minor: must still load the family's image
  opt.kernel_regex = kSelfKernels;
  const audit::AuditReport rep = audit::audit_files({"/proc/self/exe"}, opt);
  nlohmann::json j{{"gpus", nlohmann::json::array()}, {"offenders", nlohmann::json::array()},
                   {"errors", nlohmann::json::array()}};
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
  for (const auto& o : rep.offenders)
    j["offenders"].push_back(
        {{"kernel", o.demangled}, {"gpu", audit::capability_name(o.gpu)}, {"outcome", audit::outcome_name(o.outcome)}});
  for (const auto& e : rep.errors) j["errors"].push_back(e.where + ": " + e.message);
  j["ok"] = !rep.has_findings() && rep.errors.empty() && !rep.per_gpu.empty() && rep.per_gpu.front().kernels > 0;
  return j;
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
    const auto& a = j["self_audit"];
    std::printf("\nSelf-audit of this binary's FP8 and NVFP4 GEMM kernels, per GPU (image the driver would load):\n");
    std::printf("  %-6s %8s %6s %5s %5s %6s %8s %7s %9s\n", "gpu", "kernels", "sass", "jit", "trap", "empty", "missing",
                "native", "emulated");
    for (const auto& g : a["gpus"])
      std::printf("  %-6s %8zu %6zu %5zu %5zu %6zu %8zu %7zu %9zu\n", g["gpu"].get<std::string>().c_str(),
                  g["kernels"].get<size_t>(), g["sass"].get<size_t>(), g["jit"].get<size_t>(), g["trap"].get<size_t>(),
                  g["empty"].get<size_t>(), g["missing"].get<size_t>(), g["tensor_cores_native"].get<size_t>(),
                  g["tensor_cores_emulated"].get<size_t>());
    for (const auto& o : a["offenders"])
      std::printf("  OFFENDER %s on %s: %s\n", o["kernel"].get<std::string>().c_str(),
                  o["gpu"].get<std::string>().c_str(), o["outcome"].get<std::string>().c_str());
    for (const auto& e : a["errors"]) std::printf("  ERROR %s\n", e.get<std::string>().c_str());
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
