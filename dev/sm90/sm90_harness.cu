// Developer harness of the native Hopper path (sm90_wgmma), built with
// -DFP8KIT_BUILD_DEV=ON (target sm90_harness). Correctness goes through the
// reference library (src/reference: random problems, float64 reference,
// error bound); forced tiles and split counts through the path's dev header
// (src/gemm/sm90/dev_api.hpp); timing over bench/shapes.json.
//
//   sm90_harness check [quick]                 shapes x modes x types, plus forced plans
//   sm90_harness sanitize                      small cases over every tile and split-K (for compute-sanitizer)
//   sm90_harness bench MODE SUITE [M,N,K ...]  the plan's time per shape (MODE: tensor|token-channel|block)
//   sm90_harness sweep MODE SUITE [M,N,K ...]  every tile x split candidate per shape (workspace and cluster)
//   --accumulate fast (after SUITE)          bench or sweep with FAST accumulation (vector modes)
//   --unsplit (after SUITE)                  sweep the tiles' unsplit plans only (what fit_tile_costs.py reads)
//
// Exit status 0 only if every check passed (2: bad usage, 3: CUDA failure).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "api/operand_checks.hpp"
#include "bench/common.hpp"
#include "bench/suite.hpp"
#include "gemm/sm90/dev_api.hpp"
#include "reference/fp8_codec.hpp"
#include "reference/gemm_check.hpp"

using namespace fp8kit;

