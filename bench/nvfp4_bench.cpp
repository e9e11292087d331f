// fp8kit_nvfp4_bench: fp8kit's NVFP4 GEMM, W4A16 (bf16 activations) and W4A4,
// beside cuBLASLt bf16 on the same weights dequantised (what a server without
// NVFP4 kernels runs) and beside fp8kit's own FP8 GEMM (per-tensor) on the same
// shapes. Each call takes the next of several weight sets, so weights stream
// from memory as in a model; decode shapes (M <= 16) use kGraphGemms distinct
// sets and are also timed inside a CUDA graph of that many GEMMs (graph.hpp).
//
//   fp8kit_nvfp4_bench [--shapes MxNxK,...] [--iters N] [--warmups N] [--budget-ms X] [--no-grouped]
//                      [--json FILE]
//
// Per row: microseconds per GEMM, TFLOP/s, and for decode the weight stream's
// fraction of the copy roof (the bytes each contender must read: packed
// NVFP4 plus its scales, bf16 or e4m3 weights). Values are not checked here:
// tests/gpu/test_nvfp4_gpu.cpp checks every path against the reference.
// Then grouped rows (nvfp4_grouped.cpp) unless --no-grouped: masked decode in a
// graph, and contiguous prefill beside a loop of dense calls per expert.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "core/nvfp4_layout.hpp"
#include "cublaslt_bf16.hpp"
#include "device.hpp"
#include "graph.hpp"
#include "nvfp4_grouped.hpp"

namespace fp8bench {
namespace {

constexpr int64_t kDecodeRows = 16;
constexpr int kPrefillSets = 2;
constexpr size_t kCopyBytes = size_t{1} << 30;
constexpr int kCopyIters = 10;
constexpr size_t kLtWorkspace = size_t{32} << 20;
constexpr uint8_t kUnitScaleE4m3 = 0x38;  // 1.0: timing does not depend on the scales' values
constexpr uint8_t kSmallBf16Byte = 0x3c;  // every bf16 0x3c3c (~0.0115): finite, value-independent speed
constexpr const char* kDefaultShapes =
    "1x4096x4096,1x7168x2048,1x2112x7168,16x4096x14336,16x28672x4096,512x4096x4096,2048x7168x2048,4096x4096x4096";

struct Shape {
  int64_t m, n, k;
};

std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    Shape s{};
    if (std::sscanf(item.c_str(), "%ldx%ldx%ld", &s.m, &s.n, &s.k) != 3 || s.m < 1 || s.n < 1 ||
        s.k % fp8kit::nvfp4::kKGranule != 0)
      throw BadArgs("--shapes: '" + item + "' is not MxNxK with K a multiple of 32");
    out.push_back(s);
  }
  return out;
}

void check(fp8kit_status s) {
  if (s != FP8KIT_STATUS_SUCCESS) throw CudaFailure(std::string("fp8kit: ") + fp8kit_last_error());
}

// The buffers of one shape: `sets` weight sets of each contender, one activation set.
struct Buffers {
  DeviceBuffer w4, w4s, w16, w8, a16, a4, a4s, a8, d, alpha, tensor_scale;
  DeviceBuffer workspace;  // what W4A4 asks for (Hopper beyond decode: A widened to bf16)
  int64_t w4_bytes, w4s_bytes, a4s_bytes;
  int sets;
};

