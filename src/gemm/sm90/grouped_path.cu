// Native Hopper grouped FP8 GEMM path (sm_90a only), host side. The kernel is
// the dense one (kernel.cuh) instantiated with the grouped tiles
// (tile_config.hpp): the same mainloop, scales and epilogue, over (expert,
// tile) units that each CTA maps from the device group array
// (tile_scheduler.cuh). Here: tensor maps over all experts (A [T or E * max_m,
// K], B as [E * N, K], D like A's rows), the arguments, the launch and the
// grouped registry entry. The plan is grouped_plan.hpp.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_WGMMA
#error "gemm/sm90/grouped_path.cu is valid for sm_90a only; its CMake range must exclude this target"
#endif

#include <atomic>
#include <cstdint>
#include <string>

#include "fp8kit_build_config.hpp"
#include "gemm/grouped/grouped_params.hpp"
#include "gemm/sm90/grouped_plan.hpp"
#include "gemm/sm90/host_launch.hpp"
#include "gemm/sm90/kernel.cuh"
#include "gemm/sm90/kernel_table.cuh"

namespace fp8kit {
namespace {

using sm90::Tile;
using sm90::Kernel;

constexpr fp8kit_dtype E5 = FP8KIT_DTYPE_E5M2;
constexpr int kTiles = sm90::kGroupedTileCount;

// [grouped tile][X type][Y type]
#define FP8KIT_SM90_GROUPED_ENTRIES(T, TNAME) FP8KIT_SM90_KERNEL_ROW(T, "sm90_grouped_gemm", TNAME)
const Kernel kKernels[kTiles][2][2] = {
    FP8KIT_SM90_GROUPED_ENTRIES(Tile::kGrouped128x128, "128x128"),
    FP8KIT_SM90_GROUPED_ENTRIES(Tile::kGrouped128x128Block, "128x128,block"),
    FP8KIT_SM90_GROUPED_ENTRIES(Tile::kGrouped128x64Swap, "128x64,swap"),
    FP8KIT_SM90_GROUPED_ENTRIES(Tile::kGrouped128x64SwapBlock, "128x64,swap,block"),
    FP8KIT_SM90_GROUPED_ENTRIES(Tile::kGrouped128x16Swap, "128x16,swap"),
};
#undef FP8KIT_SM90_GROUPED_ENTRIES
constexpr int kFirst = static_cast<int>(Tile::kGrouped128x128);
static_assert(static_cast<int>(Tile::kGrouped128x16Swap) + 1 - kFirst == kTiles, "one row per grouped tile");

std::atomic<uint64_t> g_smem_set[kTiles][2][2];  // sm90::allow_smem's masks

int max_smem() { return sm90::max_smem(kKernels); }

bool accepts(const GroupedParams& g, const DeviceInfo& dev, std::string* why) {
  auto no = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  if (!arch::kHopperWgmma.contains(dev.cap)) return no("sm90_wgmma runs on Hopper (sm_90a) only");
  if (dev.smem_per_block_optin < max_smem())
    return no("sm90_wgmma needs " + std::to_string(max_smem()) + " bytes of shared memory per block; the device allows " +
              std::to_string(dev.smem_per_block_optin));
  const std::string limit = sm90::grouped_limit_refusal(g, sm90::make_grouped_plan(g, dev.sm_count));
  if (!limit.empty()) return no(limit);
  if (sm90::encode_fn() == nullptr) return no("sm90_wgmma needs cuTensorMapEncodeTiled (CUDA driver 12.0 or newer)");
  return true;
}

// The kernel's arguments in X / Y terms (kernel_args.hpp) over all experts:
// A-side kernel rows are A's rows (R = T or E * max_m), B-side rows B's as
// [E * N, K]; each unit finds its expert's bases (tile_scheduler.cuh).
sm90::KernelArgs grouped_args(const GroupedParams& g, const sm90::GroupedPlan& pl) {
  const GemmParams& p = g.dense;
  const bool masked = g.layout == FP8KIT_GROUPED_MASKED;
  const bool block = p.a_scale_mode == FP8KIT_SCALE_BLOCK;
  const int a_rows = masked ? g.experts * g.rows : g.rows;
  const int b_rows = g.experts * p.n;
  // Block scales (kernel_args.hpp): A [k_blocks, T] or [E, k_blocks, max_m];
  // B [E, ceil(N / 128), k_blocks].
  const sm90::SideScales a{p.a_scale_mode, p.a_scale, g.rows,
                           block && masked ? int64_t{p.k_blocks - 1} * g.rows : 0};
  const sm90::SideScales b{p.b_scale_mode, p.b_scale, 0,
                           block ? ceil_div(p.n, sm90::kBlockK) * p.k_blocks : 0};
  sm90::KernelArgs args{};
  args.rows_x = pl.swap ? b_rows : a_rows;
  args.rows_y = pl.swap ? a_rows : b_rows;
  args.x_scales = pl.swap ? b : a;
  args.y_scales = pl.swap ? a : b;
  args.k_blocks = p.k_blocks;
  args.group_x = 1;
  args.splits = 1;
  args.kb_per_split = p.k_blocks;
  args.num_units = static_cast<int>(pl.max_units);  // a bound only: the device counts its units
  args.bias = p.bias;
  args.bias_type = p.bias_type;
  args.d = p.d;
  args.ldd = p.ldd;
  args.d_rows = a_rows;
  args.d_cols = p.n;
  args.n_tma = sm90::n_tma_of(p);
  args.d_type = p.d_type;
  args.grouped = sm90::GroupedArgs{g.groups, g.experts, g.rows, masked ? 1 : 0, p.n, pl.b_tiles, pl.stage_tx_bytes};
  return args;
}

cudaError_t launch(const GroupedParams& g, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                   const char** kernel_name) {
  const GemmParams& p = g.dense;
  const sm90::GroupedPlan pl = sm90::make_grouped_plan(g, dev.sm_count);
  const fp8kit_dtype tx = pl.swap ? p.b_type : p.a_type;
  const fp8kit_dtype ty = pl.swap ? p.a_type : p.b_type;
  const int t = static_cast<int>(pl.tile) - kFirst;
  const Kernel& kern = kKernels[t][tx == E5][ty == E5];
  *kernel_name = kern.name;
  if (pl.grid == 0) return cudaSuccess;  // no rows at all (grouped_plan.hpp)

  sm90::KernelArgs args = grouped_args(g, pl);
  const int a_rows = pl.swap ? args.rows_y : args.rows_x;
  const int b_rows = pl.swap ? args.rows_x : args.rows_y;
  CUtensorMap map_a{}, map_b{}, map_d{};
  GemmParams d_shape = p;  // D's map: every expert's rows
  d_shape.m = a_rows;
  if (!sm90::encode(&map_a, p.a, a_rows, p.k, p.lda, pl.a_box_rows) ||
      !sm90::encode(&map_b, p.b, b_rows, p.k, p.ldb, pl.b_rows) || !sm90::encode_d(&map_d, d_shape))
    return cudaErrorInvalidValue;
  if (cudaError_t e = sm90::allow_smem(reinterpret_cast<const void*>(kern.fn), kern.smem, dev.device,
                                       g_smem_set[t][tx == E5][ty == E5]);
      e != cudaSuccess)
    return e;
  CUtensorMap map_x = pl.swap ? map_b : map_a, map_y = pl.swap ? map_a : map_b;
  CUtensorMap map_s{};  // A's block scales by TMA: dense tiles only (TileConfig::kCoarseChunks)
  void* kargs[] = {&map_x, &map_y, &map_d, &map_s, &args};
  // Programmatic launch (opt-in) overlaps this kernel's start with the
  // previous one's tail; the weights cannot go out before the wait here
  // (weights_first stays 0): which expert a unit serves comes from the group
  // array, which the kernel before may write.
  return sm90::launch_kernel(reinterpret_cast<const void*>(kern.fn), pl.grid, kern.smem, stream, kargs,
                             env.programmatic_launch);
}

const void* probe() { return reinterpret_cast<const void*>(kKernels[0][0][0].fn); }

}  // namespace

const GroupedPath kSm90WgmmaGroupedPath{
    FP8KIT_PATH_SM90_WGMMA, arch::kHopperWgmma, &build::sm90_images, &tensor_cores, &accepts, nullptr,
    &launch,                &probe,             {sm90::kKernelName, sm90::kGroupedKind},
};

}  // namespace fp8kit
