// Grouped NVFP4 GEMMs as a server's MoE layer runs them, W4A16 (bf16
// activations) and W4A4 (NVFP4 activations, lent the workspace they ask
// for), the counts from a fixed top-k routing of the batch:
// - masked decode: each expert's slab holds up to kMaxM routed tokens, a CUDA
//   graph of kGraphGemms calls walks kLayers distinct layers (weights past
//   L2); the figure is the bytes of the experts the batch touches (packed
//   weights and their swizzled scales) over the time per call, as a fraction
//   of the copy roof;
// - contiguous prefill: the routed rows of all experts one after another, one
//   grouped call beside a loop of one dense call per non-empty expert over the
//   same buffers (what a caller without a grouped kernel runs), and the
//   grouped W4A4 call on the same weights, timed interleaved, steady; the
//   figures are loop time / grouped time and W4A4 time / W4A16 time.
#include "nvfp4_grouped.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "common.hpp"
#include "core/nvfp4_layout.hpp"
#include "device.hpp"
#include "graph.hpp"

namespace fp8bench {
namespace {

constexpr int kMaxM = 16;   // slab rows per expert (as the FP8 grouped decode suite)
constexpr int kLayers = 4;  // distinct layers the graph walks: >= 2x 226 MB, far past the 60 MB L2
constexpr uint8_t kUnitScaleE4m3 = 0x38;
constexpr uint8_t kSmallBf16Byte = 0x3c;

struct Case {
  const char* name;
  int experts, top_k, tokens;
  int64_t n, k;
};
// bench/grouped_shapes.json's expert GEMMs at decode batch sizes.
constexpr Case kCases[] = {
    {"qwen3-30b-a3b gate_up", 128, 8, 16, 1536, 2048},
    {"qwen3-30b-a3b gate_up", 128, 8, 1, 1536, 2048},
    {"mixtral-8x7b gate_up", 8, 2, 16, 28672, 4096},
    {"mixtral-8x7b down", 8, 2, 4, 4096, 14336},
};
// The same experts at prefill batch sizes: 512 to 32,768 routed rows, gate_up
// and down (Qwen3 at 4, 16, 32, 128 and 256 rows per expert).
constexpr Case kPrefillCases[] = {
    {"qwen3-30b-a3b gate_up", 128, 8, 64, 1536, 2048},
    {"qwen3-30b-a3b gate_up", 128, 8, 256, 1536, 2048},
    {"qwen3-30b-a3b gate_up", 128, 8, 512, 1536, 2048},
    {"qwen3-30b-a3b gate_up", 128, 8, 2048, 1536, 2048},
    {"qwen3-30b-a3b gate_up", 128, 8, 4096, 1536, 2048},
    {"qwen3-30b-a3b down", 128, 8, 2048, 2048, 768},
    {"mixtral-8x7b gate_up", 8, 2, 256, 28672, 4096},
    {"mixtral-8x7b gate_up", 8, 2, 2048, 28672, 4096},
    {"mixtral-8x7b down", 8, 2, 2048, 4096, 14336},
};

// Rows per expert of a top-k routing of `tokens` tokens: token t takes the
// experts (t * 7 + j * 13) mod E, j < top_k, skipping repeats (deterministic:
// every run times the same counts).
std::vector<int32_t> route(const Case& c) {
  std::vector<int32_t> counts(c.experts, 0);
  for (int t = 0; t < c.tokens; ++t) {
    std::vector<bool> taken(c.experts, false);
    for (int j = 0, e = (t * 7) % c.experts; j < c.top_k; e = (e + 13) % c.experts) {
      if (taken[e]) continue;
      taken[e] = true;
      ++counts[e];
      ++j;
    }
  }
  return counts;
}

void check(fp8kit_status s) {
  if (s != FP8KIT_STATUS_SUCCESS) throw CudaFailure(std::string("fp8kit: ") + fp8kit_last_error());
}

// The options of a call of `g`, lent the workspace it asks for (W4A4 on
// Hopper beyond decode widens A there), as a server would.
fp8kit_gemm_options lend_workspace(const fp8kit_nvfp4_grouped_gemm_desc& g, DeviceBuffer* workspace) {
  fp8kit_gemm_options o = FP8KIT_GEMM_OPTIONS_INIT;
  size_t bytes = 0;
  check(fp8kit_nvfp4_grouped_gemm_workspace_size(&g, &o, &bytes));
  if (bytes) o.workspace = workspace->reserve(static_cast<int64_t>(bytes)), o.workspace_size = bytes;
  return o;
}

}  // namespace

void run_nvfp4_grouped_decode(cudaStream_t stream, int warmups, int replays, double copy_gbs,
                              nlohmann::ordered_json* rows) {
  using namespace fp8kit::nvfp4;
  std::printf("%-26s %7s %9s %10s %11s  %s\n", "grouped masked decode", "tokens", "experts", "graph us", "of roof",
              "contender");
  for (const Case& c : kCases) {
    const std::vector<int32_t> counts = route(c);
    int touched = 0;
    for (int32_t n : counts) touched += n > 0;
    const int64_t w_bytes = c.n * c.k / 2, s_bytes = scale_bytes(c.n, c.k, FP8KIT_NVFP4_SCALES_SWIZZLED);
    const int64_t layer_w = c.experts * w_bytes, layer_s = c.experts * s_bytes;
    DeviceBuffer w, ws, a, a4, a4s, d, cnt, workspace;
    auto* wp = static_cast<uint8_t*>(w.reserve(kLayers * layer_w));
    fill_normal_e4m3(wp, kLayers * layer_w, 7, stream);
    auto* sp = static_cast<uint8_t*>(ws.reserve(kLayers * layer_s));
    BENCH_CUDA(cudaMemsetAsync(sp, kUnitScaleE4m3, kLayers * layer_s, stream));
    const int64_t a_bytes = int64_t{c.experts} * kMaxM * c.k * 2;
    BENCH_CUDA(cudaMemsetAsync(a.reserve(a_bytes), kSmallBf16Byte, a_bytes, stream));
    // NVFP4 activations: each expert's slab its own packed [kMaxM, K / 2] and scale matrix.
    const int64_t a4_bytes = kMaxM * c.k / 2, a4s_bytes = scale_bytes(kMaxM, c.k, FP8KIT_NVFP4_SCALES_SWIZZLED);
    fill_normal_e4m3(static_cast<uint8_t*>(a4.reserve(c.experts * a4_bytes)), c.experts * a4_bytes, 8, stream);
    BENCH_CUDA(cudaMemsetAsync(a4s.reserve(c.experts * a4s_bytes), kUnitScaleE4m3, c.experts * a4s_bytes, stream));
    d.reserve(int64_t{c.experts} * kMaxM * c.n * 2);
    BENCH_CUDA(cudaMemcpyAsync(cnt.reserve(counts.size() * 4), counts.data(), counts.size() * 4,
                               cudaMemcpyHostToDevice, stream));
    BENCH_CUDA(cudaStreamSynchronize(stream));
    for (const bool w4a4 : {false, true}) {
      fp8kit_nvfp4_grouped_gemm_desc g = FP8KIT_NVFP4_GROUPED_GEMM_DESC_INIT;
      g.layout = FP8KIT_GROUPED_MASKED, g.experts = c.experts, g.rows = kMaxM, g.n = c.n, g.k = c.k;
      g.counts = static_cast<const int32_t*>(cnt.get());
      fp8kit_nvfp4_operands& op = g.op;
      if (w4a4) op.a = a4.get(), op.lda = c.k / 2, op.a_type = FP8KIT_DTYPE_NVFP4, op.a_scale = a4s.get();
      else op.a = a.get(), op.lda = c.k, op.a_type = FP8KIT_DTYPE_BF16;
      op.b = wp, op.ldb = c.k / 2, op.b_type = FP8KIT_DTYPE_NVFP4, op.b_scale = sp;  // each call: its layer's
      op.d = d.get(), op.ldd = c.n, op.d_type = FP8KIT_DTYPE_BF16;
      const fp8kit_gemm_options o = lend_workspace(g, &workspace);
      auto call = [&](int i) {
        const int layer = i % kLayers;
        fp8kit_nvfp4_grouped_gemm_desc x = g;
        x.op.b = wp + layer * layer_w, x.op.b_scale = sp + layer * layer_s;
        check(fp8kit_nvfp4_grouped_gemm(&x, &o, stream));
      };
      const GraphTiming t = time_graph(stream, warmups, replays, call);
      const double bytes = static_cast<double>(touched) * static_cast<double>(w_bytes + s_bytes);
      const char* contender = w4a4 ? "nvfp4_w4a4_masked" : "nvfp4_w4a16_masked";
      nlohmann::ordered_json r{{"grouped", c.name}, {"tokens", c.tokens}, {"experts", c.experts},
                               {"top_k", c.top_k}, {"touched_experts", touched}, {"n", c.n}, {"k", c.k},
                               {"contender", contender}};
      if (t.ok) {
        r["graph_us_per_gemm"] = t.us_per_gemm;
        r["graph_of_copy_roof"] = bytes / (t.us_per_gemm * 1e3) / copy_gbs;
        std::printf("%-26s %7d %4d / %-4d %10.1f %11.2f  %s\n", c.name, c.tokens, touched, c.experts, t.us_per_gemm,
                    bytes / (t.us_per_gemm * 1e3) / copy_gbs, contender);
      } else {
        r["graph_error"] = t.error;
        std::printf("%-26s %7d %s  %s\n", c.name, c.tokens, t.error.c_str(), contender);
      }
      rows->push_back(r);
    }
  }
}

void run_nvfp4_grouped_prefill(Timer& timer, cudaStream_t stream, int warmups, int iters, double budget_ms,
                               nlohmann::ordered_json* rows) {
  using namespace fp8kit::nvfp4;
  std::printf("%-26s %7s %7s %11s %9s %10s %9s %9s %9s  %s\n", "grouped contiguous", "tokens", "rows", "grouped us",
              "TFLOP/s", "loop us", "loop / g", "w4a4 us", "a4 / a16", "path");
  for (const Case& c : kPrefillCases) {
    const std::vector<int32_t> counts = route(c);
    std::vector<int32_t> ends(counts.size());
    int64_t rows_total = 0;
    for (size_t e = 0; e < counts.size(); ++e) ends[e] = static_cast<int32_t>(rows_total += counts[e]);
    const int64_t w_bytes = c.n * c.k / 2, s_bytes = scale_bytes(c.n, c.k, FP8KIT_NVFP4_SCALES_SWIZZLED);
    DeviceBuffer w, ws, a, a4, a4s, d, offs, workspace;
    auto* wp = static_cast<uint8_t*>(w.reserve(c.experts * w_bytes));
    fill_normal_e4m3(wp, c.experts * w_bytes, 11, stream);
    auto* sp = static_cast<uint8_t*>(ws.reserve(c.experts * s_bytes));
    BENCH_CUDA(cudaMemsetAsync(sp, kUnitScaleE4m3, c.experts * s_bytes, stream));
    auto* ap = static_cast<uint8_t*>(a.reserve(rows_total * c.k * 2));
    BENCH_CUDA(cudaMemsetAsync(ap, kSmallBf16Byte, rows_total * c.k * 2, stream));
    // NVFP4 activations: all routed rows as one [T, K / 2] operand and one scale matrix.
    const int64_t a4s_bytes = scale_bytes(rows_total, c.k, FP8KIT_NVFP4_SCALES_SWIZZLED);
    fill_normal_e4m3(static_cast<uint8_t*>(a4.reserve(rows_total * c.k / 2)), rows_total * c.k / 2, 12, stream);
    BENCH_CUDA(cudaMemsetAsync(a4s.reserve(a4s_bytes), kUnitScaleE4m3, a4s_bytes, stream));
    auto* dp = static_cast<uint8_t*>(d.reserve(rows_total * c.n * 2));
    BENCH_CUDA(cudaMemcpyAsync(offs.reserve(ends.size() * 4), ends.data(), ends.size() * 4, cudaMemcpyHostToDevice,
                               stream));
    BENCH_CUDA(cudaStreamSynchronize(stream));
    fp8kit_gemm_options o = FP8KIT_GEMM_OPTIONS_INIT;
    fp8kit_nvfp4_grouped_gemm_desc g = FP8KIT_NVFP4_GROUPED_GEMM_DESC_INIT;
    g.layout = FP8KIT_GROUPED_CONTIGUOUS, g.experts = c.experts, g.rows = rows_total, g.n = c.n, g.k = c.k;
    g.offs = static_cast<const int32_t*>(offs.get());
    fp8kit_nvfp4_operands& op = g.op;
    op.a = ap, op.lda = c.k, op.a_type = FP8KIT_DTYPE_BF16;
    op.b = wp, op.ldb = c.k / 2, op.b_type = FP8KIT_DTYPE_NVFP4, op.b_scale = sp;
    op.d = dp, op.ldd = c.n, op.d_type = FP8KIT_DTYPE_BF16;
    fp8kit_path path = FP8KIT_PATH_AUTO;
    check(fp8kit_nvfp4_grouped_gemm_select(&g, &o, &path));
    auto grouped = [&](int) { check(fp8kit_nvfp4_grouped_gemm(&g, &o, stream)); };
    // Expert e's rows [ends[e] - counts[e], ends[e]) of A and D, its weights and scales.
    auto loop = [&](int) {
      for (size_t e = 0; e < counts.size(); ++e) {
        if (counts[e] == 0) continue;
        const int64_t r0 = ends[e] - counts[e];
        fp8kit_nvfp4_gemm_desc x = FP8KIT_NVFP4_GEMM_DESC_INIT;
        x.m = counts[e], x.n = c.n, x.k = c.k;
        x.op = op;
        x.op.a = ap + r0 * c.k * 2, x.op.b = wp + e * w_bytes, x.op.b_scale = sp + e * s_bytes;
        x.op.d = dp + r0 * c.n * 2;
        check(fp8kit_nvfp4_gemm(&x, &o, stream));
      }
    };
    fp8kit_nvfp4_grouped_gemm_desc g4 = g;
    g4.op.a = a4.get(), g4.op.lda = c.k / 2, g4.op.a_type = FP8KIT_DTYPE_NVFP4, g4.op.a_scale = a4s.get();
    const fp8kit_gemm_options o4 = lend_workspace(g4, &workspace);
    auto grouped_w4a4 = [&](int) { check(fp8kit_nvfp4_grouped_gemm(&g4, &o4, stream)); };
    const std::vector<Timing> t = timer.time(warmups, iters, budget_ms, {grouped, loop, grouped_w4a4});
    const double tflops = 2.0 * static_cast<double>(rows_total) * c.n * c.k / (t[0].median_us * 1e6);
    const double ratio = t[1].median_us / t[0].median_us;
    const double a4_ratio = t[2].median_us / t[0].median_us;
    rows->push_back(nlohmann::ordered_json{{"grouped", c.name}, {"layout", "contiguous"}, {"tokens", c.tokens},
                                           {"routed_rows", rows_total}, {"experts", c.experts}, {"top_k", c.top_k},
                                           {"n", c.n}, {"k", c.k}, {"contender", "nvfp4_w4a16_contiguous"},
                                           {"path", fp8kit_path_name(path)}, {"us", t[0].median_us},
                                           {"tflops", tflops}, {"loop_us", t[1].median_us},
                                           {"loop_over_grouped", ratio}, {"w4a4_us", t[2].median_us},
                                           {"w4a4_over_w4a16", a4_ratio}});
    std::printf("%-26s %7d %7ld %11.1f %9.1f %10.1f %9.2f %9.1f %9.2f  %s\n", c.name, c.tokens,
                static_cast<long>(rows_total), t[0].median_us, tflops, t[1].median_us, ratio, t[2].median_us, a4_ratio,
                fp8kit_path_name(path));
  }
}

}  // namespace fp8bench
