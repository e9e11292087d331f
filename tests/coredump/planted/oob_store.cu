// Planted fixture: an out-of-bounds store. Each thread writes one float
// 256 MiB past the end of a 1 KiB allocation, where nothing is mapped.
#include "common.cuh"

constexpr long long kFarPastEnd = 1ll << 26;  // floats: 256 MiB

__global__ void scatter_out_of_bounds_kernel(float* out, long long offset) {
  out[offset + blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

int main() {
  float* out = nullptr;
  cudaMalloc(&out, 256 * sizeof(float));
  scatter_out_of_bounds_kernel<<<2, 128>>>(out, kFarPastEnd);
  planted_check(cudaGetLastError(), "launch scatter_out_of_bounds_kernel");
  return planted_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
