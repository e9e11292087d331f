// The exact guard the list beside builds.
__global__ void guarded_gemm(float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 1200
  out[threadIdx.x] = 1.0f;
#else
  __trap();
#endif
}