void allocate(const Shape& s, int sets, cudaStream_t stream, Buffers* b) {
  using namespace fp8kit::nvfp4;
  b->sets = sets;
  b->w4_bytes = s.n * s.k / 2;
  b->w4s_bytes = scale_bytes(s.n, s.k, FP8KIT_NVFP4_SCALES_SWIZZLED);
  b->a4s_bytes = scale_bytes(s.m, s.k, FP8KIT_NVFP4_SCALES_SWIZZLED);
  auto* w4 = static_cast<uint8_t*>(b->w4.reserve(sets * b->w4_bytes));
  fill_normal_e4m3(w4, sets * b->w4_bytes, 1, stream);  // any byte is two valid E2M1 codes
  BENCH_CUDA(cudaMemsetAsync(b->w4s.reserve(sets * b->w4s_bytes), kUnitScaleE4m3, sets * b->w4s_bytes, stream));
  BENCH_CUDA(cudaMemsetAsync(b->w16.reserve(sets * s.n * s.k * 2), kSmallBf16Byte, sets * s.n * s.k * 2, stream));
  fill_normal_e4m3(static_cast<uint8_t*>(b->w8.reserve(sets * s.n * s.k)), sets * s.n * s.k, 2, stream);
  BENCH_CUDA(cudaMemsetAsync(b->a16.reserve(s.m * s.k * 2), kSmallBf16Byte, s.m * s.k * 2, stream));
  fill_normal_e4m3(static_cast<uint8_t*>(b->a4.reserve(s.m * s.k / 2)), s.m * s.k / 2, 3, stream);
  BENCH_CUDA(cudaMemsetAsync(b->a4s.reserve(b->a4s_bytes), kUnitScaleE4m3, b->a4s_bytes, stream));
  fill_normal_e4m3(static_cast<uint8_t*>(b->a8.reserve(s.m * s.k)), s.m * s.k, 4, stream);
  b->d.reserve(s.m * s.n * 4);
  const float alpha = 1.f / static_cast<float>(s.k), one = 1.f;
  BENCH_CUDA(cudaMemcpyAsync(b->alpha.reserve(4), &alpha, 4, cudaMemcpyHostToDevice, stream));
  BENCH_CUDA(cudaMemcpyAsync(b->tensor_scale.reserve(4), &one, 4, cudaMemcpyHostToDevice, stream));
  BENCH_CUDA(cudaStreamSynchronize(stream));
}

fp8kit_nvfp4_gemm_desc nvfp4_desc(const Shape& s, const Buffers& b, int set, bool w4a4) {
  fp8kit_nvfp4_gemm_desc d = FP8KIT_NVFP4_GEMM_DESC_INIT;
  d.m = s.m, d.n = s.n, d.k = s.k;
  fp8kit_nvfp4_operands& op = d.op;
  if (w4a4) {
    op.a = b.a4.get(), op.lda = s.k / 2, op.a_type = FP8KIT_DTYPE_NVFP4, op.a_scale = b.a4s.get();
  } else {
    op.a = b.a16.get(), op.lda = s.k, op.a_type = FP8KIT_DTYPE_BF16;
  }
  op.b = static_cast<const uint8_t*>(b.w4.get()) + set * b.w4_bytes, op.ldb = s.k / 2, op.b_type = FP8KIT_DTYPE_NVFP4;
  op.b_scale = static_cast<const uint8_t*>(b.w4s.get()) + set * b.w4s_bytes;
  op.alpha = static_cast<const float*>(b.alpha.get());
  op.d = b.d.get(), op.ldd = s.n, op.d_type = FP8KIT_DTYPE_BF16;
  return d;
}

fp8kit_gemm_desc fp8_desc(const Shape& s, const Buffers& b, int set) {
  fp8kit_gemm_desc d = FP8KIT_GEMM_DESC_INIT;
  d.m = s.m, d.n = s.n, d.k = s.k;
  d.op.a = b.a8.get(), d.op.lda = s.k, d.op.a_type = FP8KIT_DTYPE_E4M3;
  d.op.b = static_cast<const uint8_t*>(b.w8.get()) + set * s.n * s.k, d.op.ldb = s.k, d.op.b_type = FP8KIT_DTYPE_E4M3;
  d.op.d = b.d.get(), d.op.ldd = s.n, d.op.d_type = FP8KIT_DTYPE_BF16;
  d.op.a_scale_mode = d.op.b_scale_mode = FP8KIT_SCALE_TENSOR;
  d.op.a_scale = d.op.b_scale = static_cast<const float*>(b.tensor_scale.get());
  return d;
}

