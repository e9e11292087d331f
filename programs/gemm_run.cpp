#include "gemm_run.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <random>
#include <vector>

namespace fp8kit::cli {
namespace {

// The checked outcome's keys of a result.
void add_outcome(const ref::GemmOutcome& r, nlohmann::json* j) {
  (*j)["checked"] = r.checked;
  (*j)["failures"] = r.failures + r.unwritten + r.clobbered;
  (*j)["worst_error_over_bound"] = r.worst_ratio;
  (*j)["relative_norm_error"] = r.rel_norm_err;
  if (!r.first_failure.empty()) (*j)["first_failure"] = r.first_failure;
  (*j)["ok"] = r.failures == 0 && r.unwritten == 0 && r.clobbered == 0;
}

// Timing: unchecked launches back to back, one event pair each; the median.
template <class Launch>
void add_timing(Launch launch, int iters, double flops, nlohmann::json* j) {
  constexpr int kWarmup = 3;
  std::vector<float> ms(static_cast<size_t>(iters));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < kWarmup; ++i) launch();
  for (int i = 0; i < iters; ++i) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms[static_cast<size_t>(i)], start, stop);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + iters / 2, ms.end());
  const double us = 1e3 * ms[static_cast<size_t>(iters / 2)];
  (*j)["median_us"] = us;
  (*j)["tflops"] = flops / (us * 1e-6) / 1e12;
  (*j)["note"] = "same inputs every repetition (L2-warm); fp8kit_bench rotates inputs and compares with cuBLASLt";
}

}  // namespace

nlohmann::json run_gemm(const GemmRun& run) {
  nlohmann::json j{{"m", run.spec.m}, {"n", run.spec.n}, {"k", run.spec.k}, {"label", run.spec.label()}};
  std::mt19937_64 rng{std::random_device{}()};
  const ref::Problem problem(run.spec, rng);
  problem.poison();
  fp8kit_gemm_options opt;
  fp8kit_gemm_options_init(&opt);
  opt.path = run.path;
  opt.checked = 1;
  opt.accumulation = run.spec.accumulation;
  fp8kit_path chosen = FP8KIT_PATH_AUTO;
  fp8kit_status s = fp8kit_gemm_select(&problem.desc(), &opt, &chosen);
  if (s == FP8KIT_STATUS_SUCCESS) s = fp8kit_gemm(&problem.desc(), &opt, nullptr);
  j["status"] = fp8kit_status_name(s);
  j["path"] = fp8kit_path_name(chosen == FP8KIT_PATH_AUTO ? run.path : chosen);  // a refused forced path: its name
  if (s != FP8KIT_STATUS_SUCCESS) {
    j["ok"] = false;
    j["message"] = fp8kit_last_error();
    return j;
  }
  const ref::GemmOutcome r = problem.check(chosen, rng);
  add_outcome(r, &j);
  if (run.iters <= 0) return j;

  opt.checked = 0;
  add_timing([&] { fp8kit_gemm(&problem.desc(), &opt, nullptr); }, run.iters,
             2.0 * run.spec.m * run.spec.n * run.spec.k, &j);
  return j;
}

nlohmann::json run_nvfp4_gemm(const Nvfp4Run& run) {
  const ref::Nvfp4Case& spec = run.spec;
  nlohmann::json j{{"m", spec.m}, {"n", spec.n}, {"k", spec.k}, {"label", "nvfp4 " + spec.label()}};
  std::mt19937_64 rng{std::random_device{}()};
  const ref::Nvfp4Problem problem(spec, rng);
  problem.poison();
  fp8kit_gemm_options opt = FP8KIT_GEMM_OPTIONS_INIT;
  opt.path = run.path;
  opt.checked = 1;
  size_t lent = 0;  // what the call asks for (Hopper: NVFP4 A beyond decode widened to bf16)
  fp8kit_status s = fp8kit_nvfp4_gemm_workspace_size(&problem.desc(), &opt, &lent);
  const ref::DeviceBuffer workspace(std::max<size_t>(lent, 1));
  if (lent) opt.workspace = workspace.get(), opt.workspace_size = lent;
  fp8kit_path chosen = FP8KIT_PATH_AUTO;
  if (s == FP8KIT_STATUS_SUCCESS) s = fp8kit_nvfp4_gemm_select(&problem.desc(), &opt, &chosen);
  if (s == FP8KIT_STATUS_SUCCESS) s = fp8kit_nvfp4_gemm(&problem.desc(), &opt, nullptr);
  j["status"] = fp8kit_status_name(s);
  j["path"] = fp8kit_path_name(chosen == FP8KIT_PATH_AUTO ? run.path : chosen);  // a refused forced path: its name
  j["workspace_bytes"] = lent;
  if (s != FP8KIT_STATUS_SUCCESS) {
    j["ok"] = false;
    j["message"] = fp8kit_last_error();
    return j;
  }
  const ref::GemmOutcome r = problem.check(chosen, rng);
  add_outcome(r, &j);
  if (run.iters <= 0) return j;
  opt.checked = 0;
  add_timing([&] { fp8kit_nvfp4_gemm(&problem.desc(), &opt, nullptr); }, run.iters, 2.0 * spec.m * spec.n * spec.k,
             &j);
  return j;
}

}  // namespace fp8kit::cli
