// fp8kit gemm: one GEMM of a given shape and configuration on random data,
// checked against the float64 reference, with its time. B in e4m3 / e5m2 is
// an FP8 GEMM (fp8kit.h); B in nvfp4 an NVFP4 one (nvfp4.h), A nvfp4 (W4A4)
// or bf16 / f16 (W4A16), the scales those of the format.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <memory>

#include "cli.hpp"
#include "gemm_run.hpp"
#include "tools/path_names.hpp"
#include "tools/scale_configs.hpp"

namespace fp8kit::cli {
namespace {

struct Options {
  int64_t m = 4096, n = 4096, k = 4096;
  std::string a = "e4m3", b = "e4m3", out = "bf16", scales = "tensor", bias = "none", path = "auto";
  std::string accumulate = "promoted", nvfp4_scales = "swizzled";
  int iters = 20;
  bool json = false;
  // Options given on the command line that belong to one format only.
  bool scales_given = false, accumulate_given = false, nvfp4_scales_given = false;
};

const std::map<std::string, fp8kit_dtype> kDtypes{{"e4m3", FP8KIT_DTYPE_E4M3}, {"e5m2", FP8KIT_DTYPE_E5M2},
                                                  {"nvfp4", FP8KIT_DTYPE_NVFP4}, {"bf16", FP8KIT_DTYPE_BF16},
                                                  {"f16", FP8KIT_DTYPE_F16},   {"f32", FP8KIT_DTYPE_F32}};

bool is_fp8(const std::string& t) { return t == "e4m3" || t == "e5m2"; }

// The options' mismatch with B's format, naming the option; empty if none.
std::string mismatch(const Options& o) {
  if (o.b == "nvfp4") {
    if (is_fp8(o.a)) return "--a " + o.a + ": an NVFP4 B takes A as nvfp4 (W4A4) or bf16 / f16 (W4A16)";
    if (o.scales_given) return "--scales: NVFP4 carries its own scales (an E4M3 per 16 K elements, and alpha)";
    if (o.accumulate_given) return "--accumulate: FP8 only (NVFP4 accumulates in f32 with its scales applied)";
    return {};
  }
  if (!is_fp8(o.a)) return "--a " + o.a + ": an FP8 B (--b " + o.b + ") takes A as e4m3 or e5m2";
  if (o.nvfp4_scales_given) return "--nvfp4-scales: only with --b nvfp4";
  return {};
}

nlohmann::json run_nvfp4(const Options& o) {
  Nvfp4Run run;
  run.spec = ref::Nvfp4Case{o.m, o.n, o.k};
  run.spec.a_type = kDtypes.at(o.a);
  run.spec.d_type = kDtypes.at(o.out);
  run.spec.a_layout = run.spec.b_layout =
      o.nvfp4_scales == "linear" ? FP8KIT_NVFP4_SCALES_LINEAR : FP8KIT_NVFP4_SCALES_SWIZZLED;
  run.spec.bias = o.bias != "none";
  if (run.spec.bias) run.spec.bias_type = kDtypes.at(o.bias);
  tools::parse_path(o.path, &run.path);  // checked by CLI11 against tools::path_names()
  run.iters = o.iters;
  return run_nvfp4_gemm(run);
}

nlohmann::json run_fp8(const Options& o) {
  GemmRun run;
  run.spec = ref::GemmCase{o.m, o.n, o.k};
  run.spec.a_type = kDtypes.at(o.a);
  run.spec.b_type = kDtypes.at(o.b);
  run.spec.d_type = kDtypes.at(o.out);
  const tools::ScaleConfig* scales = tools::find_config(tools::kAllConfigs, o.scales.c_str());
  run.spec.a_mode = scales->a;
  run.spec.b_mode = scales->b;
  run.spec.bias = o.bias != "none";
  if (run.spec.bias) run.spec.bias_type = kDtypes.at(o.bias);
  run.spec.accumulation = o.accumulate == "fast" ? FP8KIT_ACCUMULATION_FAST : FP8KIT_ACCUMULATION_PROMOTED;
  tools::parse_path(o.path, &run.path);
  run.iters = o.iters;
  return run_gemm(run);
}

int execute(const Options& o) {
  if (const std::string why = mismatch(o); !why.empty()) {
    std::fprintf(stderr, "fp8kit gemm: %s\n", why.c_str());
    return kExitBadInput;
  }
  nlohmann::json r;
  try {
    r = o.b == "nvfp4" ? run_nvfp4(o) : run_fp8(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fp8kit gemm: %s\n", e.what());
    return kExitCuda;
  }
  if (o.json) {
    std::printf("%s\n", r.dump(2).c_str());
  } else if (!r.contains("checked")) {
    std::fprintf(stderr, "fp8kit gemm: %s: %s\n", r["status"].get<std::string>().c_str(),
                 r["message"].get<std::string>().c_str());
  } else {
    std::printf("%s via %s: %s, %lld elements checked, worst error %.3f of the bound, relative error %.2e\n",
                r["label"].get<std::string>().c_str(), r["path"].get<std::string>().c_str(),
                r["ok"].get<bool>() ? "correct" : "WRONG", r["checked"].get<long long>(),
                r["worst_error_over_bound"].get<double>(), r["relative_norm_error"].get<double>());
    if (r.contains("first_failure")) std::printf("  first failure: %s\n", r["first_failure"].get<std::string>().c_str());
    if (r.contains("median_us"))
      std::printf("  %.1f us median of %d, %.1f TFLOP/s (L2-warm inputs)\n", r["median_us"].get<double>(), o.iters,
                  r["tflops"].get<double>());
  }
  const std::string status = r["status"].get<std::string>();
  if (status == "invalid_argument") return kExitBadInput;
  if (status == "unsupported") return kExitUnsupported;
  if (status != "success") return kExitCuda;
  return r["ok"].get<bool>() ? kExitOk : kExitFindings;
}

std::vector<std::string> scale_config_names() {
  std::vector<std::string> v;
  for (const tools::ScaleConfig& c : tools::kAllConfigs) v.push_back(c.name);
  return v;
}

}  // namespace

void register_gemm(CLI::App& app, Action& action) {
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("gemm", "run one GEMM on random data, check it against float64, time it");
  sub->add_option("-m", o->m, "rows of A and D")->check(CLI::PositiveNumber);
  sub->add_option("-n", o->n, "rows of B, columns of D")->check(CLI::PositiveNumber);
  sub->add_option("-k", o->k, "inner dimension (multiple of 16; NVFP4: of 32)")->check(CLI::PositiveNumber);
  sub->add_option("--a", o->a, "A dtype (nvfp4, bf16, f16: with --b nvfp4)")
      ->check(CLI::IsMember({"e4m3", "e5m2", "nvfp4", "bf16", "f16"}));
  sub->add_option("--b", o->b, "B dtype (nvfp4: an NVFP4 GEMM)")->check(CLI::IsMember({"e4m3", "e5m2", "nvfp4"}));
  sub->add_option("--out", o->out, "D dtype")->check(CLI::IsMember({"bf16", "f16", "f32"}));
  auto* scales = sub->add_option("--scales", o->scales, "FP8 scale mode")->check(CLI::IsMember(scale_config_names()));
  auto* nvfp4_scales = sub->add_option("--nvfp4-scales", o->nvfp4_scales, "NVFP4 block-scale layout of A and B")
                           ->check(CLI::IsMember({"swizzled", "linear"}));
  sub->add_option("--bias", o->bias, "bias dtype or none")->check(CLI::IsMember({"none", "bf16", "f16", "f32"}));
  sub->add_option("--path", o->path, "force a kernel path")->check(CLI::IsMember(tools::path_names()));
  auto* accumulate = sub->add_option("--accumulate", o->accumulate,
                                     "FP8: promoted, or fast (no per-K-block promotion; not with block scales)")
                         ->check(CLI::IsMember({"promoted", "fast"}));
  sub->add_option("--iters", o->iters, "timed repetitions (0: no timing)")->check(CLI::NonNegativeNumber);
  sub->add_flag("--json", o->json, "machine-readable output");
  sub->callback([&action, o, scales, nvfp4_scales, accumulate] {
    o->scales_given = scales->count() > 0;
    o->nvfp4_scales_given = nvfp4_scales->count() > 0;
    o->accumulate_given = accumulate->count() > 0;
    action = [o] { return execute(*o); };
  });
}

}  // namespace fp8kit::cli
