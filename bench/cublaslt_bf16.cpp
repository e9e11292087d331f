#include "cublaslt_bf16.hpp"

#include "common.hpp"

namespace fp8bench {

CublasLtBf16::CublasLtBf16(size_t workspace_bytes) : workspace_bytes_(workspace_bytes) {
  if (cublasLtCreate(&handle_) != CUBLAS_STATUS_SUCCESS) throw CudaFailure("cublasLtCreate failed");
  BENCH_CUDA(cudaMalloc(&workspace_, workspace_bytes_));
}

CublasLtBf16::~CublasLtBf16() {
  destroy();
  if (workspace_) cudaFree(workspace_);
  if (handle_) cublasLtDestroy(handle_);
}

void CublasLtBf16::destroy() {
  if (op_) cublasLtMatmulDescDestroy(op_);
  for (auto* l : {&w_layout_, &a_layout_, &d_layout_}) {
    if (*l) cublasLtMatrixLayoutDestroy(*l);
    *l = nullptr;
  }
  op_ = nullptr;
}

bool CublasLtBf16::prepare(int64_t m, int64_t n, int64_t k, std::string* why) {
  destroy();
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  bool ok = cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS &&
            cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa) ==
                CUBLAS_STATUS_SUCCESS &&
            cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb) ==
                CUBLAS_STATUS_SUCCESS &&
            cublasLtMatrixLayoutCreate(&w_layout_, CUDA_R_16BF, k, n, k) == CUBLAS_STATUS_SUCCESS &&
            cublasLtMatrixLayoutCreate(&a_layout_, CUDA_R_16BF, k, m, k) == CUBLAS_STATUS_SUCCESS &&
            cublasLtMatrixLayoutCreate(&d_layout_, CUDA_R_16BF, n, m, n) == CUBLAS_STATUS_SUCCESS;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  ok = ok && cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS &&
       cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_,
                                            sizeof workspace_bytes_) == CUBLAS_STATUS_SUCCESS &&
       cublasLtMatmulAlgoGetHeuristic(handle_, op_, w_layout_, a_layout_, d_layout_, d_layout_, pref, 1, &result,
                                      &returned) == CUBLAS_STATUS_SUCCESS &&
       returned > 0;
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (!ok) {
    *why = "cuBLASLt has no bf16 algorithm for this shape";
    destroy();
    return false;
  }
  algo_ = result.algo;
  return true;
}

cublasStatus_t CublasLtBf16::run(const void* a, const void* w, void* d, cudaStream_t stream) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(handle_, op_, &alpha, w, w_layout_, a, a_layout_, &beta, d, d_layout_, d, d_layout_, &algo_,
                        workspace_, workspace_bytes_, stream);
}

}  // namespace fp8bench
