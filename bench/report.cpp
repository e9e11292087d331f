#include "report.hpp"

#include "graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "system_info.hpp"

namespace fp8bench {
namespace {

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  double log_sum = 0.0;
  for (double x : v) log_sum += std::log(x);
  return std::exp(log_sum / static_cast<double>(v.size()));
}

std::string cell(const LibResult& r, double value, const char* format, int width) {
  char text[64];
  if (r.measured())
    std::snprintf(text, sizeof text, format, width, value);
  else
    std::snprintf(text, sizeof text, "%*s", width, r.outcome == Outcome::Failed ? "FAIL" : "n/a");
  return text;
}

nlohmann::ordered_json lib_json(const LibResult& r, bool with_algorithm) {
  nlohmann::ordered_json j;
  j["status"] = outcome_name(r.outcome);
  if (!r.path.empty()) j["path"] = r.path;
  if (!r.note.empty()) j["note"] = r.note;
  if (r.measured()) {
    j["us"] = r.us;
    j["min_us"] = r.min_us;
    j["tflops"] = r.tflops;
    j["gbs"] = r.gbs;
    j["runs"] = r.runs;
  }
  if (r.graph_us > 0.0) {
    j["graph_us"] = r.graph_us;
    j["graph_gbs"] = r.graph_gbs;
  }
  if (!r.graph_note.empty()) j["graph_note"] = r.graph_note;
  if (r.outcome == Outcome::Measured || r.outcome == Outcome::Failed) j["check_worst_error_ratio"] = r.check_worst;
  if (with_algorithm && r.algorithm >= 0) {
    j["algorithm_index"] = r.algorithm;
    j["algorithms_tried"] = r.algorithm_count;
  }
  return j;
}

}  // namespace

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Measured: return "ok";
    case Outcome::NotAvailable: return "n/a";
    case Outcome::Failed: return "FAIL";
    case Outcome::Skipped: return "skipped";
  }
  return "?";
}

double Row::ratio() const {
  if (!fp8kit.measured() || !cublaslt.measured() || fp8kit.us <= 0.0) return 0.0;
  return cublaslt.us / fp8kit.us;
}

ModeSummary summarize(Mode mode, const std::vector<Row>& rows, double copy_gbs) {
  ModeSummary s;
  s.mode = mode;
  std::vector<double> ratios, f_tflops, c_tflops, f_gbs, c_gbs, f_graph, c_graph;
  for (const Row& r : rows) {
    if (r.mode != mode) continue;
    if (r.fp8kit.measured()) s.fp8kit_best_tflops = std::max(s.fp8kit_best_tflops, r.fp8kit.tflops);
    if (r.cublaslt.measured()) s.cublaslt_best_tflops = std::max(s.cublaslt_best_tflops, r.cublaslt.tflops);
    if (r.shape.kind != ShapeKind::Grid) continue;
    if (r.shape.m >= kLargeM) {
      if (r.ratio() > 0.0) ratios.push_back(r.ratio());
      if (r.fp8kit.measured()) f_tflops.push_back(r.fp8kit.tflops);
      if (r.cublaslt.measured()) c_tflops.push_back(r.cublaslt.tflops);
    }
    if (r.shape.m <= kDecodeM) {
      if (r.fp8kit.measured()) f_gbs.push_back(r.fp8kit.gbs);
      if (r.cublaslt.measured()) c_gbs.push_back(r.cublaslt.gbs);
      if (r.fp8kit.graph_gbs > 0.0) f_graph.push_back(r.fp8kit.graph_gbs);
      if (r.cublaslt.graph_gbs > 0.0) c_graph.push_back(r.cublaslt.graph_gbs);
    }
  }
  s.ratio_count = static_cast<int>(ratios.size());
  s.geomean_ratio_m512 = geomean(ratios);
  s.fp8kit_geomean_tflops_m512 = geomean(f_tflops);
  s.cublaslt_geomean_tflops_m512 = geomean(c_tflops);
  s.decode_count = static_cast<int>(f_gbs.size());
  s.fp8kit_decode_gbs = geomean(f_gbs);
  s.cublaslt_decode_gbs = geomean(c_gbs);
  s.decode_graph_count = static_cast<int>(f_graph.size());
  s.fp8kit_decode_graph_gbs = geomean(f_graph);
  s.cublaslt_decode_graph_gbs = geomean(c_graph);
  if (copy_gbs > 0.0) {
    s.fp8kit_decode_fraction = s.fp8kit_decode_gbs / copy_gbs;
    s.cublaslt_decode_fraction = s.cublaslt_decode_gbs / copy_gbs;
    s.fp8kit_decode_graph_fraction = s.fp8kit_decode_graph_gbs / copy_gbs;
    s.cublaslt_decode_graph_fraction = s.cublaslt_decode_graph_gbs / copy_gbs;
  }
  return s;
}