struct Contender {
  const char* name;
  double weight_bytes;  // what one call must read of the weights
  Timer::Call call;
  std::string path;  // the fp8kit path AUTO takes for this row; empty for a peer
};

// The path AUTO takes for an NVFP4 row (the JSON's "path"): the A/B of a rule
// reads which rows it moved from here.
std::string nvfp4_path(const fp8kit_nvfp4_gemm_desc& d, const fp8kit_gemm_options& o) {
  fp8kit_path path = FP8KIT_PATH_AUTO;
  return fp8kit_nvfp4_gemm_select(&d, &o, &path) == FP8KIT_STATUS_SUCCESS ? fp8kit_path_name(path) : "refused";
}

int run(const std::vector<Shape>& shapes, int iters, int warmups, double budget_ms, bool grouped,
        const std::string& json_path) {
  cudaStream_t stream = nullptr;
  BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Timer timer(stream);
  CublasLtBf16 lt(kLtWorkspace);
  const double copy_gbs = timer.copy_bandwidth_gbs(kCopyBytes, kCopyIters);
  std::printf("fp8kit_nvfp4_bench: copy roof (D2D, read + write) %.0f GB/s\n", copy_gbs);
  std::printf("%-18s %-14s %10s %9s %9s %11s  %s\n", "shape", "contender", "us", "TFLOP/s", "of roof", "graph us",
              "path");
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Shape& s : shapes) {
    const bool decode = s.m <= kDecodeRows;
    Buffers b;
    allocate(s, decode ? kGraphGemms : kPrefillSets, stream, &b);
    std::string why;
    const bool have_lt = lt.prepare(s.m, s.n, s.k, &why);
    fp8kit_gemm_options o = FP8KIT_GEMM_OPTIONS_INIT;
    fp8kit_gemm_options o4 = o;  // W4A4 lends the workspace it asks for, as a server would
    size_t lent = 0;
    const fp8kit_nvfp4_gemm_desc w4a4 = nvfp4_desc(s, b, 0, true);
    check(fp8kit_nvfp4_gemm_workspace_size(&w4a4, &o, &lent));
    if (lent) o4.workspace = b.workspace.reserve(lent), o4.workspace_size = lent;
    const double nk = static_cast<double>(s.n) * static_cast<double>(s.k);
    std::vector<Contender> cs = {
        {"nvfp4_w4a16", static_cast<double>(b.w4_bytes + b.w4s_bytes),
         [&](int i) { auto d = nvfp4_desc(s, b, i % b.sets, false); check(fp8kit_nvfp4_gemm(&d, &o, stream)); },
         nvfp4_path(nvfp4_desc(s, b, 0, false), o)},
        {"nvfp4_w4a4", static_cast<double>(b.w4_bytes + b.w4s_bytes),
         [&](int i) { auto d = nvfp4_desc(s, b, i % b.sets, true); check(fp8kit_nvfp4_gemm(&d, &o4, stream)); },
         nvfp4_path(nvfp4_desc(s, b, 0, true), o4)},
        {"fp8kit_fp8", nk, [&](int i) { auto d = fp8_desc(s, b, i % b.sets); check(fp8kit_gemm(&d, &o, stream)); },
         {}},
    };
    if (have_lt)
      cs.push_back({"cublaslt_bf16", 2 * nk, [&](int i) {
                      const auto* w = static_cast<const uint8_t*>(b.w16.get()) + (i % b.sets) * 2 * s.n * s.k;
                      if (lt.run(b.a16.get(), w, b.d.get(), stream) != CUBLAS_STATUS_SUCCESS)
                        throw CudaFailure("cublasLtMatmul failed");
                    },
                    {}});
    std::vector<Timer::Call> calls;
    for (const Contender& c : cs) calls.push_back(c.call);
    const std::vector<Timing> t = timer.time(warmups, iters, budget_ms, calls);
    char label[64];
    std::snprintf(label, sizeof label, "%ldx%ldx%ld", s.m, s.n, s.k);
    for (size_t i = 0; i < cs.size(); ++i) {
      const double us = t[i].median_us;
      const double tflops = 2.0 * s.m * nk / (us * 1e6);
      const double roof = cs[i].weight_bytes / (us * 1e3) / copy_gbs;
      nlohmann::ordered_json r{{"shape", label}, {"contender", cs[i].name}, {"us", us}, {"tflops", tflops},
                               {"weight_stream_of_copy_roof", roof}};
      if (!cs[i].path.empty()) r["path"] = cs[i].path;
      double graph_us = 0;
      if (decode) {
        const GraphTiming g = time_graph(stream, warmups, iters, cs[i].call);
        if (g.ok) {
          graph_us = g.us_per_gemm;
          r["graph_us_per_gemm"] = g.us_per_gemm;
          r["graph_of_copy_roof"] = cs[i].weight_bytes / (g.us_per_gemm * 1e3) / copy_gbs;
        } else {
          r["graph_error"] = g.error;
        }
      }
      std::printf("%-18s %-14s %10.1f %9.1f %9.2f %11.1f  %s\n", label, cs[i].name, us, tflops, roof, graph_us,
                  cs[i].path.c_str());
      rows.push_back(r);
    }
    if (!have_lt) std::printf("%-18s cublaslt_bf16: %s\n", label, why.c_str());
  }
  if (grouped) {
    run_nvfp4_grouped_decode(stream, warmups, iters, copy_gbs, &rows);
    run_nvfp4_grouped_prefill(timer, stream, warmups, iters, budget_ms, &rows);
  }
  // A spin kernel that gave up waiting is a warning about the timing, as in
  // fp8kit_bench, not a finding: this bench checks no results.
  if (timer.any_timeout())
    std::printf("warning: a timed batch was not queued within the spin kernel's wait; some times may include "
                "launch gaps\n");
  if (!json_path.empty()) {
    std::ofstream(json_path) << nlohmann::ordered_json{{"copy_bandwidth_gbs", copy_gbs},
                                                       {"timing_gap_warning", timer.any_timeout()},
                                                       {"rows", rows}}
                                    .dump(2)
                             << "\n";
  }
  cudaStreamDestroy(stream);
  return kExitOk;
}

}  // namespace
}  // namespace fp8bench