namespace {

#define HARNESS_CUDA(call) BENCH_CUDA(call)

constexpr size_t kWorkspace = size_t{256} << 20;

// The harness's one workspace, zero-filled once: forced plans and timings
// run with the zeroed promise (no memset per launch), so every run after the
// first also checks that the one before left its split-K counters at zero.
void zero_fill(const ref::DeviceBuffer& ws) { HARNESS_CUDA(cudaMemset(ws.get(), 0, kWorkspace)); }

DeviceInfo device_info() {
  DeviceInfo d;
  cudaDeviceProp pr;
  HARNESS_CUDA(cudaGetDevice(&d.device));
  HARNESS_CUDA(cudaGetDeviceProperties(&pr, d.device));
  d.cap = pr.major * 10 + pr.minor;
  d.sm_count = pr.multiProcessorCount;
  d.smem_per_block_optin = static_cast<int>(pr.sharedMemPerBlockOptin);
  d.smem_per_sm = static_cast<int>(pr.sharedMemPerMultiprocessor);
  d.l2_bytes = pr.l2CacheSize;
  std::snprintf(d.name, sizeof d.name, "%s", pr.name);
  return d;
}

// The path's view of a public descriptor (the library validated the same
// descriptors in the plain runs; the harness builds only valid ones).
GemmParams params_of(const fp8kit_gemm_desc& d) {
  GemmParams p = operand_params(d.op, d.n, d.k);
  p.m = static_cast<int>(d.m);
  return p;
}

struct Forced {
  sm90::Shape shape;
  int splits;
  bool workspace = true;
  bool fast = false;  // FAST accumulation (the case's accumulation must say so too)
};

struct Tally {
  int total = 0, failed = 0;
  void add(const ref::GemmCase& c, const ref::GemmOutcome& o, const char* how) {
    ++total;
    const bool ok = o.status == FP8KIT_STATUS_SUCCESS && o.failures == 0 && o.unwritten == 0 && o.clobbered == 0;
    failed += !ok;
    std::printf("%s %-60s %-26s worst/bound %.2f norm %.2e bad %lld unwritten %lld clobbered %lld %s\n",
                ok ? "PASS" : "FAIL", c.label().c_str(), how, o.worst_ratio, o.rel_norm_err,
                static_cast<long long>(o.failures), static_cast<long long>(o.unwritten),
                static_cast<long long>(o.clobbered), o.message.c_str());
  }
  int finish(const char* what) const {
    std::printf("%s: %d / %d passed\n", what, total - failed, total);
    return failed ? fp8bench::kExitFindings : fp8bench::kExitOk;
  }
};

// One case through the public API (the plan's choice), or with a forced plan.
void run(const ref::GemmCase& c, const DeviceInfo& dev, void* ws, const Forced* forced, std::mt19937_64& rng,
         Tally& tally) {
  if (!forced) return tally.add(c, ref::run_case(c, FP8KIT_PATH_SM90_WGMMA, rng), "plan");
  ref::Problem prob(c, rng);
  prob.poison();
  const GemmParams p = params_of(prob.desc());
  LaunchEnv env;
  env.workspace = forced->workspace ? ws : nullptr;
  env.workspace_size = forced->workspace ? kWorkspace : 0;
  env.workspace_zeroed = forced->workspace;  // zeroed by zero_fill(), left so by every run
  env.fast_accumulation = forced->fast;
  const sm90::Plan pl = sm90::plan_for(forced->shape, forced->splits, p.m, p.n, p.k, dev.sm_count,
                                       env.workspace_size);
  const char* kernel = "";
  HARNESS_CUDA(sm90::launch_plan(p, dev, env, nullptr, pl, &kernel));
  HARNESS_CUDA(cudaDeviceSynchronize());
  tally.add(c, prob.check(FP8KIT_PATH_SM90_WGMMA, rng), (std::string(kernel) + " splits " + std::to_string(pl.splits)).c_str());
}

constexpr fp8kit_dtype E4 = FP8KIT_DTYPE_E4M3, E5 = FP8KIT_DTYPE_E5M2, BF = FP8KIT_DTYPE_BF16,
                       H = FP8KIT_DTYPE_F16, F = FP8KIT_DTYPE_F32;
constexpr fp8kit_dtype kTypePairs[][2] = {{E4, E4}, {E4, E5}, {E5, E4}, {E5, E5}};
constexpr fp8kit_dtype kOuts[] = {BF, H, F};

ref::GemmCase make_case(int64_t m, int64_t n, int64_t k, int rot, fp8kit_scale_mode am, fp8kit_scale_mode bm) {
  ref::GemmCase c{m, n, k};
  c.a_type = kTypePairs[rot % 4][0];
  c.b_type = kTypePairs[rot % 4][1];
  c.d_type = kOuts[rot % 3];
  c.a_mode = am;
  c.b_mode = bm;
  c.bias = rot % 4 != 3;
  c.bias_type = kOuts[(rot / 3) % 3];
  c.lda_pad = rot % 2 ? 16 : 0;
  c.ldd_pad = rot % 3 == 1 ? 8 : 0;
  c.align_d_rows();
  return c;
}

// Every tile (both scale kinds' twins) with and without split-K on small
// ragged shapes: the sanitizers slow kernels by orders of magnitude.
int sanitize() {
  const DeviceInfo dev = device_info();
  const ref::DeviceBuffer ws(kWorkspace);
  zero_fill(ws);
  std::mt19937_64 rng(777);
  Tally tally;
  struct TileCase { sm90::Shape shape; bool block; int64_t m, n, k; };
  const TileCase tiles[] = {
      {sm90::Shape::k128x64Swap, false, 17, 600, 4160}, {sm90::Shape::k128x64SwapBlock, true, 17, 600, 4160},
      {sm90::Shape::k128x128, false, 200, 300, 1040},   {sm90::Shape::k128x128Block, true, 200, 300, 1040},
      {sm90::Shape::k256x128, false, 300, 520, 1040},   {sm90::Shape::k256x128Block, true, 300, 520, 1040},
      {sm90::Shape::k128x192, false, 200, 500, 1040},   {sm90::Shape::k128x192Block, true, 200, 500, 1040},
      {sm90::Shape::k128x256, false, 200, 600, 1040},  // FAST only
      {sm90::Shape::k128x160, false, 200, 500, 1040},   {sm90::Shape::k128x160Block, true, 200, 500, 1040}};
  int rot = 0;
  for (const TileCase& t : tiles)
    for (int splits : {1, 2}) {
      ref::GemmCase c = t.block ? make_case(t.m, t.n, t.k, rot++, FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK)
                              : make_case(t.m, t.n, t.k, rot++, FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL);
      const bool fast = sm90::row(t.shape).fast_only;
      if (fast) c.accumulation = FP8KIT_ACCUMULATION_FAST;
      const Forced f{t.shape, splits, true, fast};
      run(c, dev, ws.get(), &f, rng, tally);
    }
  // The plan's own choices on a tiny and a decode split-K shape.
  run(make_case(1, 129, 16, 0, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR), dev, ws.get(), nullptr, rng, tally);
  run(make_case(5, 300, 8320, 1, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR), dev, ws.get(), nullptr, rng, tally);
  return tally.finish("sanitize");
}

int check(bool quick) {
  const DeviceInfo dev = device_info();
  const ref::DeviceBuffer ws(kWorkspace);
  zero_fill(ws);
  std::mt19937_64 rng(12345);
  Tally tally;
  struct Shape { int64_t m, n, k; };
  std::vector<Shape> shapes = {{1, 129, 16},     {17, 2112, 7168},  {333, 1000, 528}, {64, 256, 256},
                               {65, 300, 1040},  {128, 7168, 2048}, {16, 4096, 4096}, {512, 2112, 7168},
                               {1000, 2100, 1040},                  // the 256 x 128 tile
                               {5, 300, 8320},   {200, 300, 4224}};  // split-K: decode (8), 128 x 128 (4)
  if (!quick) shapes.push_back({4095, 4097, 4096});
  const fp8kit_scale_mode modes[][2] = {{FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE},
                                        {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR},
                                        {FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL},
                                        {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_COL},
                                        {FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK}};
  int rot = 0;
  for (const Shape& s : shapes)
    for (const auto& md : modes)
      for (int v = 0; v < (quick ? 1 : 2); ++v, ++rot) {
        if (v > 0 && s.m * s.n > (int64_t{1} << 22)) continue;
        run(make_case(s.m, s.n, s.k, rot, md[0], md[1]), dev, ws.get(), nullptr, rng, tally);
      }
  // The 256 x 128 and 128 x 192 tiles with split-K (ragged M, N and K), and a split plan without workspace.
  for (int block = 0; block < 2; ++block)
    for (int splits : {2, 3}) {
      const auto am = block ? FP8KIT_SCALE_BLOCK : FP8KIT_SCALE_ROW, bm = block ? FP8KIT_SCALE_BLOCK : FP8KIT_SCALE_COL;
      const Forced f{block ? sm90::Shape::k256x128Block : sm90::Shape::k256x128, splits};
      run(make_case(1000, 2100, 1040, rot++, am, bm), dev, ws.get(), &f, rng, tally);
      const Forced n{block ? sm90::Shape::k128x192Block : sm90::Shape::k128x192, splits};
      run(make_case(1000, 2100, 1040, rot++, am, bm), dev, ws.get(), &n, rng, tally);
    }
  const Forced no_ws{sm90::Shape::k128x64Swap, 2, false};
  run(make_case(5, 300, 8320, 0, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR), dev, ws.get(), &no_ws, rng, tally);
  return tally.finish("check");
}

// ---- Timing -------------------------------------------------------------------------
__global__ void fill_fp8(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;  // a hash: any e4m3 of exponent 2^-3 .. 2^2
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = static_cast<uint8_t>(((h & 1) << 7) | ((4 + (h >> 1) % 6) << 3) | ((h >> 8) & 7));
  }
}
__global__ void fill_f32(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) p[i] = v;
}

