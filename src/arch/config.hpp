// fp8kit architecture families: the one place where an architecture is named.
//
// Every architecture test in fp8kit is a half-open range [lo, hi) over the
// compute capability, never an equality. A GPU of a minor revision nobody has
// seen yet (12.1 after 12.0, 10.3 after 10.0) therefore lands in its family.
//
// Two encodings of one number:
//   capability  = 10 * major + minor      (host side: 121 for GB10)
//   __CUDA_ARCH__ = 100 * major + 10 * minor (device side: 1210 for GB10)
#pragma once

// ---------------------------------------------------------------------------
// Device side. FP8KIT_DEVICE_ARCH is __CUDA_ARCH__ in a device pass and 0 in
// the host pass, so the range macros below are safe in every #if.
#if defined(__CUDA_ARCH__)
#define FP8KIT_DEVICE_ARCH __CUDA_ARCH__
#else
#define FP8KIT_DEVICE_ARCH 0
#endif

// True in a device pass whose target lies in [lo, hi) (__CUDA_ARCH__ units).
#define FP8KIT_ARCH_IN(lo, hi) (FP8KIT_DEVICE_ARCH >= (lo) && FP8KIT_DEVICE_ARCH < (hi))

// Feature ranges used by kernel sources (device units).
#define FP8KIT_ARCH_ANY_MIN 750             // oldest target fp8kit builds for
#define FP8KIT_ARCH_END 100000              // open upper end
#define FP8KIT_ARCH_CP_ASYNC_MIN 800        // cp.async, mma m16n8k16 f16
#define FP8KIT_ARCH_FP8_MMA_MIN 890         // mma.sync e4m3/e5m2, cvt e4m3x2
#define FP8KIT_ARCH_HOPPER_LO 900           // wgmma and TMA: Hopper family
#define FP8KIT_ARCH_HOPPER_HI 1000
#define FP8KIT_ARCH_GRID_DEPENDENCY_MIN 900  // griddepcontrol (programmatic dependent launch)
#define FP8KIT_ARCH_SM12X_LO 1200           // consumer Blackwell: RTX 50xx, RTX PRO, GB10
#define FP8KIT_ARCH_SM12X_HI 1300

#define FP8KIT_HAS_CP_ASYNC FP8KIT_ARCH_IN(FP8KIT_ARCH_CP_ASYNC_MIN, FP8KIT_ARCH_END)
#define FP8KIT_HAS_FP8_MMA FP8KIT_ARCH_IN(FP8KIT_ARCH_FP8_MMA_MIN, FP8KIT_ARCH_END)
// wgmma needs the arch-specific sm_90a target: __CUDA_ARCH_FEAT_SM90_ALL is
// what nvcc defines for it (a feature flag, not an arch number).
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FP8KIT_HAS_WGMMA FP8KIT_ARCH_IN(FP8KIT_ARCH_HOPPER_LO, FP8KIT_ARCH_HOPPER_HI)
#else
#define FP8KIT_HAS_WGMMA 0
#endif
// mma.sync kind::mxf8f6f4.block_scale (QMMA.SF) needs an sm_12Xa or sm_12Xf
// target; ptxas refuses it for plain sm_120. Both targets define the family
// macro (1200 for sm_120f / sm_120a, 1210 for sm_121f / sm_121a); a range again.
#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
#define FP8KIT_HAS_MMA_SYNC_BLOCK_SCALE                                                        \
  (FP8KIT_ARCH_IN(FP8KIT_ARCH_SM12X_LO, FP8KIT_ARCH_SM12X_HI) &&                              \
   __CUDA_ARCH_FAMILY_SPECIFIC__ >= FP8KIT_ARCH_SM12X_LO && __CUDA_ARCH_FAMILY_SPECIFIC__ < FP8KIT_ARCH_SM12X_HI)
#else
#define FP8KIT_HAS_MMA_SYNC_BLOCK_SCALE 0
#endif
// mma.sync kind::mxf4nvf4.block_scale (FP4 E2M1 with UE4M3 scales, SASS
// OMMA.SF): measured to need the same sm_12Xa / sm_12Xf targets.
#define FP8KIT_HAS_MMA_SYNC_FP4_BLOCK_SCALE FP8KIT_HAS_MMA_SYNC_BLOCK_SCALE
// mma.sync m16n8k16 with bf16 operands (and bf16 arithmetic): Ampere and up.
#define FP8KIT_HAS_BF16_MMA FP8KIT_HAS_CP_ASYNC
#define FP8KIT_HAS_GRID_DEPENDENCY FP8KIT_ARCH_IN(FP8KIT_ARCH_GRID_DEPENDENCY_MIN, FP8KIT_ARCH_END)

