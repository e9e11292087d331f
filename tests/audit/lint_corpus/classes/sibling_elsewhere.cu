// Class 3: a guard whose sibling is tested elsewhere in the file. The reason
// must say where the sibling is handled, never that the sibling passes.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 1000
#define GEMM_HAS_SM100_MMA 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 1030
#define GEMM_HAS_SM103_MMA 1
#endif

// One kernel per minor: each one's stub is the other minor's by design.
__global__ void gemm_sm100(float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 1000
  out[threadIdx.x] = 1.0f;
#else
  __trap();
#endif
}
__global__ void gemm_sm103(float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 1030
  out[threadIdx.x] = 2.0f;
#else
  __trap();
#endif
}