void print_header_line() {
  std::printf("%6s %6s %6s %-13s | %10s %8s %8s | %9s | %11s %8s\n", "M", "N", "K", "mode", "fp8kit us", "TFLOP/s",
              "GB/s", "xcuBLASLt", "cuBLASLt us", "TFLOP/s");
}

void print_row(const Row& r) {
  char ratio[32];
  if (r.ratio() > 0.0)
    std::snprintf(ratio, sizeof ratio, "%9.3f", r.ratio());
  else
    std::snprintf(ratio, sizeof ratio, "%9s", "n/a");
  std::printf("%6lld %6lld %6lld %-13s | %s %s %s | %s | %s %s", static_cast<long long>(r.shape.m),
              static_cast<long long>(r.shape.n), static_cast<long long>(r.shape.k), mode_name(r.mode),
              cell(r.fp8kit, r.fp8kit.us, "%*.1f", 10).c_str(), cell(r.fp8kit, r.fp8kit.tflops, "%*.1f", 8).c_str(),
              cell(r.fp8kit, r.fp8kit.gbs, "%*.0f", 8).c_str(), ratio,
              cell(r.cublaslt, r.cublaslt.us, "%*.1f", 11).c_str(),
              cell(r.cublaslt, r.cublaslt.tflops, "%*.1f", 8).c_str());
  std::string notes;
  if (r.fast_accum) notes += " fast";
  if (r.clock.ok) {
    char clock[48];
    std::snprintf(clock, sizeof clock, " | %u MHz %.0f W", r.clock.sm_mhz, r.clock.power_w);
    notes += clock;
  }
  if (r.fp8kit.graph_us > 0.0 || r.cublaslt.graph_us > 0.0) {
    char graph[96];
    std::snprintf(graph, sizeof graph, " | graph us %.1f / %.1f", r.fp8kit.graph_us, r.cublaslt.graph_us);
    notes += graph;
  }
  for (const LibResult* lib : {&r.fp8kit, &r.cublaslt})
    if (!lib->graph_note.empty()) notes += " [graph: " + lib->graph_note + "]";
  if (!r.fp8kit.note.empty()) notes += " [fp8kit: " + r.fp8kit.note + "]";
  if (!r.cublaslt.note.empty()) notes += " [cuBLASLt: " + r.cublaslt.note + "]";
  std::printf("%s\n", notes.c_str());
  std::fflush(stdout);
}

void print_summary(const std::vector<ModeSummary>& summaries, double copy_gbs) {
  std::printf("\nSummary over the grid (every M x every (N,K)); best over all rows. Copy roof %.0f GB/s.\n", copy_gbs);
  std::printf("%-13s | %-26s | %-29s | %s\n", "mode", "geomean xcuBLASLt, M>=512", "best TFLOP/s fp8kit/cuBLASLt",
              "decode M<=16 GB/s (of copy) fp8kit / cuBLASLt");
  for (const ModeSummary& s : summaries) {
    char ratio[48];
    if (s.ratio_count)
      std::snprintf(ratio, sizeof ratio, "%.3f (%d shapes)", s.geomean_ratio_m512, s.ratio_count);
    else
      std::snprintf(ratio, sizeof ratio, "n/a");
    char decode[96];
    if (s.decode_count)
      std::snprintf(decode, sizeof decode, "%.0f (%.1f%%) / %.0f (%.1f%%)", s.fp8kit_decode_gbs,
                    100.0 * s.fp8kit_decode_fraction, s.cublaslt_decode_gbs, 100.0 * s.cublaslt_decode_fraction);
    else
      std::snprintf(decode, sizeof decode, "n/a");
    std::printf("%-13s | %-26s | %8.1f / %-18.1f | %s\n", mode_name(s.mode), ratio, s.fp8kit_best_tflops,
                s.cublaslt_best_tflops, decode);
  }
  for (const ModeSummary& s : summaries)
    if (s.decode_graph_count)
      std::printf("%-7s decode M<=16 in a graph of %d GEMMs (%d shapes): %.0f (%.1f%%) / %.0f (%.1f%%) GB/s\n",
                  mode_name(s.mode), kGraphGemms, s.decode_graph_count, s.fp8kit_decode_graph_gbs,
                  100.0 * s.fp8kit_decode_graph_fraction, s.cublaslt_decode_graph_gbs,
                  100.0 * s.cublaslt_decode_graph_fraction);
}

