// Native Hopper FP8 GEMM path (sm_90a only), host side: tensor maps, the
// kernel arguments in X / Y terms, the launch and the registry entry. The
// kernel is kernel.cuh, the plan plan.hpp.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_WGMMA
#error "gemm/sm90/path.cu is valid for sm_90a only; its CMake range must exclude this target"
#endif

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled (driver reached through cudart)

#include <atomic>
#include <climits>
#include <cstdint>
#include <string>

#include "core/dtype.hpp"
#include "fp8kit_build_config.hpp"
#include "gemm/dispatch.hpp"
#include "gemm/sm90/dev_api.hpp"
#include "gemm/sm90/kernel.cuh"
#include "gemm/sm90/plan.hpp"

namespace fp8kit {
namespace {

using sm90::Tile;
using KernelFn = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, sm90::KernelArgs);

constexpr fp8kit_dtype E4 = FP8KIT_DTYPE_E4M3, E5 = FP8KIT_DTYPE_E5M2;
constexpr int kTiles = sm90::kTileCount;
// Largest coordinate a tile may start at: rows and columns stay int-safe.
constexpr int64_t kMaxExtent = INT_MAX - 2 * sm90::kMaxBlockM;
constexpr unsigned kTensorMapVersion = 12000;  // cuTensorMapEncodeTiled ABI (CUDA 12.0)
constexpr int kTensorRank = 2;

struct Kernel {
  KernelFn fn;
  const char* name;
  int smem;
};

template <Tile T, fp8kit_dtype TX, fp8kit_dtype TY>
constexpr Kernel entry(const char* name) {
  return {&sm90::sm90_fp8_gemm_kernel<T, TX, TY>, name, sm90::smem_bytes<T>()};
}

// [tile][X type][Y type]: X is A (normal) or B (swapped).
#define FP8KIT_SM90_ENTRIES(T, TNAME)                                                             \
  {                                                                                               \
    {entry<T, E4, E4>("sm90_fp8_gemm<" TNAME ",e4m3,e4m3>"),                                      \
     entry<T, E4, E5>("sm90_fp8_gemm<" TNAME ",e4m3,e5m2>")},                                     \
    {entry<T, E5, E4>("sm90_fp8_gemm<" TNAME ",e5m2,e4m3>"),                                      \
     entry<T, E5, E5>("sm90_fp8_gemm<" TNAME ",e5m2,e5m2>")},                                     \
  }
const Kernel kKernels[kTiles][2][2] = {
    FP8KIT_SM90_ENTRIES(Tile::k128x128, "128x128"),
    FP8KIT_SM90_ENTRIES(Tile::k128x128Block, "128x128,block"),
    FP8KIT_SM90_ENTRIES(Tile::k128x64Swap, "128x64,swap"),
    FP8KIT_SM90_ENTRIES(Tile::k128x64SwapBlock, "128x64,swap,block"),
    FP8KIT_SM90_ENTRIES(Tile::k256x128, "256x128"),
    FP8KIT_SM90_ENTRIES(Tile::k256x128Block, "256x128,block"),
};
static_assert(static_cast<int>(Tile::k256x128Block) + 1 == kTiles, "one row of kKernels per tile");
#undef FP8KIT_SM90_ENTRIES

// Devices (bit per ordinal) on which a kernel's dynamic shared-memory limit
// has been raised: the attribute is per device and per kernel, and setting it
// on every launch costs host time that small (decode) GEMMs feel.
constexpr int kAttrDevices = 64;
std::atomic<uint64_t> g_smem_set[kTiles][2][2];

cudaError_t allow_smem(const Kernel& kern, int device) {
  const int t = static_cast<int>(&kern - &kKernels[0][0][0]);
  std::atomic<uint64_t>& mask = (&g_smem_set[0][0][0])[t];
  const uint64_t bit = device < kAttrDevices ? uint64_t{1} << device : 0;
  if (bit && (mask.load(std::memory_order_acquire) & bit)) return cudaSuccess;
  const cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kern.fn),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, kern.smem);
  if (e == cudaSuccess && bit) mask.fetch_or(bit, std::memory_order_acq_rel);
  return e;
}

int max_smem() {
  int s = 0;
  for (const auto& t : kKernels) s = std::max(s, t[0][0].smem);
  return s;
}

// cuTensorMapEncodeTiled from the driver through cudart (fp8kit does not link
// libcuda). Looked up once; null when the driver does not have it.
PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, kTensorMapVersion, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      cudaGetLastError();  // not sticky; leave no error behind
      f = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// A [rows, k] K-contiguous FP8 operand as a 2-D tensor map of boxes
