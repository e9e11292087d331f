// Range guards and host/device splits are clean. Prose may mention
// __CUDA_ARCH__ == 1200 and strings may hold it: "__CUDA_ARCH__ == 1200".
#include <cstdio>
__global__ void ranged(float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300
  out[threadIdx.x] = 1.0f;
#else
  out[threadIdx.x] = 0.5f * out[threadIdx.x];
#endif
}
__host__ __device__ int where() {
#ifdef __CUDA_ARCH__
  return 1;
#else
  return 0;
#endif
}
inline bool has_fp8(int major, int minor) { return major * 10 + minor >= 89; }
const char* kMsg = "sm_120 == what we tested";
