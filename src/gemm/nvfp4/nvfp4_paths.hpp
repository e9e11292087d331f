// What each NVFP4 kernel family's source exports to the registries
// (gemm/nvfp4/nvfp4_dispatch.cpp): take / launch / probe functions per
// family. Host code only; a family not built (no target in its range) is
// not referenced (fp8kit_build_config.hpp, FP8KIT_WITH_NVFP4_*).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/device.hpp"
#include "core/launch_env.hpp"
#include "gemm/nvfp4/nvfp4_params.hpp"

namespace fp8kit::nvfp4 {

// The entry points of one family: its dense and grouped kernels.
struct FamilyEntry {
  bool (*takes_dense)(const Nvfp4Params& p, const DeviceInfo& dev, std::string* why);
  bool (*takes_grouped)(const Nvfp4GroupedParams& g, const DeviceInfo& dev, std::string* why);
  // env: programmatic launch (the decode tiles honour it) and checked mode
  // (a family that launches two kernels synchronises between them, so that
  // `kernel` names the one that faulted).
  cudaError_t (*launch_dense)(const Nvfp4Params& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                              const char** kernel);
  cudaError_t (*launch_grouped)(const Nvfp4GroupedParams& g, const DeviceInfo& dev, const LaunchEnv& env,
                                cudaStream_t stream, const char** kernel);
  const void* (*probe)();
  // Bytes of workspace the family writes for the problem (null: none).
  size_t (*dense_workspace)(const Nvfp4Params& p);
  size_t (*grouped_workspace)(const Nvfp4GroupedParams& g);
};

// nvfp4_hmma_gemm.cu: f16 HMMA, A f16 (W4A16) or NVFP4 decoded (W4A4). SM75+.
const FamilyEntry& hmma_f16_a16();
const FamilyEntry& hmma_f16_a4();
// nvfp4_hmma_bf16_gemm.cu: bf16 HMMA, A bf16. SM80+.
const FamilyEntry& hmma_bf16_a16();
// nvfp4_sm120_gemm.cu: the block-scaled FP4 mma.sync, A NVFP4. SM12x (sm_120f).
const FamilyEntry& omma_a4();
// nvfp4_sm90_gemm.cu: decoded to bf16 / f16 in registers, wgmma; A 16-bit,
// dense (prefill- or decode-sized) and grouped (prefill-sized experts), or
// NVFP4: decode-sized dense (the tokens decoded to bf16 too), else widened
// to bf16 in the workspace first. Hopper (sm_90a).
const FamilyEntry& wgmma();

// Kernel names in a binary (core/registry.hpp, KernelMatch).
constexpr const char* kDenseKernel = "fp8kit::nvfp4::nvfp4_gemm_kernel<";
constexpr const char* kGroupedKernel = "fp8kit::nvfp4::nvfp4_grouped_gemm_kernel<";
// The HMMA families' kernels, f16 and bf16 (one path: sm75_hmma).
constexpr const char* kHmmaPolicy = "fp8kit::nvfp4::Hmma<";
constexpr const char* kOmmaPolicy = "fp8kit::nvfp4::OmmaSf";
// The Hopper family's kernels: the dense ones, nvfp4_sm90_gemm_kernel
// (prefill), nvfp4_sm90_decode_kernel and nvfp4_sm90_widen_kernel (which
// serves both), told from the grouped nvfp4_sm90_grouped_kernel by the
// problem they take.
constexpr const char* kWgmmaKernel = "fp8kit::nvfp4::sm90w::nvfp4_sm90_";
constexpr const char* kWgmmaDenseProblem = "fp8kit::Nvfp4Params";
constexpr const char* kWgmmaGroupedKernel = "fp8kit::nvfp4::sm90w::nvfp4_sm90_grouped_kernel<";
// The Hopper family's kernel that widens NVFP4 A to bf16 for the W4A16
// kernels (a conversion: no tensor-core instruction).
constexpr const char* kWgmmaWidenKernel = "fp8kit::nvfp4::sm90w::nvfp4_sm90_widen_kernel";

}  // namespace fp8kit::nvfp4