// (box_rows, kBlockK), 128B-swizzled; rows and the K tail beyond the tensor
// read as zeros.
bool encode(CUtensorMap* map, const uint8_t* base, int rows, int k, int64_t ld, int box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 fn = encode_fn();
  if (fn == nullptr) return false;
  const cuuint64_t dims[kTensorRank] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[kTensorRank - 1] = {static_cast<cuuint64_t>(ld)};
  const cuuint32_t box[kTensorRank] = {static_cast<cuuint32_t>(sm90::kBlockK), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[kTensorRank] = {1, 1};
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, kTensorRank, const_cast<uint8_t*>(base), dims, strides, box,
            elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// TMA stores write whole 16-byte granules along the inner dimension.
constexpr int kStoreGranule = 16;
int n_tma_of(const GemmParams& p) {
  const int per = kStoreGranule / dtype_bytes(p.d_type);
  return p.n / per * per;
}

// D [M, N] (ldd elements) as a 2-D tensor map of store boxes (64 rows,
// 128 bytes of columns), 128B-swizzled; TMA clips what lies beyond D.
bool encode_d(CUtensorMap* map, const GemmParams& p) {
  const PFN_cuTensorMapEncodeTiled_v12000 fn = encode_fn();
  if (fn == nullptr) return false;
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  cuuint64_t bytes = sizeof(float);
  if (p.d_type == FP8KIT_DTYPE_BF16) type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, bytes = 2;
  if (p.d_type == FP8KIT_DTYPE_F16) type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16, bytes = 2;
  // The map ends at n_tma (see the kernel's epilogue); at least one granule
  // so that it encodes when N is below one (the kernel then issues no store).
  const cuuint64_t n_map = std::max<cuuint64_t>(static_cast<cuuint64_t>(n_tma_of(p)), kStoreGranule / bytes);
  const cuuint64_t dims[kTensorRank] = {n_map, static_cast<cuuint64_t>(p.m)};
  const cuuint64_t strides[kTensorRank - 1] = {static_cast<cuuint64_t>(p.ldd) * bytes};
  const cuuint32_t box[kTensorRank] = {static_cast<cuuint32_t>(sm90::kOutChunkBytes / bytes),
                                       static_cast<cuuint32_t>(sm90::kOutBoxRows)};
  const cuuint32_t elem_strides[kTensorRank] = {1, 1};
  return fn(map, type, kTensorRank, p.d, dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

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

size_t workspace_size(const GemmParams& p, const DeviceInfo& dev) {
  return sm90::make_plan(p.m, p.n, p.k, is_block(p), dev.sm_count, SIZE_MAX).workspace_bytes();
}

// The kernel's arguments in X / Y terms (kernel_args.hpp): the one place
// that turns the plan's orientation into sides.
sm90::KernelArgs kernel_args(const GemmParams& p, const sm90::Plan& pl, const LaunchEnv& env) {
  sm90::KernelArgs args{};
  const sm90::SideScales a{p.a_scale_mode, p.a_scale}, b{p.b_scale_mode, p.b_scale};
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
  if (pl.splits > 1) {
    args.partials = static_cast<float*>(env.workspace);
    args.counters = reinterpret_cast<unsigned*>(static_cast<char*>(env.workspace) + pl.partial_bytes);
  }
  return args;
}

}  // namespace

namespace sm90 {

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

  KernelArgs args = kernel_args(p, pl, env);
  CUtensorMap map_x{}, map_y{}, map_d{};
  if (!encode(&map_x, x, args.rows_x, p.k, ldx, pl.block_m) || !encode(&map_y, y, args.rows_y, p.k, ldy, pl.block_n) ||
      !encode_d(&map_d, p))
    return cudaErrorInvalidValue;
  if (pl.splits > 1) {
    // The last split of each tile leaves its counter at zero again, but the
    // workspace's first use (or a fault mid-run) may leave anything there.
    if (cudaError_t e = cudaMemsetAsync(args.counters, 0, pl.counter_bytes, stream); e != cudaSuccess) return e;
  }

  if (cudaError_t e = allow_smem(kern, dev.device); e != cudaSuccess) return e;
  void* kargs[] = {&map_x, &map_y, &map_d, &args};
  // Programmatic stream serialisation, when asked for: the kernel may start
  // while the one before it in the stream finishes (the kernel's
  // griddepcontrol.wait orders every dependent access; kernel.cuh). Without
  // the attribute griddepcontrol.wait returns at once.
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(pl.grid);
  config.blockDim = dim3(sm90::kThreads);
  config.dynamicSmemBytes = static_cast<size_t>(kern.smem);
  config.stream = stream;
  config.attrs = &attr;
  config.numAttrs = env.programmatic_launch ? 1 : 0;
  return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kern.fn), kargs);
}

}  // namespace sm90

namespace {

cudaError_t launch(const GemmParams& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                   const char** kernel_name) {
  const size_t avail = env.workspace ? env.workspace_size : 0;
  return sm90::launch_plan(p, dev, env, stream, sm90::make_plan(p.m, p.n, p.k, is_block(p), dev.sm_count, avail),
                           kernel_name);
}

const void* probe() { return reinterpret_cast<const void*>(kKernels[0][0][0].fn); }

}  // namespace

const GemmPath kSm90WgmmaPath{
    FP8KIT_PATH_SM90_WGMMA, "sm90_wgmma", arch::kHopperWgmma, &build::sm90_images, &tensor_cores, &accepts,
    &workspace_size,        &launch,      &probe,
};

}  // namespace fp8kit
