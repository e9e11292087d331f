// The cuBLASLt side of the comparison: the same D[M,N] = A[M,K] . B[N,K]^T
// with the same scales, on the same buffers.
//
// cuBLASLt is column-major. fp8kit's row-major D[M,N] (ld ldd) is, read
// column-major, D^T [N rows, M cols] with the same ld, and D^T = B . A^T. So
// cuBLASLt's operand A is fp8kit's B (stored K x N column-major, ld ldb,
// TRANSA = T) and its operand B is fp8kit's A (stored K x M, ld lda,
// TRANSB = N): the TN form that FP8 matmuls require. Its m, n, k are N, M, K,
// and its A scale is fp8kit's B scale and vice versa:
//   tensor:  SCALAR_32F both sides.
//   channel: OUTER_VEC_32F; its A vector has m = N entries (fp8kit's per-channel
//            B scale as is), its B vector n = M entries (per-token A scale as is).
//   block:   A (weight) BLK128x128_32F: [NB = ceil(N/128)] blocks of K-block
//            scales, K blocks contiguous, leading dimension ceil(K/128) rounded up
//            to a multiple of 4 (fp8kit's B block layout with its ld padded; see
//            to_lt_weight_block_scales). B (activations) VEC128_32F:
//            [ceil(K/128), M], M contiguous: fp8kit's A block layout as is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cublasLt.h>

#include "common.hpp"

namespace fp8bench {

struct LtProblem {
  int64_t m = 0, n = 0, k = 0;  // fp8kit's M, N, K
  int64_t lda = 0, ldb = 0, ldd = 0;
  fp8kit_dtype d_type = FP8KIT_DTYPE_BF16;
  Mode mode = Mode::Tensor;
  const float* a_scale = nullptr;          // device, fp8kit layout
  const float* b_scale_lt = nullptr;       // device, cuBLASLt layout (to_lt_weight_block_scales for block)
  const void* bias = nullptr;              // device [N] or null
  fp8kit_dtype bias_type = FP8KIT_DTYPE_BF16;
  bool fast_accum = false;                 // CUBLASLT_MATMUL_DESC_FAST_ACCUM (fp8kit's FAST accumulation)
};

// Leading dimension cuBLASLt takes for the K-block scales of a 128x128 block
// scaled weight.
int64_t lt_weight_block_ld(int64_t k);
// fp8kit's B block scales [ceil(N/128), ceil(K/128)] row-major, re-laid with
// that leading dimension (padding entries 1.0).
std::vector<float> to_lt_weight_block_scales(const std::vector<float>& b_scale, int64_t n, int64_t k);

class CublasLtGemm {
 public:
  static constexpr int kMaxAlgorithms = 8;

  explicit CublasLtGemm(size_t workspace_bytes);
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;
  ~CublasLtGemm();

  // Builds the descriptors (scale pointers set before the heuristic query,
  // which otherwise fails INVALID_VALUE for vector and block modes) and asks
  // for up to kMaxAlgorithms. False, with `why`, where cuBLASLt refuses.
  bool prepare(const LtProblem& p, std::string* why);
  int algorithm_count() const { return static_cast<int>(algos_.size()); }
  // Queues the matmul with the given heuristic result on `stream`.
  cublasStatus_t run(int algorithm, const void* a, const void* b, void* d, cudaStream_t stream);

  static std::string version();

 private:
  void destroy_descriptors();

  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr, d_layout_ = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> algos_;
};

}  // namespace fp8bench
