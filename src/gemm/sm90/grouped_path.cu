// Native Hopper grouped FP8 GEMM path (sm_90a only), host side. The kernel is
// the dense one (kernel.cuh) instantiated for the grouped problem kind
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
#include "gemm/dispatch.hpp"
#include "gemm/sm90/grouped_plan.hpp"
#include "gemm/sm90/host_launch.hpp"
#include "gemm/sm90/kernel.cuh"
#include "gemm/sm90/kernel_table.cuh"

namespace fp8kit {
namespace {

using sm90::Kernel;
using sm90::Kind;
using sm90::Shape;

std::atomic<uint64_t> g_smem_set[sm90::kShapeCount][2][2];  // sm90::allow_smem's masks, per kernel

bool accepts(const GroupedParams& g, const DeviceInfo& dev, std::string* why) {
  std::string no = sm90::hopper_refusal(dev, sm90::max_smem<Kind::kGrouped>());
  // The promoted plan's limits: FAST's wider tile has no more units.
  if (no.empty()) no = sm90::grouped_limit_refusal(g, sm90::make_grouped_plan(g, dev.sm_count));
  if (no.empty() && sm90::encode_fn() == nullptr)
    no = "sm90_wgmma needs cuTensorMapEncodeTiled (CUDA driver 12.0 or newer)";
  if (why) *why = no;
  return no.empty();
}

// A and B over all experts as sides (A-side kernel rows are A's rows,
// R = T or E * max_m; B's rows B's as [E * N, K]), and the plan's X / Y
// views of them. Block scales (kernel_args.hpp): A [k_blocks, T] or
// [E, k_blocks, max_m]; B [E, ceil(N / 128), k_blocks].
sm90::Views grouped_views(const GroupedParams& g, const sm90::GroupedPlan& pl) {
  const GemmParams& p = g.dense;
  const bool masked = g.layout == FP8KIT_GROUPED_MASKED;
  const bool block = p.a_scale_mode == FP8KIT_SCALE_BLOCK;
  const sm90::SideScales a_scales{p.a_scale_mode, p.a_scale, g.rows,
                                  block && masked ? int64_t{p.k_blocks - 1} * g.rows : 0};
  const sm90::SideScales b_scales{p.b_scale_mode, p.b_scale, 0, block ? ceil_div(p.n, sm90::kBlockK) * p.k_blocks : 0};
  const sm90::Side a{p.a, p.lda, p.a_type, masked ? g.experts * g.rows : g.rows, a_scales, pl.a_box_rows};
  const sm90::Side b{p.b, p.ldb, p.b_type, g.experts * p.n, b_scales, pl.b_rows};
  return sm90::views_of(pl.swap, a, b);
}

// The kernel's arguments in X / Y terms (kernel_args.hpp) over all experts;
// each unit finds its expert's bases (tile_scheduler.cuh).
sm90::KernelArgs grouped_args(const GroupedParams& g, const sm90::GroupedPlan& pl, const sm90::Views& v) {
  const GemmParams& p = g.dense;
  const bool masked = g.layout == FP8KIT_GROUPED_MASKED;
  sm90::KernelArgs args{};
  args.rows_x = v.x.rows;
  args.rows_y = v.y.rows;
  args.x_scales = v.x.scales;
  args.y_scales = v.y.scales;
  args.k_blocks = p.k_blocks;
  args.group_x = 1;
  args.splits = 1;
  args.kb_per_split = p.k_blocks;
  args.num_units = static_cast<int>(pl.max_units);  // a bound only: the device counts its units
  args.bias = p.bias;
  args.bias_type = p.bias_type;
  args.d = p.d;
  args.ldd = p.ldd;
  args.d_rows = masked ? g.experts * g.rows : g.rows;
  args.d_cols = p.n;
  args.n_tma = sm90::n_tma_of(p);
  args.d_type = p.d_type;
  args.grouped = sm90::GroupedArgs{g.groups, g.experts, g.rows, masked ? 1 : 0, p.n, pl.b_tiles, pl.stage_tx_bytes};
  return args;
}

cudaError_t launch(const GroupedParams& g, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                   const char** kernel_name) {
  const GemmParams& p = g.dense;
  const sm90::GroupedPlan pl = sm90::make_grouped_plan(g, dev.sm_count, env.fast_accumulation);
  const sm90::Views v = grouped_views(g, pl);
  *kernel_name = sm90::kernel_name<Kind::kGrouped>(pl.shape, v.x.type, v.y.type);
  const Kernel* kern = sm90::kernel_for<Kind::kGrouped>(pl.shape, v.x.type, v.y.type);
  // The grouped plan names grouped shapes only, and a FAST-only one for FAST.
  if (kern == nullptr || (sm90::row(pl.shape).fast_only && !env.fast_accumulation)) return cudaErrorInvalidValue;
  if (pl.grid == 0) return cudaSuccess;  // no rows at all (grouped_plan.hpp)

  sm90::KernelArgs args = grouped_args(g, pl, v);
  args.fast_accum = env.fast_accumulation;
  CUtensorMap map_x{}, map_y{}, map_d{};
  GemmParams d_shape = p;  // D's map: every expert's rows
  d_shape.m = args.d_rows;
  if (!sm90::encode(&map_x, v.x.ptr, v.x.rows, p.k, v.x.ld, v.x.box_rows) ||
      !sm90::encode(&map_y, v.y.ptr, v.y.rows, p.k, v.y.ld, v.y.box_rows) ||
      !sm90::encode_d(&map_d, d_shape, sm90::out_chunk_bytes(pl.shape)))
    return cudaErrorInvalidValue;
  if (cudaError_t e = sm90::allow_smem(
          reinterpret_cast<const void*>(kern->fn), kern->smem, dev.device,
          g_smem_set[static_cast<int>(pl.shape)][sm90::type_slot(v.x.type)][sm90::type_slot(v.y.type)]);
      e != cudaSuccess)
    return e;
  CUtensorMap map_s{};  // A's block scales by TMA: dense tiles only (TileConfig::kCoarseChunks)
  void* kargs[] = {&map_x, &map_y, &map_d, &map_s, &args};
  // Programmatic launch (opt-in) overlaps this kernel's start with the
  // previous one's tail; the weights cannot go out before the wait here
  // (weights_first stays 0): which expert a unit serves comes from the group
  // array, which the kernel before may write.
  return sm90::launch_kernel(reinterpret_cast<const void*>(kern->fn), pl.grid, kern->smem, stream, kargs,
                             env.programmatic_launch);
}

const void* probe() {
  return reinterpret_cast<const void*>(
      sm90::kernel_for<Kind::kGrouped>(Shape::k128x128, FP8KIT_DTYPE_E4M3, FP8KIT_DTYPE_E4M3)->fn);
}

}  // namespace

const GroupedPath kSm90WgmmaGroupedPath{
    FP8KIT_PATH_SM90_WGMMA, arch::kHopperWgmma, &build::sm90_images, &sm90::tensor_cores, &accepts, nullptr,
    &launch,                &probe,             {sm90::kKernelName, sm90::kGroupedKind},
};

}  // namespace fp8kit
