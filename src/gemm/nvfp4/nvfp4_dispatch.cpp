// The NVFP4 GEMM registries (core/registry.hpp), dense and grouped, in order
// of preference: sm120_mma (SM12x, NVFP4 A: the block-scaled FP4 mma),
// sm90_wgmma (Hopper, W4A16 dense prefill and decode, W4A4 decode, grouped
// prefill, W4A4 beyond decode widened to bf16 in the workspace: decoded into
// bf16 / f16 wgmma), then sm75_hmma (every family:
// decode to f16 / bf16, HMMA), which
// takes every valid input except bf16 A below SM80. Which families this build carries is
// fp8kit_build_config.hpp's (FP8KIT_WITH_NVFP4_*).
#include <array>
#include <mutex>

#include "core/enums.hpp"
#include "fp8kit_build_config.hpp"
#include "gemm/mma_sync_paths.hpp"
#include "gemm/nvfp4/nvfp4_paths.hpp"

namespace fp8kit {
namespace {

using nvfp4::FamilyEntry;

bool a_is_fp4(fp8kit_dtype t) { return t == FP8KIT_DTYPE_NVFP4; }

#ifdef FP8KIT_WITH_NVFP4
#ifdef FP8KIT_WITH_NVFP4_BF16
// Whether the device loads the bf16 family's image (asked of CUDA once per device).
bool bf16_family_loads(const DeviceInfo& dev) {
  struct Slot {
    std::once_flag once;
    bool loads = false;
  };
  static std::array<Slot, kMaxDevices> slots;
  Slot& slot = slots.at(dev.device);
  std::call_once(slot.once, [&] {
    cudaFuncAttributes attr{};
    slot.loads = cudaFuncGetAttributes(&attr, nvfp4::hmma_bf16_a16().probe()) == cudaSuccess;
    cudaGetLastError();
  });
  return slot.loads;
}
#endif

// The HMMA family that runs A of type `a` on `dev`, or null with `why`.
const FamilyEntry* hmma_family(fp8kit_dtype a, const DeviceInfo& dev, std::string* why) {
  if (a_is_fp4(a)) return &nvfp4::hmma_f16_a4();
  if (a == FP8KIT_DTYPE_F16) return &nvfp4::hmma_f16_a16();
#ifdef FP8KIT_WITH_NVFP4_BF16
  if (arch::kBf16Mma.contains(dev.cap) && bf16_family_loads(dev)) return &nvfp4::hmma_bf16_a16();
#endif
  if (why)
    *why = !arch::kBf16Mma.contains(dev.cap)
               ? "bf16 activations need bf16 tensor cores (SM80+); this GPU has none: pass f16 activations or "
                 "quantise A to NVFP4 (W4A4)"
               : "this build carries no bf16 NVFP4 kernel the device can load";
  return nullptr;
}

bool hmma_takes(const Nvfp4Params& p, const DeviceInfo& dev, std::string* why) {
  const FamilyEntry* f = hmma_family(p.a_type, dev, why);
  return f && f->takes_dense(p, dev, why);
}
bool hmma_takes_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, std::string* why) {
  const FamilyEntry* f = hmma_family(g.dense.a_type, dev, why);
  return f && f->takes_grouped(g, dev, why);
}
cudaError_t hmma_launch(const Nvfp4Params& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t s,
                        const char** k) {
  return hmma_family(p.a_type, dev, nullptr)->launch_dense(p, dev, env, s, k);
}
cudaError_t hmma_launch_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, const LaunchEnv& env,
                                cudaStream_t s, const char** k) {
  return hmma_family(g.dense.a_type, dev, nullptr)->launch_grouped(g, dev, env, s, k);
}
const void* hmma_probe() { return nvfp4::hmma_f16_a16().probe(); }

constexpr arch::Range kEverywhere{arch::kMinSupported, arch::kOpenEnd};

const KernelPath<Nvfp4Params> kHmmaPath{
    FP8KIT_PATH_SM75_HMMA, kEverywhere, &build::nvfp4_images, &mma_sync::f16_tensor_cores, &hmma_takes,
    nullptr,               &hmma_launch, &hmma_probe,          {nvfp4::kDenseKernel, nvfp4::kHmmaPolicy},
};
const KernelPath<Nvfp4GroupedParams> kHmmaGroupedPath{
    FP8KIT_PATH_SM75_HMMA, kEverywhere,          &build::nvfp4_images, &mma_sync::f16_tensor_cores, &hmma_takes_grouped,
    nullptr,               &hmma_launch_grouped, &hmma_probe,          {nvfp4::kGroupedKernel, nvfp4::kHmmaPolicy},
};
#endif

#ifdef FP8KIT_WITH_NVFP4_SM120
constexpr const char* kW4a16Refusal =
    "the block-scaled FP4 mma takes NVFP4 A (W4A4); bf16 / f16 activations (W4A16) run sm75_hmma";

