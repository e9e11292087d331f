// fp8kit_bench's command line: the options as given, the configuration they
// resolve to, and its JSON form for the results file.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "suite.hpp"

namespace CLI {
class App;
}

namespace fp8bench {

struct Options {
  std::string suite = "bench/shapes.json";
  std::vector<std::string> modes = {"tensor", "token-channel", "block"};
  std::string out_dtype = "bf16";
  std::string path;  // empty: fp8kit's default (AUTO, or FP8KIT_PATH)
  std::string json;
  std::vector<std::string> libs = {"fp8kit", "cublaslt"};
  std::vector<std::string> filters;
  int iters = 50;
  int warmups = 5;
  int samples = 256;
  double budget_ms = 500.0;
  bool quick = false;
  bool bias = false;
  bool graph = false;  // decode rows also timed inside a CUDA graph (graph.hpp)
  std::string accumulate = "promoted";  // promoted | fast (non-block modes; block rows stay promoted)
  std::string protocol = "steady";      // steady | bursty (a flush memset before every timed call)
};

struct Config {
  Options opt;
  std::vector<Mode> modes;
  fp8kit_dtype d_type = FP8KIT_DTYPE_BF16;
  bool path_given = false;
  fp8kit_path path = FP8KIT_PATH_AUTO;
  bool run_fp8kit = true, run_cublaslt = true;
  bool fast_accum = false;  // --accumulate fast
  bool bursty = false;      // --protocol bursty
  std::vector<Shape> shapes;
};

// Registers every option of docs/bench.md on `app`, writing into `opt`.
void add_options(CLI::App& app, Options* opt);

// Checks the options and loads the suite; throws BadArgs.
Config configure(const Options& opt);

// The "config" object of the results file.
nlohmann::ordered_json config_json(const Config& c);

}  // namespace fp8bench
