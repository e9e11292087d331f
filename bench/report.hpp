// Results of fp8kit_bench: one row per (shape, mode), the per-mode summary,
// the text table and the JSON file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "suite.hpp"
#include "system_info.hpp"

namespace fp8bench {

enum class Outcome { Measured, NotAvailable, Failed, Skipped };
const char* outcome_name(Outcome o);

struct LibResult {
  Outcome outcome = Outcome::Skipped;
  std::string note;  // why n/a or FAIL
  double us = 0.0, min_us = 0.0, tflops = 0.0, gbs = 0.0;
  int runs = 0;
  double check_worst = 0.0;  // largest |err| / tolerance over the samples
  int algorithm = -1;        // cuBLASLt: index of the heuristic result kept
  int algorithm_count = 0;   // cuBLASLt: heuristic results that ran
  std::string path;          // fp8kit: the path that ran
  // --graph (decode rows): time per GEMM inside a replayed graph of
  // kGraphGemms (0: not timed so; graph_note says why where it failed).
  double graph_us = 0.0, graph_gbs = 0.0;
  std::string graph_note;
  bool measured() const { return outcome == Outcome::Measured; }
};

struct Row {
  Shape shape;
  Mode mode = Mode::Tensor;
  double flops = 0.0, bytes = 0.0;
  int input_sets = 0;
  bool fast_accum = false;  // both sides ran with fast accumulation
  ClockReading clock;       // as the timed calls ended
  LibResult fp8kit, cublaslt;
  // cuBLASLt time over fp8kit time (> 1: fp8kit faster); 0 when either is missing.
  double ratio() const;
};

struct ModeSummary {
  Mode mode = Mode::Tensor;
  int ratio_count = 0;                 // grid rows, M >= 512, both measured
  double geomean_ratio_m512 = 0.0;
  double fp8kit_geomean_tflops_m512 = 0.0, cublaslt_geomean_tflops_m512 = 0.0;
  double fp8kit_best_tflops = 0.0, cublaslt_best_tflops = 0.0;
  int decode_count = 0;                // grid rows, M <= 16, fp8kit measured
  double fp8kit_decode_gbs = 0.0, cublaslt_decode_gbs = 0.0;  // geomean
  double fp8kit_decode_fraction = 0.0, cublaslt_decode_fraction = 0.0;  // of the copy roof
  // The same rows timed inside a graph (--graph): geomean GB/s and fraction.
  int decode_graph_count = 0;
  double fp8kit_decode_graph_gbs = 0.0, cublaslt_decode_graph_gbs = 0.0;
  double fp8kit_decode_graph_fraction = 0.0, cublaslt_decode_graph_fraction = 0.0;
};

// Rows counted into the summaries: the suite's grid (every M x every pair).
constexpr int64_t kLargeM = 512;   // "M >= 512": the compute-bound summary
constexpr int64_t kDecodeM = 16;   // "M <= 16": the bandwidth-bound summary

ModeSummary summarize(Mode mode, const std::vector<Row>& rows, double copy_gbs);

void print_header_line();
void print_row(const Row& r);
void print_summary(const std::vector<ModeSummary>& summaries, double copy_gbs);

nlohmann::ordered_json row_json(const Row& r);
nlohmann::ordered_json summary_json(const ModeSummary& s);

// What the results file says about the run besides its rows and summaries.
struct RunRecord {
  std::string gpu_name, compute_capability;  // "NVIDIA H200", "9.0"
  int sms = 0;
  long long l2_bytes = 0, memory_bytes = 0;
  int cuda_driver_api = 0, cuda_runtime = 0;  // CUDA version numbers (13000)
  std::string cublaslt_version;
  double copy_gbs = 0.0;
  nlohmann::ordered_json config;        // options.hpp config_json, plus the timing warning
  std::vector<std::string> auto_paths;  // fp8kit's AUTO choice, one per summary
  int failures = 0;
};

// Writes the results file (docs/bench.md); throws BadArgs when it cannot.
void write_json_file(const std::string& file, const RunRecord& run, const std::vector<ModeSummary>& summaries,
                     const std::vector<Row>& rows);

}  // namespace fp8bench
