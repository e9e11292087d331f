// Host helpers both native Hopper paths share (path.cu: dense, grouped_path.cu:
// grouped): the tensor maps of the operands and of D, and the kernels'
// shared-memory opt-in. Host code of the sm90 family's sources only.
#pragma once

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled (driver reached through cudart)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "arch/config.hpp"

#include "core/dtype.hpp"
#include "gemm/gemm_params.hpp"
#include "gemm/sm90/kernel_args.hpp"
#include "gemm/sm90/tile_config.hpp"

namespace fp8kit::sm90 {

// ---- The X / Y views of A and B, for both launches ------------------------
// One operand as the host has it: its base, leading dimension (bytes), type,
// rows (the tensor map's), scales, and the rows of one TMA box of it.
struct Side {
  const uint8_t* ptr;
  int64_t ld;
  fp8kit_dtype type;
  int rows;
  SideScales scales;
  int box_rows;
};

// Kernel rows X and kernel columns Y (kernel_args.hpp): X = A, Y = B; in the
// swapped (decode) orientation X = B, Y = A. The one place that turns a
// plan's orientation into sides.
struct Views {
  Side x, y;
};
inline Views views_of(bool swap, const Side& a, const Side& b) { return swap ? Views{b, a} : Views{a, b}; }

constexpr unsigned kTensorMapVersion = 12000;  // cuTensorMapEncodeTiled ABI (CUDA 12.0)
constexpr int kTensorRank = 2;

// Devices (bit per ordinal) on which a kernel's dynamic shared-memory limit
// has been raised (`mask`, one per kernel): the attribute is per device and
// per kernel, and setting it on every launch costs host time that small
// (decode) GEMMs feel.
constexpr int kAttrDevices = 64;
inline cudaError_t allow_smem(const void* fn, int smem, int device, std::atomic<uint64_t>& mask) {
  const uint64_t bit = device < kAttrDevices ? uint64_t{1} << device : 0;
  if (bit && (mask.load(std::memory_order_acquire) & bit)) return cudaSuccess;
  const cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (e == cudaSuccess && bit) mask.fetch_or(bit, std::memory_order_acq_rel);
  return e;
}

// One launch of an sm90 kernel (kThreads per CTA). With `programmatic`,
// programmatic stream serialisation: the kernel may start while the one
// before it in the stream finishes; its griddepcontrol.wait orders every
// dependent access (kernel.cuh, and the grouped unit table in
// tile_scheduler.cuh). Without the attribute griddepcontrol.wait returns at
// once. `cluster` > 1: clusters of that many CTAs along the grid (the dense
// path's 2-CTA multicast, cluster.cuh, or a cluster split, cluster_split.cuh);
// `grid` is a multiple of it.
inline cudaError_t launch_kernel(const void* fn, int grid, int smem, cudaStream_t stream, void** kargs,
                                 bool programmatic, int cluster = 1) {
  cudaLaunchAttribute attrs[2]{};
  unsigned count = 0;
  if (programmatic) {
    attrs[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[count++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cluster > 1) {
    attrs[count].id = cudaLaunchAttributeClusterDimension;
    attrs[count++].val.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
  }
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = static_cast<size_t>(smem);
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = count;
  return cudaLaunchKernelExC(&config, fn, kargs);
}

// Why no sm90 kernel of `max_smem` bytes of shared memory can run on `dev`;
// empty if one can (both paths' first checks).
inline std::string hopper_refusal(const DeviceInfo& dev, int max_smem) {
  if (!arch::kHopperWgmma.contains(dev.cap)) return "sm90_wgmma runs on Hopper (sm_90a) only";
  if (dev.smem_per_block_optin < max_smem)
    return "sm90_wgmma needs " + std::to_string(max_smem) + " bytes of shared memory per block; the device allows " +
           std::to_string(dev.smem_per_block_optin);
  return {};
}

inline fp8kit_tensor_cores tensor_cores(int cap) {
  return arch::kHopperWgmma.contains(cap) ? FP8KIT_TC_NATIVE : FP8KIT_TC_NONE;
}

// Clusters of `cluster` CTAs of kernel `fn` that the device holds at once
// (the GPCs' SM counts may leave an SM without a partner), asked once per
// device and kept in `cache` as the answer + 1 (0: not asked yet), so that a
// size that cannot run (answer 0) is not asked again at every launch; 0 when
// the runtime cannot say (not kept: the next launch asks again).
inline int resident_clusters(const void* fn, int smem, int cluster, int device, std::atomic<int>* cache) {
  std::atomic<int>* slot = device < kAttrDevices ? cache + device : nullptr;
  if (slot)
    if (const int kept = slot->load(std::memory_order_acquire); kept > 0) return kept - 1;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(cluster);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = static_cast<size_t>(smem);
  config.attrs = &attr;
  config.numAttrs = 1;
  int n = 0;
  if (cudaOccupancyMaxActiveClusters(&n, fn, &config) != cudaSuccess) {
    cudaGetLastError();  // not sticky; leave no error behind
    return 0;
  }
  if (slot) slot->store(n + 1, std::memory_order_release);
  return n;
}

// cuTensorMapEncodeTiled from the driver through cudart (fp8kit does not link
// libcuda). Looked up once; null when the driver does not have it.
inline PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
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
inline bool encode(CUtensorMap* map, const uint8_t* base, int rows, int k, int64_t ld, int box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 fn = encode_fn();
  if (fn == nullptr) return false;
  const cuuint64_t dims[kTensorRank] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[kTensorRank - 1] = {static_cast<cuuint64_t>(ld)};
  const cuuint32_t box[kTensorRank] = {static_cast<cuuint32_t>(kBlockK), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[kTensorRank] = {1, 1};
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, kTensorRank, const_cast<uint8_t*>(base), dims, strides, box,
            elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// TMA moves whole 16-byte granules along a map's inner dimension: its row
// strides and base, and what a store writes of a row.
constexpr int kTmaGranule = 16;

// A's block scales, [k_blocks, m] f32 (fp8kit.h), as a 2-D tensor map of
// (1, box_rows) boxes: one K block's scales of a tile's rows, zero past m.
// TMA needs the K-block stride in whole 16-byte granules and a 16-byte
// aligned base; false where they are not (the scale warp copies them then).
inline bool encode_row_scales(CUtensorMap* map, const float* base, int m, int k_blocks, int box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 fn = encode_fn();
  if (fn == nullptr || (int64_t{m} * sizeof(float)) % kTmaGranule != 0 ||
      reinterpret_cast<uintptr_t>(base) % kTmaGranule != 0)
    return false;
  const cuuint64_t dims[kTensorRank] = {static_cast<cuuint64_t>(m), static_cast<cuuint64_t>(k_blocks)};
  const cuuint64_t strides[kTensorRank - 1] = {static_cast<cuuint64_t>(m) * sizeof(float)};
  const cuuint32_t box[kTensorRank] = {static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t elem_strides[kTensorRank] = {1, 1};
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, kTensorRank, const_cast<float*>(base), dims, strides, box,
            elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// TMA stores write whole granules of a row.
inline int n_tma_of(const GemmParams& p) {
  const int per = kTmaGranule / dtype_bytes(p.d_type);
  return p.n / per * per;
}

// D [M, N] (ldd elements; grouped: M = the rows of every expert) as a 2-D tensor map of store boxes (64 rows,
// `chunk_bytes` of columns: the tile's out_chunk_bytes), swizzled over that span; TMA clips what lies beyond D.
inline bool encode_d(CUtensorMap* map, const GemmParams& p, int chunk_bytes) {
  const PFN_cuTensorMapEncodeTiled_v12000 fn = encode_fn();
  if (fn == nullptr) return false;
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  cuuint64_t bytes = sizeof(float);
  if (p.d_type == FP8KIT_DTYPE_BF16) type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, bytes = 2;
  if (p.d_type == FP8KIT_DTYPE_F16) type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16, bytes = 2;
  // The map ends at n_tma (see the kernel's epilogue); at least one granule
  // so that it encodes when N is below one (the kernel then issues no store).
  const cuuint64_t n_map = std::max<cuuint64_t>(static_cast<cuuint64_t>(n_tma_of(p)), kTmaGranule / bytes);
  const cuuint64_t dims[kTensorRank] = {n_map, static_cast<cuuint64_t>(p.m)};
  const cuuint64_t strides[kTensorRank - 1] = {static_cast<cuuint64_t>(p.ldd) * bytes};
  const cuuint32_t box[kTensorRank] = {static_cast<cuuint32_t>(chunk_bytes / bytes),
                                       static_cast<cuuint32_t>(kOutBoxRows)};
  const cuuint32_t elem_strides[kTensorRank] = {1, 1};
  const CUtensorMapSwizzle swizzle = chunk_bytes == kMaxOutChunkBytes ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : chunk_bytes == kMaxOutChunkBytes / 2 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                                            : CU_TENSOR_MAP_SWIZZLE_32B;
  return fn(map, type, kTensorRank, p.d, dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace fp8kit::sm90
