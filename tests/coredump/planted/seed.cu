// Planted fixture (the one place an architecture equality is allowed in
// fp8kit: it plants the seed's bug on purpose). An "FP8 GEMM" guarded
// `#if __CUDA_ARCH__ == SEED_GUARD ... #else trap`, built into one module with
// two images. Built for sm_80 and sm_90 with SEED_GUARD=800, an H200 (9.0)
// loads the sm_90 image, a trap stub, while the sm_80 image has the real code.
// An innocent kernel runs after it; the host learns of the fault only at the
// synchronisation, where the error names no kernel.
#include <cstdint>

#include "common.cuh"

#ifndef SEED_GUARD
#define SEED_GUARD 800
#endif

// D[m, n] = sum_k A[m, k] * B[n, k] over e4m3 bytes decoded crudely: enough
// real work that the good image is not a stub.
__global__ void fp8_scaled_gemm_kernel(const std::uint8_t* a, const std::uint8_t* b, float* d, int m, int n,
                                       int k) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == SEED_GUARD
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.f;
  for (int i = 0; i < k; ++i) acc += float(a[row * k + i]) * float(b[col * k + i]);
  d[row * n + col] = acc;
#else
  asm("trap;");
#endif
}

// y = x * rsqrt(mean(x^2) + eps), one block per row: the kernel the error
// surfaces at in the seed's story.
__global__ void rms_norm_kernel(const float* x, float* y, int n) {
  __shared__ float sum;
  if (threadIdx.x == 0) sum = 0.f;
  __syncthreads();
  float local = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) local += x[blockIdx.x * n + i] * x[blockIdx.x * n + i];
  atomicAdd(&sum, local);
  __syncthreads();
  const float r = rsqrtf(sum / n + 1e-6f);
  for (int i = threadIdx.x; i < n; i += blockDim.x) y[blockIdx.x * n + i] = x[blockIdx.x * n + i] * r;
}

int main() {
  const int m = 64, n = 64, k = 128;
  std::uint8_t *a = nullptr, *b = nullptr;
  float *d = nullptr, *x = nullptr, *y = nullptr;
  cudaMalloc(&a, m * k);
  cudaMalloc(&b, n * k);
  cudaMalloc(&d, m * n * sizeof(float));
  cudaMalloc(&x, m * n * sizeof(float));
  cudaMalloc(&y, m * n * sizeof(float));
  cudaMemset(a, 0, m * k);
  cudaMemset(b, 0, n * k);
  cudaMemset(x, 0, m * n * sizeof(float));
  fp8_scaled_gemm_kernel<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(a, b, d, m, n, k);
  planted_check(cudaGetLastError(), "launch fp8_scaled_gemm_kernel");
  rms_norm_kernel<<<m, 128>>>(x, y, n);
  planted_check(cudaGetLastError(), "launch rms_norm_kernel");
  return planted_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
