// cuBLASLt's bf16 GEMM, D[M,N] bf16 = A[M,K] . W[N,K]^T with f32 accumulation:
// what a server without NVFP4 kernels runs on NVFP4 weights dequantised to
// bf16 (vLLM's emulation fallback), the NVFP4 bench's reference point.
// Column-major as cuBLASLt sees it: its A is W (K x N, TRANSA = T), its B is A.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace fp8bench {

class CublasLtBf16 {
 public:
  explicit CublasLtBf16(size_t workspace_bytes);
  CublasLtBf16(const CublasLtBf16&) = delete;
  CublasLtBf16& operator=(const CublasLtBf16&) = delete;
  ~CublasLtBf16();
  // Descriptors and the heuristic's first algorithm for this shape; false
  // with `why` when cuBLASLt has none.
  bool prepare(int64_t m, int64_t n, int64_t k, std::string* why);
  cublasStatus_t run(const void* a, const void* w, void* d, cudaStream_t stream);

 private:
  void destroy();
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t w_layout_ = nullptr, a_layout_ = nullptr, d_layout_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  void* workspace_ = nullptr;
  size_t workspace_bytes_;
};

}  // namespace fp8bench