int main(int argc, char** argv) {
  using namespace fp8bench;
  CLI::App app{"fp8kit_nvfp4_bench: NVFP4 W4A16 / W4A4 beside cuBLASLt bf16 and fp8kit FP8 (docs/nvfp4.md)"};
  std::string shapes = kDefaultShapes, json;
  int iters = 50, warmups = 5;
  double budget_ms = 500.0;
  app.add_option("--shapes", shapes, "comma-separated MxNxK");
  app.add_option("--iters", iters, "timed calls per contender (at most)");
  app.add_option("--warmups", warmups, "untimed calls first");
  app.add_option("--budget-ms", budget_ms, "time budget per shape");
  app.add_option("--json", json, "write the rows here");
  bool no_grouped = false;
  app.add_flag("--no-grouped", no_grouped, "skip the grouped rows (masked decode, contiguous prefill)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInput;
  }
  try {
    return run(parse_shapes(shapes), iters, warmups, budget_ms, !no_grouped, json);
  } catch (const BadArgs& e) {
    std::fprintf(stderr, "fp8kit_nvfp4_bench: %s\n", e.what());
    return kExitBadInput;
  } catch (const CudaFailure& e) {
    std::fprintf(stderr, "fp8kit_nvfp4_bench: %s\n", e.what());
    return kExitCuda;
  }
}
