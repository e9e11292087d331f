// Planted fixture: a fault in real code, not a trap stub. Each block computes
// one row's dot product over K (loads, FMAs, a store), and the last block
// reads its bias as a float4 through a pointer 4 bytes past a 16-byte
// boundary: a misaligned 16-byte load in the middle of a real kernel.
#include "common.cuh"

__global__ void row_dot_kernel(const float* a, const float* x, const float* bias, float* y, int k) {
  float acc = 0.f;
  for (int i = threadIdx.x; i < k; i += blockDim.x) acc += a[blockIdx.x * k + i] * x[i];
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if (threadIdx.x != 0) return;
  const float* b = bias + (blockIdx.x == gridDim.x - 1 ? 1 : 0);  // the last row's bias, one float off
  const float4 v = *reinterpret_cast<const float4*>(b);
  y[blockIdx.x] = acc + v.x + v.y + v.z + v.w;
}

int main() {
  const int rows = 4, k = 256;
  float *a = nullptr, *x = nullptr, *bias = nullptr, *y = nullptr;
  cudaMalloc(&a, rows * k * sizeof(float));
  cudaMalloc(&x, k * sizeof(float));
  cudaMalloc(&bias, 8 * sizeof(float));
  cudaMalloc(&y, rows * sizeof(float));
  cudaMemset(a, 0, rows * k * sizeof(float));
  cudaMemset(x, 0, k * sizeof(float));
  cudaMemset(bias, 0, 8 * sizeof(float));
  row_dot_kernel<<<rows, 32>>>(a, x, bias, y, k);
  planted_check(cudaGetLastError(), "launch row_dot_kernel");
  return planted_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