nlohmann::ordered_json row_json(const Row& r) {
  nlohmann::ordered_json j;
  j["m"] = r.shape.m;
  j["n"] = r.shape.n;
  j["k"] = r.shape.k;
  j["mode"] = mode_name(r.mode);
  j["kind"] = shape_kind_name(r.shape.kind);
  if (!r.shape.model.empty()) j["model"] = r.shape.model;
  if (!r.shape.layer.empty()) j["layer"] = r.shape.layer;
  j["flops"] = r.flops;
  j["bytes"] = r.bytes;
  j["input_sets"] = r.input_sets;
  j["accumulation"] = r.fast_accum ? "fast" : "promoted";
  if (r.clock.ok) {
    j["sm_mhz"] = r.clock.sm_mhz;
    j["power_w"] = r.clock.power_w;
  }
  j["fp8kit"] = lib_json(r.fp8kit, false);
  j["cublaslt"] = lib_json(r.cublaslt, true);
  if (r.ratio() > 0.0)
    j["ratio_vs_cublaslt"] = r.ratio();
  else
    j["ratio_vs_cublaslt"] = nullptr;
  return j;
}

nlohmann::ordered_json summary_json(const ModeSummary& s) {
  nlohmann::ordered_json j;
  j["geomean_ratio_m512"] = s.geomean_ratio_m512;
  j["ratio_shapes"] = s.ratio_count;
  j["best_tflops"] = s.fp8kit_best_tflops;
  j["decode_bw_fraction"] = s.fp8kit_decode_fraction;
  j["decode_gbs"] = s.fp8kit_decode_gbs;
  j["decode_shapes"] = s.decode_count;
  if (s.decode_graph_count) {
    j["decode_bw_fraction_graph"] = s.fp8kit_decode_graph_fraction;
    j["decode_gbs_graph"] = s.fp8kit_decode_graph_gbs;
    j["decode_graph_shapes"] = s.decode_graph_count;
  }
  j["geomean_tflops_m512"] = s.fp8kit_geomean_tflops_m512;
  j["cublaslt"] = {{"geomean_tflops_m512", s.cublaslt_geomean_tflops_m512},
                   {"best_tflops", s.cublaslt_best_tflops},
                   {"decode_gbs", s.cublaslt_decode_gbs},
                   {"decode_bw_fraction", s.cublaslt_decode_fraction}};
  if (s.decode_graph_count) {
    j["cublaslt"]["decode_gbs_graph"] = s.cublaslt_decode_graph_gbs;
    j["cublaslt"]["decode_bw_fraction_graph"] = s.cublaslt_decode_graph_fraction;
  }
  return j;
}

void write_json_file(const std::string& file, const RunRecord& run, const std::vector<ModeSummary>& summaries,
                     const std::vector<Row>& rows) {
  nlohmann::ordered_json j;
  j["tool"] = "fp8kit_bench";
  j["date"] = utc_now();
  j["gpu"] = {{"name", run.gpu_name},
              {"compute_capability", run.compute_capability},
              {"sms", run.sms},
              {"l2_bytes", run.l2_bytes},
              {"memory_bytes", run.memory_bytes}};
  j["driver_version"] = driver_version();
  j["cuda_driver_api"] = cuda_version_text(run.cuda_driver_api);
  j["cuda_runtime"] = cuda_version_text(run.cuda_runtime);
  j["cublaslt_version"] = run.cublaslt_version;
  j["fp8kit_version"] = std::to_string(FP8KIT_VERSION_MAJOR) + "." + std::to_string(FP8KIT_VERSION_MINOR) + "." +
                        std::to_string(FP8KIT_VERSION_PATCH);
  j["copy_bandwidth_gbs"] = run.copy_gbs;
  j["config"] = run.config;
  nlohmann::ordered_json modes = nlohmann::ordered_json::object();
  for (size_t i = 0; i < summaries.size(); ++i) {
    auto sj = summary_json(summaries[i]);
    sj["fp8kit_auto_path"] = run.auto_paths[i];
    modes[mode_name(summaries[i].mode)] = sj;
  }
  j["modes"] = modes;
  j["failures"] = run.failures;
  nlohmann::ordered_json row_list = nlohmann::ordered_json::array();
  for (const Row& r : rows) row_list.push_back(row_json(r));
  j["rows"] = row_list;
  std::ofstream out(file);
  if (!out) throw BadArgs("cannot write " + file);
  out << j.dump(1) << "\n";
}

}  // namespace fp8bench
