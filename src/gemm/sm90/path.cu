// Native Hopper FP8 GEMM path (sm_90a only), host side: tensor maps, the
// kernel arguments in X / Y terms, the launch and the registry entry. The
// kernel is kernel.cuh, the plan plan.hpp.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_WGMMA
#error "gemm/sm90/path.cu is valid for sm_90a only; its CMake range must exclude this target"
#endif

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <string>

#include "core/dtype.hpp"
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

using sm90::Tile;
using sm90::Kernel;
using sm90::encode;
using sm90::encode_d;
using sm90::encode_fn;
using sm90::n_tma_of;

constexpr fp8kit_dtype E5 = FP8KIT_DTYPE_E5M2;
constexpr int kTiles = sm90::kTileCount;
// Largest coordinate a tile may start at: rows and columns stay int-safe.
constexpr int64_t kMaxExtent = INT_MAX - 2 * sm90::kMaxBlockM;

// [tile][X type][Y type]
#define FP8KIT_SM90_ENTRIES(T, TNAME) FP8KIT_SM90_KERNEL_ROW(T, "sm90_fp8_gemm", TNAME)
const Kernel kKernels[kTiles][2][2] = {
    FP8KIT_SM90_ENTRIES(Tile::k128x128, "128x128"),
    FP8KIT_SM90_ENTRIES(Tile::k128x128Block, "128x128,block"),
    FP8KIT_SM90_ENTRIES(Tile::k128x64Swap, "128x64,swap"),
    FP8KIT_SM90_ENTRIES(Tile::k128x64SwapBlock, "128x64,swap,block"),
    FP8KIT_SM90_ENTRIES(Tile::k256x128, "256x128"),
    FP8KIT_SM90_ENTRIES(Tile::k256x128Block, "256x128,block"),
    FP8KIT_SM90_ENTRIES(Tile::k128x192, "128x192"),
    FP8KIT_SM90_ENTRIES(Tile::k128x192Block, "128x192,block"),
};
static_assert(static_cast<int>(Tile::k128x192Block) + 1 == kTiles, "one row of kKernels per tile");
#undef FP8KIT_SM90_ENTRIES

std::atomic<uint64_t> g_smem_set[kTiles][2][2];  // sm90::allow_smem's masks
std::atomic<int> g_resident_pairs[sm90::kAttrDevices];  // sm90::resident_clusters's answers (2-CTA clusters)

cudaError_t allow_kernel_smem(const Kernel& kern, int device) {
  const int t = static_cast<int>(&kern - &kKernels[0][0][0]);
  return sm90::allow_smem(reinterpret_cast<const void*>(kern.fn), kern.smem, device, (&g_smem_set[0][0][0])[t]);
}

int max_smem() { return sm90::max_smem(kKernels); }

// sm90::cluster_fit's resident_clusters answers, per cluster size and device.
std::atomic<int> g_split_clusters[sm90::kMaxClusterSplit + 1][sm90::kAttrDevices];

bool is_block(const GemmParams& p) { return p.a_scale_mode == FP8KIT_SCALE_BLOCK; }

fp8kit_tensor_cores tensor_cores(int cap) {
  return arch::kHopperWgmma.contains(cap) ? FP8KIT_TC_NATIVE : FP8KIT_TC_NONE;
}

bool accepts(const GemmParams& p, const DeviceInfo& dev, std::string* why) {
  auto no = [&](const char* reason) {
    if (why) *why = reason;
    return false;
  };
  if (!arch::kHopperWgmma.contains(dev.cap)) return no("sm90_wgmma runs on Hopper (sm_90a) only");
  if (dev.smem_per_block_optin < max_smem()) {
    if (why)
      *why = "sm90_wgmma needs " + std::to_string(max_smem()) + " bytes of shared memory per block; the device allows " +
             std::to_string(dev.smem_per_block_optin);
    return false;
  }
  if (p.m > kMaxExtent || p.n > kMaxExtent) return no("sm90_wgmma takes M and N below 2^31 - 256");
  if (encode_fn() == nullptr) return no("sm90_wgmma needs cuTensorMapEncodeTiled (CUDA driver 12.0 or newer)");
  return true;
}

sm90::Plan plan_of(const GemmParams& p, const DeviceInfo& dev, size_t workspace_available) {
  // FP8KIT_SM90_CLUSTER (core/environment.hpp) overrides the plan's 2-CTA
  // clusters for tests and benchmarks; tiles without cluster code and split-K
  // plans keep cluster 1 (sm90::cluster_legal).
  return sm90::make_plan(p.m, p.n, p.k, is_block(p), dev.sm_count, workspace_available, environment().sm90_cluster,
                         sm90::cluster_fit(dev));
}

size_t workspace_size(const GemmParams& p, const DeviceInfo& dev) { return plan_of(p, dev, SIZE_MAX).workspace_bytes(); }