constexpr size_t kRotateBytes = size_t{512} << 20;  // input sets rotated past the 60 MB L2
constexpr int kMaxSets = 8;

// Median microseconds of `launch(i)` (i: the input set) in groups of back-to-back launches.
template <typename Launch>
double time_us(Launch&& launch) {
  cudaEvent_t e0, e1;
  HARNESS_CUDA(cudaEventCreate(&e0));
  HARNESS_CUDA(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) launch(i);
  HARNESS_CUDA(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < 15; ++r) {
    constexpr int kPer = 10;
    HARNESS_CUDA(cudaEventRecord(e0));
    for (int i = 0; i < kPer; ++i) launch(r * kPer + i);
    HARNESS_CUDA(cudaEventRecord(e1));
    HARNESS_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    HARNESS_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1e3f / kPer);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void time_shape(const fp8bench::Shape& s, fp8bench::Mode mode, bool sweep, bool fast, bool unsplit,
                const DeviceInfo& dev, void* ws) {
  const int64_t m = s.m, n = s.n, k = s.k, kb = ceil_div(k, kScaleBlock);
  const size_t ab = static_cast<size_t>((m + n) * k);
  const int sets = static_cast<int>(std::clamp<size_t>(kRotateBytes / ab + 1, 1, kMaxSets));
  // D bf16, its rows padded to 16 bytes (a ragged N such as 4097).
  constexpr int64_t kBf16 = 2;
  const int64_t ldd = ceil_div(n * kBf16, kBaseAlign) * kBaseAlign / kBf16;
  ref::DeviceBuffer A(static_cast<size_t>(m * k) * sets), B(static_cast<size_t>(n * k) * sets), D(m * ldd * kBf16);
  const size_t na = std::max(kb * m, m), nb = std::max(kb * ceil_div(n, kScaleBlock), n);
  ref::DeviceBuffer SA(na * sizeof(float)), SB(nb * sizeof(float));
  fill_fp8<<<1024, 256>>>(static_cast<uint8_t*>(A.get()), static_cast<size_t>(m * k) * sets, 1);
  fill_fp8<<<1024, 256>>>(static_cast<uint8_t*>(B.get()), static_cast<size_t>(n * k) * sets, 2);
  fill_f32<<<256, 256>>>(static_cast<float*>(SA.get()), na, 0.75f);
  fill_f32<<<256, 256>>>(static_cast<float*>(SB.get()), nb, 1.25f);
  HARNESS_CUDA(cudaGetLastError());
  fp8kit_gemm_desc d = FP8KIT_GEMM_DESC_INIT;
  d.m = m, d.n = n, d.k = k, d.op.lda = k, d.op.ldb = k, d.op.ldd = ldd;
  d.op.a_type = d.op.b_type = E4, d.op.d_type = BF;
  d.op.a_scale_mode = fp8bench::a_scale_mode(mode), d.op.b_scale_mode = fp8bench::b_scale_mode(mode);
  d.op.a_scale = static_cast<const float*>(SA.get()), d.op.b_scale = static_cast<const float*>(SB.get());
  d.op.d = D.get();
  GemmParams p = params_of(d);
  LaunchEnv env;
  env.workspace = ws;
  env.workspace_size = kWorkspace;
  env.workspace_zeroed = true;
  env.fast_accumulation = fast;
  const bool block = mode == fp8bench::Mode::Block;
  const sm90::ClusterFit fit = sm90::cluster_fit(dev);
  const sm90::Plan chosen =
      sm90::make_plan(p.m, p.n, p.k, block, dev.sm_count, kWorkspace, sm90::ClusterForce::kPlan, fit, fast);
  std::vector<sm90::Plan> plans{chosen};
  if (sweep) {
    plans.clear();
    std::vector<sm90::Shape> tiles{block ? sm90::Shape::k128x128Block : sm90::Shape::k128x128,
                                  block ? sm90::Shape::k256x128Block : sm90::Shape::k256x128,
                                  block ? sm90::Shape::k128x192Block : sm90::Shape::k128x192,
                                  block ? sm90::Shape::k128x160Block : sm90::Shape::k128x160};
    if (fast) tiles.push_back(sm90::Shape::k128x256);
    if (chosen.swap) tiles = {chosen.shape};
    // Split-K where the unsplit grid leaves SMs idle (the plan splits no full grid).
    for (sm90::Shape t : tiles)
      for (int splits : {1, 2, 3, 4, 6, 8, 12, 16}) {
        const sm90::Plan pl = sm90::plan_for(t, splits, p.m, p.n, p.k, dev.sm_count, kWorkspace);
        const bool full = int64_t{pl.tiles_x} * pl.tiles_y >= dev.sm_count;
        if (pl.splits == splits && (splits == 1 || (!full && !unsplit))) plans.push_back(pl);
      }
    // Cluster splits (cluster_split.cuh) that run in one wave.
    for (sm90::Shape t : unsplit ? std::vector<sm90::Shape>{} : tiles)
      for (int s = 2; s <= sm90::kMaxClusterSplit; ++s) {
        const sm90::Plan pl = sm90::cluster_split_plan(t, s, p.m, p.n, p.k, dev.sm_count);
        if (pl.cluster_splits == s && pl.grid <= fit.ctas[s] && (s - 1) * pl.kb_per_split < pl.k_blocks)
          plans.push_back(pl);
      }
  }
  const double flop = 2.0 * m * n * k, bytes = static_cast<double>(ab + m * n * 2);
  for (const sm90::Plan& pl : plans) {
    const char* kernel = "";
    const double us = time_us([&](int i) {
      p.a = static_cast<const uint8_t*>(A.get()) + static_cast<size_t>(i % sets) * m * k;
      p.b = static_cast<const uint8_t*>(B.get()) + static_cast<size_t>(i % sets) * n * k;
      HARNESS_CUDA(sm90::launch_plan(p, dev, env, nullptr, pl, &kernel));
    });
    const bool is_plan = pl.shape == chosen.shape && pl.splits == chosen.splits && pl.cluster == chosen.cluster &&
                         pl.cluster_splits == chosen.cluster_splits;
    std::printf("%-7s%s %5lld %6lld %6lld %-22s splits %2d%s units %5d %9.1f us %7.1f TFLOP/s %7.1f GB/s%s\n",
                fp8bench::mode_name(mode), fast ? ",fast" : "", static_cast<long long>(m), static_cast<long long>(n),
                static_cast<long long>(k), kernel, pl.splits, pl.cluster_splits > 1 ? " cluster" : "", pl.num_units, us,
                flop / us * 1e-6, bytes / us * 1e-3, sweep && is_plan ? "  <- plan" : "");
    std::fflush(stdout);
  }
}

int bench(int argc, char** argv, bool sweep) {
  fp8bench::Mode mode;
  if (argc < 4 || !fp8bench::parse_mode(argv[2], &mode))
    throw fp8bench::BadArgs("usage: bench|sweep MODE SUITE [--accumulate fast|promote] [--unsplit] [M,N,K ...]");
  std::vector<fp8bench::ShapeFilter> filters;
  bool fast = false, unsplit = false;
  for (int i = 4; i < argc; ++i) {
    if (std::string(argv[i]) == "--unsplit") {
      unsplit = true;
      continue;
    }
    if (std::string(argv[i]) == "--accumulate") {
      const std::string how = i + 1 < argc ? argv[++i] : "";
      if (how != "fast" && how != "promote") throw fp8bench::BadArgs("--accumulate takes fast or promote");
      if (how == "fast" && mode == fp8bench::Mode::Block) throw fp8bench::BadArgs("block scales always promote");
      fast = how == "fast";
      continue;
    }
    fp8bench::ShapeFilter f;
    if (!fp8bench::parse_filter(argv[i], &f)) throw fp8bench::BadArgs(std::string("bad shape filter ") + argv[i]);
    filters.push_back(f);
  }
  const DeviceInfo dev = device_info();
  const ref::DeviceBuffer ws(kWorkspace);
  zero_fill(ws);
  for (const fp8bench::Shape& s : fp8bench::load_suite(argv[3], false, filters))
    time_shape(s, mode, sweep, fast, unsplit, dev, ws.get());
  return fp8bench::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "check";
  try {
    if (cmd == "check") return check(argc > 2 && std::string(argv[2]) == "quick");
    if (cmd == "sanitize") return sanitize();
    if (cmd == "bench" || cmd == "sweep") return bench(argc, argv, cmd == "sweep");
    std::fprintf(stderr,
                 "usage: sm90_harness check [quick] | sanitize | bench|sweep MODE SUITE [--accumulate fast|promote] "
                 "[--unsplit] [M,N,K ...]\n");
    return fp8bench::kExitBadInput;
  } catch (const fp8bench::BadArgs& e) {
    std::fprintf(stderr, "sm90_harness: %s\n", e.what());
    return fp8bench::kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sm90_harness: %s\n", e.what());
    return fp8bench::kExitCuda;
  }
}
