// A guard template in the seed's shape: the kernel's operator() runs only when
// compiled for exactly 12.0, and traps on every other target (12.1 included).
#pragma once
#include <utility>

template <typename Kernel>
struct enable_sm120_only : Kernel {
  template <typename... Args>
  __device__ void operator()(Args&&... args) {
#if defined __CUDA_ARCH__
#if __CUDA_ARCH__ == 1200
    Kernel::operator()(std::forward<Args>(args)...);
#else
    printf("This kernel only supports sm120.\n");
    asm("trap;");
#endif
#endif
  }
};
