// Planted fixture: an out-of-bounds store. Each thread writes one float at
// an index far past the end of a small allocation.
#include "common.cuh"

__global__ void scatter_out_of_bounds_kernel(float* out, long long stride) {
  out[(blockIdx.x * blockDim.x + threadIdx.x) * stride] = 1.0f;
}

int main() {
  float* out = nullptr;
  cudaMalloc(&out, 256 * sizeof(float));
  // 2^28 floats apart: 1 GiB strides, far outside the 1 KiB allocation.
  scatter_out_of_bounds_kernel<<<2, 128>>>(out, 1ll << 28);
  planted_check(cudaGetLastError(), "launch scatter_out_of_bounds_kernel");
  return planted_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
