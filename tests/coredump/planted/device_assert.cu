// Planted fixture: a device-side assert that fails in one thread.
#include <cassert>

#include "common.cuh"

__global__ void check_scales_kernel(const float* scales, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(scales[i] > 0.0f);
}

int main() {
  const int n = 256;
  float* scales = nullptr;
  cudaMalloc(&scales, n * sizeof(float));
  cudaMemset(scales, 0, n * sizeof(float));  // every scale 0: the assert fails
  check_scales_kernel<<<2, 128>>>(scales, n);
  planted_check(cudaGetLastError(), "launch check_scales_kernel");
  return planted_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
