// The benchmark loop: for each shape and scale mode, fp8kit and cuBLASLt on the
// same random FP8 inputs, each sample-checked against float64 before it is
// timed beside the other (docs/bench.md).
#include "bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "check.hpp"
#include "cublaslt_gemm.hpp"
#include "device.hpp"
#include "graph.hpp"
#include "reference/fp8_codec.hpp"
#include "report.hpp"
#include "system_info.hpp"

namespace fp8bench {
namespace {

// Input sets rotate through at least this many times the L2 size, so a timed
// call finds its A and B out of cache; never fewer than two sets, and no more
// than kMaxInputSets (beyond the calls one timing makes, more sets add nothing).
constexpr double kRotationL2Multiple = 3.0;
constexpr int64_t kMinInputSets = 2;
constexpr int64_t kMaxInputSets = 256;
constexpr int64_t kSetAlignment = 256;  // bytes between input sets

constexpr size_t kCublasLtWorkspace = 32ull << 20;
// --protocol bursty: the memset before each timed call, as DeepGEMM's
// bench_kineto clears 8 GB between calls (its timing: a duty cycle that keeps
// the clocks up under the power cap).
constexpr size_t kBurstyFlushBytes = 8000000000ull;
constexpr size_t kCopyBytes = 1ull << 30;  // per buffer of the copy-roof measurement
constexpr int kCopyIters = 20;
constexpr int kAlgoWarmups = 1;     // per cuBLASLt heuristic candidate
constexpr int kAlgoIters = 5;
constexpr float kScaleMin = 0.5f;   // scales are uniform in [kScaleMin, kScaleMax)
constexpr float kScaleMax = 2.0f;
constexpr uint64_t kSeed = 0x5EED0F8B;
constexpr int kPoisonByte = 0xFF;   // NaN in bf16, f16 and f32
constexpr int kBaseAlign = 16;  // bytes: fp8kit's row-pitch alignment

std::vector<float> random_scales(int64_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> dist(kScaleMin, kScaleMax);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = dist(rng);
  return v;
}

float* upload(DeviceBuffer& buf, const std::vector<float>& host) {
  auto* d = static_cast<float*>(buf.reserve(std::max<size_t>(host.size(), 1) * sizeof(float)));
  BENCH_CUDA(cudaMemcpy(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

// Everything a (shape, mode) configuration runs on.
struct Operands {
  const uint8_t* a = nullptr;  // input set 0; set i at + i * a_set_bytes
  const uint8_t* b = nullptr;
  int64_t a_set_bytes = 0, b_set_bytes = 0, sets = 1;
  void* d = nullptr;
  int64_t lda = 0, ldb = 0, ldd = 0;
  const float* a_scale = nullptr;
  const float* b_scale = nullptr;     // fp8kit layout
  const float* b_scale_lt = nullptr;  // cuBLASLt layout
  const void* bias = nullptr;
  fp8kit_dtype bias_type = FP8KIT_DTYPE_BF16;
  const uint8_t* a_set(int i) const { return a + (i % sets) * a_set_bytes; }
  const uint8_t* b_set(int i) const { return b + (i % sets) * b_set_bytes; }
};

class Bench {
 public:
  explicit Bench(const Config& c) : c_(c) {
    BENCH_CUDA(cudaGetDevice(&device_));
    BENCH_CUDA(cudaGetDeviceProperties(&prop_, device_));
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    timer_ = std::make_unique<Timer>(stream_);
    if (c_.bursty) timer_->flush_before_each_call(kBurstyFlushBytes);
    if (c_.run_cublaslt) lt_ = std::make_unique<CublasLtGemm>(kCublasLtWorkspace);
  }
  ~Bench() {
    timer_.reset();
    lt_.reset();
    cudaStreamDestroy(stream_);
  }

  int run() {
    const auto start = std::chrono::steady_clock::now();
    int driver = 0, runtime = 0;
    BENCH_CUDA(cudaDriverGetVersion(&driver));
    BENCH_CUDA(cudaRuntimeGetVersion(&runtime));
    std::printf("fp8kit_bench: fp8kit %d.%d.%d vs cuBLASLt %s | %s (sm_%d%d, %d SMs, L2 %d MB) | driver %s (CUDA %s)\n",
                FP8KIT_VERSION_MAJOR, FP8KIT_VERSION_MINOR, FP8KIT_VERSION_PATCH, CublasLtGemm::version().c_str(),
                prop_.name, prop_.major, prop_.minor, prop_.multiProcessorCount, prop_.l2CacheSize >> 20,
                driver_version().c_str(), cuda_version_text(driver).c_str());
    copy_gbs_ = timer_->copy_bandwidth_gbs(kCopyBytes, kCopyIters);
    std::printf("copy roof (D2D, read + write): %.0f GB/s | D %s | %zu shapes x %zu modes | path %s\n", copy_gbs_,
                c_.opt.out_dtype.c_str(), c_.shapes.size(), c_.modes.size(),
                c_.path_given ? c_.opt.path.c_str() : "default (auto unless FP8KIT_PATH)");
    for (Mode mode : c_.modes) {
      fp8kit_path_choice choice = FP8KIT_PATH_CHOICE_INIT;
      if (fp8kit_choose_path(prop_.major, prop_.minor, a_scale_mode(mode), b_scale_mode(mode), &choice) ==
          FP8KIT_STATUS_SUCCESS)
        auto_paths_.push_back(fp8kit_path_name(choice.path));
      else
        auto_paths_.push_back(std::string("none: ") + fp8kit_last_error());
      std::printf("  %s: fp8kit AUTO would run %s\n", mode_name(mode), auto_paths_.back().c_str());
    }
    print_header_line();
    for (size_t i = 0; i < c_.shapes.size(); ++i) run_shape(i);

    std::vector<ModeSummary> summaries;
    for (Mode mode : c_.modes) summaries.push_back(summarize(mode, rows_, copy_gbs_));
    print_summary(summaries, copy_gbs_);
    if (timer_->any_timeout())
      std::printf("warning: a timed batch was not queued within the spin kernel's wait; some times may include "
                  "launch gaps\n");
    if (!c_.opt.json.empty()) write_json(summaries, driver, runtime);
    std::printf("wall time %.1f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (failures_) {
      std::printf("FAIL: %d configuration(s) failed the sampled check\n", failures_);
      return kExitFindings;
    }
    return kExitOk;
  }

 private:
  // Input sets of A and B (enough to rotate past the L2), D, and input set 0's
  // samples on the host.
  Operands make_inputs(const Shape& s, uint64_t seed) {
    Operands ops;
    ops.lda = s.k;
    ops.ldb = s.k;
    const int d_bytes = dtype_bytes(c_.d_type);
    ops.ldd = round_up(s.n, kBaseAlign / d_bytes);  // 16-byte aligned rows, as fp8kit requires
    ops.a_set_bytes = round_up(s.m * ops.lda, kSetAlignment);
    ops.b_set_bytes = round_up(s.n * ops.ldb, kSetAlignment);
    const double rotation = kRotationL2Multiple * prop_.l2CacheSize;
    ops.sets = std::clamp<int64_t>(
        static_cast<int64_t>(std::ceil(rotation / static_cast<double>(ops.a_set_bytes + ops.b_set_bytes))),
        kMinInputSets, kMaxInputSets);
    auto* a = static_cast<uint8_t*>(a_buf_.reserve(ops.sets * ops.a_set_bytes));
    auto* b = static_cast<uint8_t*>(b_buf_.reserve(ops.sets * ops.b_set_bytes));
    fill_normal_e4m3(a, ops.sets * ops.a_set_bytes, seed, stream_);
    fill_normal_e4m3(b, ops.sets * ops.b_set_bytes, ~seed, stream_);
    ops.a = a;
    ops.b = b;
    ops.d = d_buf_.reserve(s.m * ops.ldd * d_bytes);
    BENCH_CUDA(cudaStreamSynchronize(stream_));
    return ops;
  }

  // A random bias[N] (bf16, or f16 when D is f16) on the device and the host.
  void make_bias(const Shape& s, std::mt19937_64& rng, HostOperands* host, Operands* ops) {
    host->bias_type = c_.d_type == FP8KIT_DTYPE_F16 ? FP8KIT_DTYPE_F16 : FP8KIT_DTYPE_BF16;
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    host->bias.resize(s.n);
    for (auto& v : host->bias)
      v = host->bias_type == FP8KIT_DTYPE_F16 ? fp8kit::ref::encode_f16(dist(rng)) : fp8kit::ref::encode_bf16(dist(rng));
    void* bias = bias_buf_.reserve(s.n * sizeof(uint16_t));
    BENCH_CUDA(cudaMemcpy(bias, host->bias.data(), s.n * sizeof(uint16_t), cudaMemcpyHostToDevice));
    ops->bias = bias;
    ops->bias_type = host->bias_type;
  }

  // Random scales of `mode` in both layouts (fp8kit's and cuBLASLt's).
  void make_scales(const Shape& s, Mode mode, std::mt19937_64& rng, HostOperands* host, Operands* ops) {
    host->mode = mode;
    const int64_t kb = ceil_div(s.k, kScaleBlock);
    switch (mode) {
      case Mode::Tensor:
        host->a_scale = random_scales(1, rng);
        host->b_scale = random_scales(1, rng);
        break;
      case Mode::TokenChannel:
        host->a_scale = random_scales(s.m, rng);
        host->b_scale = random_scales(s.n, rng);
        break;
      case Mode::Block:
        host->a_scale = random_scales(kb * s.m, rng);
        host->b_scale = random_scales(ceil_div(s.n, kScaleBlock) * kb, rng);
        break;
    }
    ops->a_scale = upload(a_scale_buf_, host->a_scale);
    ops->b_scale = upload(b_scale_buf_, host->b_scale);
    ops->b_scale_lt = mode == Mode::Block
                          ? upload(b_scale_lt_buf_, to_lt_weight_block_scales(host->b_scale, s.n, s.k))
                          : ops->b_scale;
  }

  void run_shape(size_t index) {
    const Shape& s = c_.shapes[index];
    const uint64_t seed = kSeed ^ (static_cast<uint64_t>(index) << 32);
    Operands ops = make_inputs(s, seed);
    std::mt19937_64 rng(seed);
    const SampleSet samples = draw_samples(s.m, s.n, s.k, ops.a, ops.lda, ops.b, ops.ldb, c_.opt.samples, seed);
    HostOperands host;
    if (c_.opt.bias) make_bias(s, rng, &host, &ops);
    for (Mode mode : c_.modes) {
      make_scales(s, mode, rng, &host, &ops);
      run_configuration(s, mode, samples, host, ops);
    }
  }

  // One (shape, mode): each library is checked first; those that pass are
  // timed together, interleaved.
  void run_configuration(const Shape& s, Mode mode, const SampleSet& samples, const HostOperands& host,
                         const Operands& ops) {
    const Expected expected = expected_values(samples, host, c_.d_type);
    Row row;
    row.shape = s;
    row.mode = mode;
    row.flops = 2.0 * s.m * s.n * s.k;
    row.bytes = static_cast<double>(s.m * s.k + s.n * s.k + s.m * s.n * dtype_bytes(c_.d_type)) +
                sizeof(float) * static_cast<double>(host.a_scale.size() + host.b_scale.size()) +
                sizeof(uint16_t) * static_cast<double>(host.bias.size());
    row.input_sets = static_cast<int>(ops.sets);
    row.fast_accum = fast_in(mode);
    Fp8kitCall fp8kit;
    std::vector<Timer::Call> calls;
    std::vector<LibResult*> timed;
    if (c_.run_fp8kit && prepare_fp8kit(s, mode, ops, samples, expected, &row.fp8kit, &fp8kit)) {
      calls.push_back([&](int set) { fp8kit.run(ops, set, stream_); });
      timed.push_back(&row.fp8kit);
    }
    int lt_algo = -1;
    if (c_.run_cublaslt && prepare_cublaslt(s, mode, ops, samples, expected, &row.cublaslt, &lt_algo)) {
      calls.push_back([&](int set) { run_lt(lt_algo, ops, set); });
      timed.push_back(&row.cublaslt);
    }
    if (!calls.empty()) {
      const std::vector<Timing> t = timer_->time(c_.opt.warmups, c_.opt.iters, c_.opt.budget_ms, calls);
      for (size_t i = 0; i < timed.size(); ++i) {
        timed[i]->outcome = Outcome::Measured;
        timed[i]->us = t[i].median_us;
        timed[i]->min_us = t[i].min_us;
        timed[i]->runs = t[i].runs;
      }
      row.clock = read_clock(device_);  // the SM clock and power as the timed calls end
      if (c_.opt.graph && s.m <= kDecodeM) time_in_graphs(row.bytes, calls, timed);
    }
    for (LibResult* r : {&row.fp8kit, &row.cublaslt}) {
      if (r->measured()) {
        r->tflops = row.flops / (r->us * 1e6);
        r->gbs = row.bytes / (r->us * 1e3);
      }
      if (r->outcome == Outcome::Failed) ++failures_;
    }
    print_row(row);
    rows_.push_back(row);
  }

  // --graph: each checked library once more, as a replayed graph of
  // kGraphGemms GEMMs on consecutive input sets (weights past L2).
  void time_in_graphs(double bytes, const std::vector<Timer::Call>& calls, const std::vector<LibResult*>& timed) {
    for (size_t i = 0; i < timed.size(); ++i) {
      const GraphTiming g = time_graph(stream_, c_.opt.warmups, c_.opt.iters, calls[i]);
      if (!g.ok) {
        timed[i]->graph_note = g.error;
        continue;
      }
      timed[i]->graph_us = g.us_per_gemm;
      timed[i]->graph_gbs = bytes / (g.us_per_gemm * 1e3);
    }
  }

  void poison(const Shape& s, const Operands& ops) {
    BENCH_CUDA(cudaMemsetAsync(ops.d, kPoisonByte, s.m * ops.ldd * dtype_bytes(c_.d_type), stream_));
  }

  // Checks the output of the call just made on input set 0.
  bool checked(LibResult* r, const SampleSet& samples, const Expected& expected, const Operands& ops) {
    BENCH_CUDA(cudaStreamSynchronize(stream_));
    BENCH_CUDA(cudaGetLastError());
    const CheckResult check = check_output(samples, expected, ops.d, ops.ldd, c_.d_type);
    r->check_worst = check.worst;
    if (check.pass) return true;
    r->outcome = Outcome::Failed;
    r->note = std::to_string(check.failures) + "/" + std::to_string(samples.entries.size()) +
              " samples wrong, first " + check.first_failure;
    return false;
  }

  // One configuration's fp8kit call, kept alive while it is timed.
  struct Fp8kitCall {
    fp8kit_gemm_desc desc = FP8KIT_GEMM_DESC_INIT;
    fp8kit_gemm_options options = FP8KIT_GEMM_OPTIONS_INIT;
    fp8kit_status launch(const Operands& ops, int set, cudaStream_t stream) {
      desc.op.a = ops.a_set(set);
      desc.op.b = ops.b_set(set);
      return fp8kit_gemm(&desc, &options, stream);
    }
    void run(const Operands& ops, int set, cudaStream_t stream) {
      const fp8kit_status st = launch(ops, set, stream);
      if (st != FP8KIT_STATUS_SUCCESS)
        throw CudaFailure(std::string("fp8kit_gemm: ") + fp8kit_status_name(st) + ": " + fp8kit_last_error());
    }
  };

  // Sets up fp8kit for the configuration, runs it once on input set 0 and
  // checks it. False (with r set to n/a or FAIL) where it is not to be timed.
  bool prepare_fp8kit(const Shape& s, Mode mode, const Operands& ops, const SampleSet& samples,
                      const Expected& expected, LibResult* r, Fp8kitCall* call) {
    fp8kit_gemm_desc& desc = call->desc;
    desc.m = s.m;
    desc.n = s.n;
    desc.k = s.k;
    desc.op.a = ops.a;
    desc.op.lda = ops.lda;
    desc.op.a_type = FP8KIT_DTYPE_E4M3;
    desc.op.b = ops.b;
    desc.op.ldb = ops.ldb;
    desc.op.b_type = FP8KIT_DTYPE_E4M3;
    desc.op.d = ops.d;
    desc.op.ldd = ops.ldd;
    desc.op.d_type = c_.d_type;
    desc.op.a_scale_mode = a_scale_mode(mode);
    desc.op.a_scale = ops.a_scale;
    desc.op.b_scale_mode = b_scale_mode(mode);
    desc.op.b_scale = ops.b_scale;
    desc.op.bias = ops.bias;
    desc.op.bias_type = ops.bias_type;
    fp8kit_gemm_options& options = call->options;
    fp8kit_gemm_options_init(&options);
    if (c_.path_given) options.path = c_.path;
    if (fast_in(mode)) options.accumulation = FP8KIT_ACCUMULATION_FAST;

    auto unavailable = [&](fp8kit_status st) {
      if (st != FP8KIT_STATUS_UNSUPPORTED && st != FP8KIT_STATUS_INVALID_ARGUMENT)
        throw CudaFailure(std::string("fp8kit: ") + fp8kit_status_name(st) + ": " + fp8kit_last_error());
      r->outcome = Outcome::NotAvailable;
      r->note = std::string(fp8kit_status_name(st)) + ": " + fp8kit_last_error();
      return false;
    };
    fp8kit_path path = FP8KIT_PATH_AUTO;
    fp8kit_status st = fp8kit_gemm_select(&desc, &options, &path);
    if (st != FP8KIT_STATUS_SUCCESS) return unavailable(st);
    r->path = fp8kit_path_name(path);
    size_t workspace = 0;
    st = fp8kit_gemm_workspace_size(&desc, &options, &workspace);
    if (st != FP8KIT_STATUS_SUCCESS) return unavailable(st);
    if (workspace) {
      // Zeroed once, then fp8kit's alone on stream_: no memset per call
      // (fp8kit_gemm_options.workspace_zeroed).
      options.workspace = workspace_buf_.reserve_zeroed(workspace);
      options.workspace_size = workspace;
      options.workspace_zeroed = 1;
    }
    poison(s, ops);
    st = call->launch(ops, 0, stream_);
    if (st != FP8KIT_STATUS_SUCCESS) return unavailable(st);
    return checked(r, samples, expected, ops);
  }

  // --accumulate fast applies to the modes without block scales.
  bool fast_in(Mode mode) const { return c_.fast_accum && mode != Mode::Block; }

  void run_lt(int algo, const Operands& ops, int set) {
    const cublasStatus_t st = lt_->run(algo, ops.a_set(set), ops.b_set(set), ops.d, stream_);
    if (st != CUBLAS_STATUS_SUCCESS) throw CudaFailure(std::string("cublasLtMatmul: ") + cublasLtGetStatusName(st));
  }

  // Sets up cuBLASLt, keeps the fastest heuristic candidate (each timed
  // briefly), runs it once on input set 0 and checks it.
  bool prepare_cublaslt(const Shape& s, Mode mode, const Operands& ops, const SampleSet& samples,
                        const Expected& expected, LibResult* r, int* algo_out) {
    LtProblem p;
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.lda = ops.lda;
    p.ldb = ops.ldb;
    p.ldd = ops.ldd;
    p.d_type = c_.d_type;
    p.mode = mode;
    p.fast_accum = fast_in(mode);
    p.a_scale = ops.a_scale;
    p.b_scale_lt = ops.b_scale_lt;
    p.bias = ops.bias;
    p.bias_type = ops.bias_type;
    std::string why;
    if (!lt_->prepare(p, &why)) {
      r->outcome = Outcome::NotAvailable;
      r->note = why;
      return false;
    }
    int best = -1;
    double best_us = 0.0;
    int ran = 0;
    for (int algo = 0; algo < lt_->algorithm_count(); ++algo) {
      if (lt_->run(algo, ops.a, ops.b, ops.d, stream_) != CUBLAS_STATUS_SUCCESS) continue;
      ++ran;
      const Timing t = timer_->time(kAlgoWarmups, kAlgoIters, c_.opt.budget_ms, [&](int set) { run_lt(algo, ops, set); });
      if (best < 0 || t.median_us < best_us) {
        best = algo;
        best_us = t.median_us;
      }
    }
    if (best < 0) {
      r->outcome = Outcome::NotAvailable;
      r->note = "no heuristic algorithm ran";
      return false;
    }
    r->algorithm = best;
    r->algorithm_count = ran;
    *algo_out = best;
    poison(s, ops);
    run_lt(best, ops, 0);
    return checked(r, samples, expected, ops);
  }

  void write_json(const std::vector<ModeSummary>& summaries, int driver, int runtime) {
    RunRecord run;
    run.gpu_name = prop_.name;
    run.compute_capability = std::to_string(prop_.major) + "." + std::to_string(prop_.minor);
    run.sms = prop_.multiProcessorCount;
    run.l2_bytes = prop_.l2CacheSize;
    run.memory_bytes = static_cast<long long>(prop_.totalGlobalMem);
    run.cuda_driver_api = driver;
    run.cuda_runtime = runtime;
    run.cublaslt_version = CublasLtGemm::version();
    run.copy_gbs = copy_gbs_;
    run.config = config_json(c_);
    run.config["timing_gap_warning"] = timer_->any_timeout();
    run.auto_paths = auto_paths_;
    run.failures = failures_;
    write_json_file(c_.opt.json, run, summaries, rows_);
    std::printf("wrote %s\n", c_.opt.json.c_str());
  }

  const Config& c_;
  int device_ = 0;
  cudaDeviceProp prop_{};
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<Timer> timer_;
  std::unique_ptr<CublasLtGemm> lt_;
  DeviceBuffer a_buf_, b_buf_, d_buf_, workspace_buf_, a_scale_buf_, b_scale_buf_, b_scale_lt_buf_, bias_buf_;
  double copy_gbs_ = 0.0;
  std::vector<std::string> auto_paths_;
  std::vector<Row> rows_;
  int failures_ = 0;
};

}  // namespace

int run_bench(const Config& config) {
  Bench bench(config);
  return bench.run();
}

}  // namespace fp8bench
