// fp8kit gemm: one GEMM of a given shape and configuration on random data,
// checked against the float64 reference, with its time.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <memory>

#include "cli.hpp"
#include "gemm_run.hpp"

namespace fp8kit::cli {
namespace {

struct Options {
  int64_t m = 4096, n = 4096, k = 4096;
  std::string a = "e4m3", b = "e4m3", out = "bf16", scales = "tensor", bias = "none", path = "auto";
  int iters = 20;
  bool json = false;
};

const std::map<std::string, fp8kit_dtype> kDtypes{{"e4m3", FP8KIT_DTYPE_E4M3}, {"e5m2", FP8KIT_DTYPE_E5M2},
                                                  {"bf16", FP8KIT_DTYPE_BF16}, {"f16", FP8KIT_DTYPE_F16},
                                                  {"f32", FP8KIT_DTYPE_F32}};
const std::map<std::string, std::pair<fp8kit_scale_mode, fp8kit_scale_mode>> kScales{
    {"none", {FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE}},
    {"tensor", {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR}},
    {"token-channel", {FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL}},
    {"token", {FP8KIT_SCALE_ROW, FP8KIT_SCALE_TENSOR}},
    {"channel", {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_COL}},
    {"block", {FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK}}};
const std::map<std::string, fp8kit_path> kPaths{{"auto", FP8KIT_PATH_AUTO},
                                                {"sm90_wgmma", FP8KIT_PATH_SM90_WGMMA},
                                                {"sm89_mma", FP8KIT_PATH_SM89_MMA},
                                                {"sm75_hmma", FP8KIT_PATH_SM75_HMMA}};

int execute(const Options& o) {
  GemmRun run;
  run.spec = ref::GemmCase{o.m, o.n, o.k};
  run.spec.a_type = kDtypes.at(o.a);
  run.spec.b_type = kDtypes.at(o.b);
  run.spec.d_type = kDtypes.at(o.out);
  run.spec.a_mode = kScales.at(o.scales).first;
  run.spec.b_mode = kScales.at(o.scales).second;
  run.spec.bias = o.bias != "none";
  if (run.spec.bias) run.spec.bias_type = kDtypes.at(o.bias);
  run.path = kPaths.at(o.path);
  run.iters = o.iters;
  nlohmann::json r;
  try {
    r = run_gemm(run);
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

template <typename Map>
std::vector<std::string> keys(const Map& m) {
  std::vector<std::string> v;
  for (const auto& kv : m) v.push_back(kv.first);
  return v;
}

}  // namespace

void register_gemm(CLI::App& app, Action& action) {
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("gemm", "run one GEMM on random data, check it against float64, time it");
  sub->add_option("-m", o->m, "rows of A and D")->check(CLI::PositiveNumber);
  sub->add_option("-n", o->n, "rows of B, columns of D")->check(CLI::PositiveNumber);
  sub->add_option("-k", o->k, "inner dimension (multiple of 16)")->check(CLI::PositiveNumber);
  sub->add_option("--a", o->a, "A dtype")->check(CLI::IsMember({"e4m3", "e5m2"}));
  sub->add_option("--b", o->b, "B dtype")->check(CLI::IsMember({"e4m3", "e5m2"}));
  sub->add_option("--out", o->out, "D dtype")->check(CLI::IsMember({"bf16", "f16", "f32"}));
  sub->add_option("--scales", o->scales, "scale mode")->check(CLI::IsMember(keys(kScales)));
  sub->add_option("--bias", o->bias, "bias dtype or none")->check(CLI::IsMember({"none", "bf16", "f16", "f32"}));
  sub->add_option("--path", o->path, "force a kernel path")->check(CLI::IsMember(keys(kPaths)));
  sub->add_option("--iters", o->iters, "timed repetitions (0: no timing)")->check(CLI::NonNegativeNumber);
  sub->add_flag("--json", o->json, "machine-readable output");
  sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace fp8kit::cli
