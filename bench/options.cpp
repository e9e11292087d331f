#include "options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "tools/path_names.hpp"

namespace fp8bench {

void add_options(CLI::App& app, Options* options) {
  Options& opt = *options;
  app.add_option("--suite", opt.suite, "suite file")->capture_default_str();
  app.add_option("--modes", opt.modes, "scale modes: tensor,token-channel,block")->delimiter(',')->capture_default_str();
  app.add_option("--out-dtype", opt.out_dtype, "D dtype: bf16, f16 or f32")->capture_default_str();
  app.add_option("--path", opt.path, "fp8kit path: auto|sm90_wgmma|sm120_mma|sm89_mma|sm75_hmma (default: fp8kit's)");
  app.add_option("--json", opt.json, "write results as JSON to this file");
  app.add_option("--iters", opt.iters, "timed calls per configuration (at most)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--warmups", opt.warmups, "untimed calls before timing")->check(CLI::Range(0, 1000))->capture_default_str();
  app.add_option("--budget-ms", opt.budget_ms, "fewer timed calls (not under 5) when they would take longer")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--samples", opt.samples, "checked entries of D per configuration")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--filter", opt.filters, "only shapes M,N,K (each a number or *); repeatable");
  app.add_option("--libs", opt.libs, "libraries to run: fp8kit,cublaslt")->delimiter(',')->capture_default_str();
  app.add_flag("--quick", opt.quick, "a smaller subset of the suite");
  app.add_flag("--bias", opt.bias, "add a bias[N] epilogue on both sides");
  app.add_flag("--graph", opt.graph, "also time the decode rows (M <= 16) inside a CUDA graph of 32 GEMMs");
  app.add_option("--accumulate", opt.accumulate,
                 "promoted | fast: fp8kit's options.accumulation and cuBLASLt's FAST_ACCUM alike (block rows stay "
                 "promoted)")
      ->check(CLI::IsMember({"promoted", "fast"}))
      ->capture_default_str();
  app.add_option("--protocol", opt.protocol,
                 "steady: calls back to back; bursty: an 8 GB memset before every timed call (DeepGEMM's timing)")
      ->check(CLI::IsMember({"steady", "bursty"}))
      ->capture_default_str();
}

Config configure(const Options& opt) {
  Config c;
  c.opt = opt;
  for (const std::string& m : opt.modes) {
    Mode mode;
    if (!parse_mode(m, &mode)) throw BadArgs("unknown mode '" + m + "' (" + mode_names() + ")");
    if (std::find(c.modes.begin(), c.modes.end(), mode) == c.modes.end()) c.modes.push_back(mode);
  }
  if (opt.out_dtype == "bf16") c.d_type = FP8KIT_DTYPE_BF16;
  else if (opt.out_dtype == "f16") c.d_type = FP8KIT_DTYPE_F16;
  else if (opt.out_dtype == "f32") c.d_type = FP8KIT_DTYPE_F32;
  else throw BadArgs("--out-dtype must be bf16, f16 or f32");
  if (!opt.path.empty()) {
    c.path_given = true;
    if (!fp8kit::tools::parse_path(opt.path, &c.path))
      throw BadArgs("--path must be auto, sm90_wgmma, sm120_mma, sm89_mma or sm75_hmma");
  }
  c.fast_accum = opt.accumulate == "fast";
  c.bursty = opt.protocol == "bursty";
  c.run_fp8kit = std::find(opt.libs.begin(), opt.libs.end(), "fp8kit") != opt.libs.end();
  c.run_cublaslt = std::find(opt.libs.begin(), opt.libs.end(), "cublaslt") != opt.libs.end();
  for (const std::string& l : opt.libs)
    if (l != "fp8kit" && l != "cublaslt") throw BadArgs("--libs takes fp8kit and/or cublaslt");
  std::vector<ShapeFilter> filters;
  for (const std::string& f : opt.filters) {
    ShapeFilter sf;
    if (!parse_filter(f, &sf)) throw BadArgs("--filter '" + f + "': expected M,N,K (numbers or *)");
    filters.push_back(sf);
  }
  c.shapes = load_suite(opt.suite, opt.quick, filters);
  if (c.shapes.empty()) throw BadArgs("no shape left after --quick / --filter");
  return c;
}

nlohmann::ordered_json config_json(const Config& c) {
  std::vector<std::string> mode_names;
  for (Mode m : c.modes) mode_names.push_back(mode_name(m));
  return {{"suite", c.opt.suite},
          {"modes", mode_names},
          {"out_dtype", c.opt.out_dtype},
          {"path", c.path_given ? c.opt.path : "default"},
          {"bias", c.opt.bias},
          {"warmups", c.opt.warmups},
          {"iters", c.opt.iters},
          {"budget_ms", c.opt.budget_ms},
          {"samples", c.opt.samples},
          {"quick", c.opt.quick},
          {"filters", c.opt.filters},
          {"libs", c.opt.libs},
          {"graph", c.opt.graph},
          {"accumulate", c.opt.accumulate},
          {"protocol", c.opt.protocol}};
}

}  // namespace fp8bench