bool omma_takes(const Nvfp4Params& p, const DeviceInfo& dev, std::string* why) {
  if (!a_is_fp4(p.a_type)) {
    if (why) *why = kW4a16Refusal;
    return false;
  }
  return nvfp4::omma_a4().takes_dense(p, dev, why);
}
bool omma_takes_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, std::string* why) {
  if (!a_is_fp4(g.dense.a_type)) {
    if (why) *why = kW4a16Refusal;
    return false;
  }
  return nvfp4::omma_a4().takes_grouped(g, dev, why);
}
cudaError_t omma_launch(const Nvfp4Params& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t s,
                        const char** k) {
  return nvfp4::omma_a4().launch_dense(p, dev, env, s, k);
}
cudaError_t omma_launch_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, const LaunchEnv& env,
                                cudaStream_t s, const char** k) {
  return nvfp4::omma_a4().launch_grouped(g, dev, env, s, k);
}
const void* omma_probe() { return nvfp4::omma_a4().probe(); }

const KernelPath<Nvfp4Params> kOmmaPath{
    FP8KIT_PATH_SM120_MMA, arch::kSm12xFp4BlockScaledMma, &build::nvfp4_sm120_images,
    &mma_sync::block_scaled_tensor_cores, &omma_takes, nullptr, &omma_launch, &omma_probe,
    {nvfp4::kDenseKernel, nvfp4::kOmmaPolicy},
};
const KernelPath<Nvfp4GroupedParams> kOmmaGroupedPath{
    FP8KIT_PATH_SM120_MMA, arch::kSm12xFp4BlockScaledMma, &build::nvfp4_sm120_images,
    &mma_sync::block_scaled_tensor_cores, &omma_takes_grouped, nullptr, &omma_launch_grouped, &omma_probe,
    {nvfp4::kGroupedKernel, nvfp4::kOmmaPolicy},
};
#endif

#ifdef FP8KIT_WITH_NVFP4_SM90
bool wgmma_takes(const Nvfp4Params& p, const DeviceInfo& dev, std::string* why) {
  return nvfp4::wgmma().takes_dense(p, dev, why);
}
cudaError_t wgmma_launch(const Nvfp4Params& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t s,
                         const char** k) {
  return nvfp4::wgmma().launch_dense(p, dev, env, s, k);
}
bool wgmma_takes_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, std::string* why) {
  return nvfp4::wgmma().takes_grouped(g, dev, why);
}
cudaError_t wgmma_launch_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, const LaunchEnv& env,
                                 cudaStream_t s, const char** k) {
  return nvfp4::wgmma().launch_grouped(g, dev, env, s, k);
}
const void* wgmma_probe() { return nvfp4::wgmma().probe(); }
size_t wgmma_workspace(const Nvfp4Params& p, const DeviceInfo&) { return nvfp4::wgmma().dense_workspace(p); }
size_t wgmma_grouped_workspace(const Nvfp4GroupedParams& g, const DeviceInfo&) {
  return nvfp4::wgmma().grouped_workspace(g);
}
fp8kit_tensor_cores wgmma_tensor_cores(int cap) {
  return arch::kHopperWgmma.contains(cap) ? FP8KIT_TC_FALLBACK : FP8KIT_TC_NONE;
}

const KernelPath<Nvfp4Params> kWgmmaPath{
    FP8KIT_PATH_SM90_WGMMA, arch::kHopperWgmma, &build::nvfp4_sm90_images, &wgmma_tensor_cores, &wgmma_takes,
    &wgmma_workspace, &wgmma_launch, &wgmma_probe, {nvfp4::kWgmmaKernel, nvfp4::kWgmmaDenseProblem},
};
const KernelPath<Nvfp4GroupedParams> kWgmmaGroupedPath{
    FP8KIT_PATH_SM90_WGMMA, arch::kHopperWgmma, &build::nvfp4_sm90_images, &wgmma_tensor_cores, &wgmma_takes_grouped,
    &wgmma_grouped_workspace, &wgmma_launch_grouped, &wgmma_probe, {nvfp4::kWgmmaGroupedKernel, nullptr},
};
#endif

}  // namespace

template <>
const std::vector<const KernelPath<Nvfp4Params>*>& registry<Nvfp4Params>() {
  static const std::vector<const KernelPath<Nvfp4Params>*> paths{
#ifdef FP8KIT_WITH_NVFP4_SM120
      &kOmmaPath,
#endif
#ifdef FP8KIT_WITH_NVFP4_SM90
      &kWgmmaPath,
#endif
#ifdef FP8KIT_WITH_NVFP4
      &kHmmaPath,
#endif
  };
  return paths;
}

template <>
const std::vector<const KernelPath<Nvfp4GroupedParams>*>& registry<Nvfp4GroupedParams>() {
  static const std::vector<const KernelPath<Nvfp4GroupedParams>*> paths{
#ifdef FP8KIT_WITH_NVFP4_SM120
      &kOmmaGroupedPath,
#endif
#ifdef FP8KIT_WITH_NVFP4_SM90
      &kWgmmaGroupedPath,
#endif
#ifdef FP8KIT_WITH_NVFP4
      &kHmmaGroupedPath,
#endif
  };
  return paths;
}

}  // namespace fp8kit
