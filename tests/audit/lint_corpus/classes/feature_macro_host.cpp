// Class 2: a build feature macro (CUTLASS_ARCH_MMA_SM100A_SUPPORTED) is no
// `a` target beside the host test: the test below refuses a 10.3 GPU.
#include <stdexcept>

#if defined(CUTLASS_ARCH_MMA_SM100A_SUPPORTED)
constexpr bool kHaveSm100Kernels = true;
#else
constexpr bool kHaveSm100Kernels = false;
#endif

void run_blockwise_gemm(int sm_version) {
  if (sm_version == 100 && kHaveSm100Kernels) {
    return;
  }
  throw std::runtime_error("blockwise GEMM: unsupported GPU");
}
