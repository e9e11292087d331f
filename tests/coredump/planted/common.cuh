// Shared by the planted programs: report each CUDA call the way a serving
// process would see it (launch status, then the status at the next sync).
#pragma once
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

inline int planted_check(cudaError_t e, const char* what) {
  std::printf("%s: %s (%d)\n", what, cudaGetErrorString(e), static_cast<int>(e));
  std::fflush(stdout);
  return e == cudaSuccess ? 0 : 1;
}
