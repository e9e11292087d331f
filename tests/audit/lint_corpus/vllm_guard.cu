// The seed bug, as vLLM wrote it: an equality guard whose #else traps.
__global__ void scaled_mm_sm120(float* out) {
#if defined __CUDA_ARCH__ && __CUDA_ARCH__ == 1200
  out[threadIdx.x] = 1.0f;
#else
  asm("trap;");
#endif
}