// The kernel's arguments in X / Y terms (kernel_args.hpp): the one place
// that turns the plan's orientation into sides.
sm90::KernelArgs kernel_args(const GemmParams& p, const sm90::Plan& pl, const LaunchEnv& env) {
  sm90::KernelArgs args{};
  // Block scales: A's are [k_blocks, M] (the per-row side's K-block stride is M).
  const sm90::SideScales a{p.a_scale_mode, p.a_scale, p.m, 0}, b{p.b_scale_mode, p.b_scale, 0, 0};
  args.rows_x = pl.swap ? p.n : p.m;
  args.rows_y = pl.swap ? p.m : p.n;
  args.x_scales = pl.swap ? b : a;
  args.y_scales = pl.swap ? a : b;
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
  args.n_tma = n_tma_of(p);
  args.d_type = p.d_type;
  args.weights_first = env.programmatic_launch;
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
  const Kernel& kern = kKernels[static_cast<int>(Tile::k128x128)][0][0];
  if (allow_kernel_smem(kern, dev.device) != cudaSuccess) {
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
  // Kernel rows X and kernel columns Y (kernel_args.hpp).
  const uint8_t* x = pl.swap ? p.b : p.a;
  const uint8_t* y = pl.swap ? p.a : p.b;
  const int64_t ldx = pl.swap ? p.ldb : p.lda;
  const int64_t ldy = pl.swap ? p.lda : p.ldb;
  const fp8kit_dtype tx = pl.swap ? p.b_type : p.a_type;
  const fp8kit_dtype ty = pl.swap ? p.a_type : p.b_type;
  const Kernel& kern = kKernels[static_cast<int>(pl.tile)][tx == E5][ty == E5];
  if (kernel_name) *kernel_name = kern.name;

  // A cluster split needs the tile's cluster-split code (tile_config.hpp);
  // without it each CTA would store its own K range's sum.
  if (pl.cluster_splits > 1 && !tile_has_cluster_split(pl.tile)) return cudaErrorInvalidValue;
  KernelArgs args = kernel_args(p, pl, env);
  CUtensorMap map_x{}, map_y{}, map_d{};
  // 2-CTA clusters: the shared side's boxes are half a tile (cluster.cuh).
  const bool halve_x = pl.cluster > 1 && pl.share_x, halve_y = pl.cluster > 1 && !pl.share_x;
  if (!encode(&map_x, x, args.rows_x, p.k, ldx, halve_x ? pl.block_m / 2 : pl.block_m) ||
      !encode(&map_y, y, args.rows_y, p.k, ldy, halve_y ? pl.block_n / 2 : pl.block_n) || !encode_d(&map_d, p))
    return cudaErrorInvalidValue;
  // Dense normal block tiles: A's scales by TMA where they encode (kernel_args.hpp).
  CUtensorMap map_s{};
  args.fine_scales_tma = tile_has_coarse_chunks(pl.tile) &&
                         sm90::encode_row_scales(&map_s, p.a_scale, p.m, pl.k_blocks, pl.block_m);
  if (pl.splits > 1 && pl.cluster_splits == 1 && !env.workspace_zeroed) {
    // The last split of each tile leaves its counter at zero again, but
    // memory lent without the zeroed promise may hold anything. With it
    // there is no memset, whose graph node would also break the
    // programmatic edge between two GEMMs.
    if (cudaError_t e = cudaMemsetAsync(args.counters, 0, pl.counter_bytes, stream); e != cudaSuccess) return e;
  }

  if (cudaError_t e = allow_kernel_smem(kern, dev.device); e != cudaSuccess) return e;
  const void* fn = reinterpret_cast<const void*>(kern.fn);
  int grid = pl.grid;
  if (pl.cluster > 1) {  // a persistent grid of clusters that all fit at once
    const int resident = resident_clusters(fn, kern.smem, pl.cluster, dev.device, g_resident_pairs);
    if (resident > 0) grid = std::min(grid, resident * pl.cluster);
  }
  void* kargs[] = {&map_x, &map_y, &map_d, &map_s, &args};
  return launch_kernel(fn, grid, kern.smem, stream, kargs, env.programmatic_launch,
                       pl.cluster_splits > 1 ? pl.cluster_splits : pl.cluster);
}

}  // namespace sm90

namespace {

cudaError_t launch(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                   const char** kernel_name) {
  const size_t avail = env.workspace ? env.workspace_size : 0;
  return sm90::launch_plan(p, dev, env, stream, plan_of(p, dev, avail), kernel_name);
}

const void* probe() { return reinterpret_cast<const void*>(kKernels[0][0][0].fn); }

}  // namespace

const GemmPath kSm90WgmmaPath{
    FP8KIT_PATH_SM90_WGMMA, arch::kHopperWgmma, &build::sm90_images, &tensor_cores, &accepts, &workspace_size,
    &launch,                &probe,             {sm90::kKernelName, sm90::kDenseKind},
};

}  // namespace fp8kit
