// Native Hopper FP8 GEMM path (sm_90a only), host side: tensor maps, the
// kernel arguments in X / Y terms, the launch and the registry entry. The
// kernel is kernel.cuh, the plan plan.hpp, the kernels kernel_table.cuh.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_WGMMA
#error "gemm/sm90/path.cu is valid for sm_90a only; its CMake range must exclude this target"
#endif

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <string>

#include "core/environment.hpp"
#include "fp8kit_build_config.hpp"
#include "gemm/dispatch.hpp"
#include "gemm/sm90/dev_api.hpp"
#include "gemm/sm90/host_launch.hpp"
#include "gemm/sm90/kernel.cuh"
#include "gemm/sm90/kernel_table.cuh"
#include "gemm/sm90/plan.hpp"

namespace fp8kit {
namespace {

using sm90::Kernel;
using sm90::Kind;
using sm90::Shape;

// Largest coordinate a tile may start at: rows and columns stay int-safe.
constexpr int64_t kMaxExtent = INT_MAX - 2 * sm90::kMaxBlockM;

std::atomic<uint64_t> g_smem_set[sm90::kShapeCount][2][2];  // sm90::allow_smem's masks, per kernel
std::atomic<int> g_resident_pairs[sm90::kAttrDevices];  // sm90::resident_clusters's answers (2-CTA clusters)
// sm90::cluster_fit's resident_clusters answers, per cluster size and device.
std::atomic<int> g_split_clusters[sm90::kMaxClusterSplit + 1][sm90::kAttrDevices];

cudaError_t allow_kernel_smem(const Kernel& kern, Shape s, fp8kit_dtype tx, fp8kit_dtype ty, int device) {
  return sm90::allow_smem(reinterpret_cast<const void*>(kern.fn), kern.smem, device,
                          g_smem_set[static_cast<int>(s)][sm90::type_slot(tx)][sm90::type_slot(ty)]);
}

bool is_block(const GemmParams& p) { return p.a_scale_mode == FP8KIT_SCALE_BLOCK; }

bool accepts(const GemmParams& p, const DeviceInfo& dev, std::string* why) {
  std::string no = sm90::hopper_refusal(dev, sm90::max_smem<Kind::kDense>());
  if (no.empty() && (p.m > kMaxExtent || p.n > kMaxExtent)) no = "sm90_wgmma takes M and N below 2^31 - 256";
  if (no.empty() && sm90::encode_fn() == nullptr)
    no = "sm90_wgmma needs cuTensorMapEncodeTiled (CUDA driver 12.0 or newer)";
  if (why) *why = no;
  return no.empty();
}

sm90::Plan plan_of(const GemmParams& p, const DeviceInfo& dev, size_t workspace_available, bool fast_accum) {
  // FP8KIT_SM90_CLUSTER (core/environment.hpp) overrides the plan's 2-CTA
  // clusters for tests and benchmarks; tiles without cluster code and split-K
  // plans keep cluster 1 (sm90::cluster_legal). FP8KIT_SM90_CLUSTER_SPLIT
  // forces decode's cluster split.
  const Environment& env = environment();
  return sm90::make_plan(p.m, p.n, p.k, is_block(p), dev.sm_count, workspace_available, env.sm90_cluster,
                         sm90::cluster_fit(dev), fast_accum, env.sm90_cluster_split);
}

// The accumulation mode moves only full-grid tiles, which never split (make_plan).
size_t workspace_size(const GemmParams& p, const DeviceInfo& dev) {
  return plan_of(p, dev, SIZE_MAX, false).workspace_bytes();
}

// A and B as sides, and the plan's X / Y views of them. A's block scales are
// [k_blocks, M] (the per-row side's K-block stride is M). The shared side of
// a 2-CTA cluster loads boxes of half a tile (cluster.cuh).
sm90::Views dense_views(const GemmParams& p, const sm90::Plan& pl) {
  const sm90::Side a{p.a, p.lda, p.a_type, p.m, {p.a_scale_mode, p.a_scale, p.m, 0}, pl.swap ? pl.block_n : pl.block_m};
  const sm90::Side b{p.b, p.ldb, p.b_type, p.n, {p.b_scale_mode, p.b_scale, 0, 0}, pl.swap ? pl.block_m : pl.block_n};
  sm90::Views v = sm90::views_of(pl.swap, a, b);
  if (pl.cluster > 1) (pl.share_x ? v.x : v.y).box_rows /= 2;
  return v;
}

// The kernel's arguments in X / Y terms (kernel_args.hpp).
sm90::KernelArgs kernel_args(const GemmParams& p, const sm90::Plan& pl, const sm90::Views& v, const LaunchEnv& env) {
  sm90::KernelArgs args{};
  args.rows_x = v.x.rows;
  args.rows_y = v.y.rows;
  args.x_scales = v.x.scales;
  args.y_scales = v.y.scales;
  args.k_blocks = pl.k_blocks;
  args.tiles_x = pl.tiles_x;
  args.tiles_y = pl.tiles_y;
  args.group_x = pl.group_x;
  args.splits = pl.splits;
  args.kb_per_split = pl.kb_per_split;
  args.num_units = pl.num_units;
  args.bias = p.bias;
  args.bias_type = p.bias_type;
  args.d = p.d;
  args.ldd = p.ldd;
  args.d_rows = p.m;
  args.d_cols = p.n;
  args.n_tma = sm90::n_tma_of(p);
  args.d_type = p.d_type;
  args.weights_first = env.programmatic_launch;
  args.fast_accum = env.fast_accumulation;
  args.cluster = {pl.cluster, pl.share_x ? 1 : 0};
  args.partial_regs = pl.partial_regs;
  args.cluster_splits = pl.cluster_splits > 1 ? pl.cluster_splits : 0;
  if (pl.splits > 1 && pl.cluster_splits == 1) {  // the workspace: counters, then partials (plan.hpp)
    args.counters = static_cast<unsigned*>(env.workspace);
    args.partials = reinterpret_cast<float*>(static_cast<char*>(env.workspace) + pl.counter_bytes);
  }
  return args;
}

}  // namespace

namespace sm90 {

// Every dense tile has one CTA per SM (over half the SM's shared memory), so
// the 128 x 128 kernel answers for all of them.
ClusterFit cluster_fit(const DeviceInfo& dev) {
  ClusterFit fit;
  if (dev.device < 0 || dev.device >= kAttrDevices) return fit;
  const Kernel& kern = *kernel_for<Kind::kDense>(Shape::k128x128, FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E4M3);
  if (allow_kernel_smem(kern, Shape::k128x128, FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E4M3, dev.device) != cudaSuccess) {
    cudaGetLastError();  // not sticky; no cluster split then
    return fit;
  }
  for (int s = 2; s <= kMaxClusterSplit; ++s)
    fit.ctas[s] = s * resident_clusters(reinterpret_cast<const void*>(kern.fn), kern.smem, s, dev.device,
                                        g_split_clusters[s]);
  return fit;
}

cudaError_t launch_plan(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                        const Plan& pl, const char** kernel_name) {
  const Views v = dense_views(p, pl);
  if (kernel_name) *kernel_name = sm90::kernel_name<Kind::kDense>(pl.shape, v.x.type, v.y.type);
  const Kernel* kern = kernel_for<Kind::kDense>(pl.shape, v.x.type, v.y.type);
  // A plan names a dense shape; a cluster split needs the tile's cluster-split
  // code (ShapeRow::cluster_split); without it each CTA would store its own
  // K range's sum. A FAST-only tile cannot promote (ShapeRow::fast_only).
  if (kern == nullptr || (pl.cluster_splits > 1 && !row(pl.shape).cluster_split) ||
      (row(pl.shape).fast_only && !env.fast_accumulation))
    return cudaErrorInvalidValue;
  KernelArgs args = kernel_args(p, pl, v, env);
  CUtensorMap map_x{}, map_y{}, map_d{};
  if (!encode(&map_x, v.x.ptr, v.x.rows, p.k, v.x.ld, v.x.box_rows) ||
      !encode(&map_y, v.y.ptr, v.y.rows, p.k, v.y.ld, v.y.box_rows) ||
      !encode_d(&map_d, p, out_chunk_bytes(pl.shape)))
    return cudaErrorInvalidValue;
  // Dense normal block tiles: A's scales by TMA where they encode (kernel_args.hpp).
  CUtensorMap map_s{};
  args.fine_scales_tma = row(pl.shape).block_scales && !pl.swap &&
                         encode_row_scales(&map_s, p.a_scale, p.m, pl.k_blocks, pl.block_m);
  if (pl.splits > 1 && pl.cluster_splits == 1 && !env.workspace_zeroed) {
    // The last split of each tile leaves its counter at zero again, but
    // memory lent without the zeroed promise may hold anything. With it
    // there is no memset, whose graph node would also break the
    // programmatic edge between two GEMMs.
    if (cudaError_t e = cudaMemsetAsync(args.counters, 0, pl.counter_bytes, stream); e != cudaSuccess) return e;
  }

  if (cudaError_t e = allow_kernel_smem(*kern, pl.shape, v.x.type, v.y.type, dev.device); e != cudaSuccess) return e;
  const void* fn = reinterpret_cast<const void*>(kern->fn);
  int grid = pl.grid;
  if (pl.cluster > 1) {  // a persistent grid of clusters that all fit at once
    const int resident = resident_clusters(fn, kern->smem, pl.cluster, dev.device, g_resident_pairs);
    if (resident > 0) grid = std::min(grid, resident * pl.cluster);
  }
  void* kargs[] = {&map_x, &map_y, &map_d, &map_s, &args};
  return launch_kernel(fn, grid, kern->smem, stream, kargs, env.programmatic_launch,
                       pl.cluster_splits > 1 ? pl.cluster_splits : pl.cluster);
}

}  // namespace sm90

namespace {

cudaError_t launch(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                   const char** kernel_name) {
  const size_t avail = env.workspace ? env.workspace_size : 0;
  return sm90::launch_plan(p, dev, env, stream, plan_of(p, dev, avail, env.fast_accumulation), kernel_name);
}

const void* probe() {
  return reinterpret_cast<const void*>(
      sm90::kernel_for<Kind::kDense>(Shape::k128x128, FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E4M3)->fn);
}

}  // namespace

const GemmPath kSm90WgmmaPath{
    FP8KIT_PATH_SM90_WGMMA, arch::kHopperWgmma, &build::sm90_images, &sm90::tensor_cores, &accepts, &workspace_size,
    &launch,                &probe,             {sm90::kKernelName, sm90::kDenseKind},
};

}  // namespace fp8kit