// ---------------------------------------------------------------------------
// Host side.
#ifdef __cplusplus
namespace fp8kit::arch {

// Capability as 10 * major + minor. Minor revisions above 9 do not exist.
constexpr int capability(int major, int minor) { return 10 * major + minor; }

struct Range {
  int lo;  // inclusive, capability units
  int hi;  // exclusive
  constexpr bool contains(int cap) const { return cap >= lo && cap < hi; }
};

constexpr int kOpenEnd = 1000;

// The released GPU capabilities, the one list of them: those fp8kit builds
// SASS for (the default FP8KIT_CUDA_TARGETS; CMake reads this #define), and
// those it knows but does not build for (Volta, which fp8kit does not
// support, and 8.8, which loads the 8.6 image). The audit's default GPUs,
// the linter's family model, the CLI's showcase and the tests read them.
#define FP8KIT_SHIPPED_CAPABILITIES 75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121
#define FP8KIT_UNSHIPPED_CAPABILITIES 70, 72, 88
constexpr int kShippedCapabilities[] = {FP8KIT_SHIPPED_CAPABILITIES};
constexpr int kUnshippedCapabilities[] = {FP8KIT_UNSHIPPED_CAPABILITIES};
constexpr int kReleasedCount = sizeof(kShippedCapabilities) / sizeof(int) + sizeof(kUnshippedCapabilities) / sizeof(int);

// Every released capability, ascending: the two lists merged.
struct ReleasedCapabilities {
  int caps[kReleasedCount] = {};
  constexpr ReleasedCapabilities() {
    int n = 0;
    for (int c : kShippedCapabilities) caps[n++] = c;
    for (int c : kUnshippedCapabilities) caps[n++] = c;
    for (int i = 1; i < n; ++i)
      for (int j = i; j > 0 && caps[j - 1] > caps[j]; --j) {
        const int t = caps[j];
        caps[j] = caps[j - 1];
        caps[j - 1] = t;
      }
  }
  constexpr const int* begin() const { return caps; }
  constexpr const int* end() const { return caps + kReleasedCount; }
};
constexpr ReleasedCapabilities kReleasedCapabilities{};

enum class FamilyId { Unknown, Turing, Ampere, Ada, Hopper, BlackwellDatacenter, Thor, BlackwellConsumer };

struct Family {
  FamilyId id;
  const char* name;
  Range range;
  // What mma.sync m16n8k32 FP8 becomes in this family's SASS: native QMMA, an
  // HMMA emulation inserted by ptxas, or not available (docs/design.md,
  // "FP8 mma.sync per family").
  enum class Fp8MmaSync { None, Native, Emulated } fp8_mma_sync;
};

// The families, in capability order. A capability outside every range is
// Unknown: the dispatch then relies on PTX (JIT) or refuses.
constexpr Family kFamilies[] = {
    {FamilyId::Turing, "Turing", {75, 80}, Family::Fp8MmaSync::None},
    {FamilyId::Ampere, "Ampere", {80, 89}, Family::Fp8MmaSync::None},
    {FamilyId::Ada, "Ada", {89, 90}, Family::Fp8MmaSync::Native},
    {FamilyId::Hopper, "Hopper", {90, 100}, Family::Fp8MmaSync::Emulated},
    {FamilyId::BlackwellDatacenter, "Blackwell (datacenter)", {100, 110}, Family::Fp8MmaSync::Emulated},
    {FamilyId::Thor, "Thor", {110, 120}, Family::Fp8MmaSync::Emulated},
    {FamilyId::BlackwellConsumer, "Blackwell (SM12x)", {120, 130}, Family::Fp8MmaSync::Native},
};

constexpr const Family* family_of(int cap) {
  for (const Family& f : kFamilies)
    if (f.range.contains(cap)) return &f;
  return nullptr;
}

// Feature ranges (capability units), mirrors of the device macros above.
constexpr Range kFp8MmaSync{89, kOpenEnd};  // PTX mma e4m3/e5m2 is valid here
constexpr Range kHmmaF16{75, kOpenEnd};     // mma.sync f16 (m16n8k8 from 7.5)
constexpr Range kHopperWgmma{90, 100};      // sm_90a wgmma + TMA
// mma.sync kind::mxf8f6f4.block_scale (QMMA.SF): the SM12x family, from an
// sm_120f image (loads on 12.0, 12.1 and any later 12.x).
constexpr Range kSm12xBlockScaledMma{120, 130};
// mma.sync kind::mxf4nvf4.block_scale (OMMA.SF, NVFP4): the SM12x family too,
// from the same sm_120f image.
constexpr Range kSm12xFp4BlockScaledMma{120, 130};
constexpr Range kBf16Mma{80, kOpenEnd};  // mma.sync bf16: Ampere and up
// The programmatic-stream-serialisation launch attribute and griddepcontrol.
constexpr Range kProgrammaticLaunch{90, kOpenEnd};
constexpr int kMinSupported = 75;

}  // namespace fp8kit::arch
#endif
