// Planted fixture: a misaligned access. An 8-byte load from an address that
// is 4 bytes past an 8-byte boundary.
#include "common.cuh"

__global__ void misaligned_load_kernel(const char* base, double* out) {
  const double* p = reinterpret_cast<const double*>(base + 4 + 8 * threadIdx.x);
  out[threadIdx.x] = *p * 2.0;
}

int main() {
  char* base = nullptr;
  double* out = nullptr;
  cudaMalloc(&base, 4096);
  cudaMalloc(&out, 32 * sizeof(double));
  misaligned_load_kernel<<<1, 32>>>(base, out);
  planted_check(cudaGetLastError(), "launch misaligned_load_kernel");
  return planted_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
