// A family-range guard: every 12.x cubin gets the same code.
__global__ void ranged_norm(float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300
  out[threadIdx.x] *= 0.5f;
#endif
}
