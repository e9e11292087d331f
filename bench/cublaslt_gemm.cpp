#include "cublaslt_gemm.hpp"

#include <cstdio>

namespace fp8bench {
namespace {

// The weight's block-scale leading dimension is padded to this many floats.
constexpr int64_t kLtBlockLdMultiple = 4;

const char* status_name(cublasStatus_t s) { return cublasLtGetStatusName(s); }

cudaDataType_t to_cuda_type(fp8kit_dtype t) {
  switch (t) {
    case FP8KIT_DTYPE_E4M3: return CUDA_R_8F_E4M3;
    case FP8KIT_DTYPE_E5M2: return CUDA_R_8F_E5M2;
    case FP8KIT_DTYPE_BF16: return CUDA_R_16BF;
    case FP8KIT_DTYPE_F16: return CUDA_R_16F;
    case FP8KIT_DTYPE_F32:
    default: return CUDA_R_32F;
  }
}

// Turns a failed cuBLASLt setup call into `why` and a false return.
#define LT_TRY(call)                                                        \
  do {                                                                      \
    const cublasStatus_t lt_status_ = (call);                               \
    if (lt_status_ != CUBLAS_STATUS_SUCCESS) {                              \
      *why = std::string(#call).substr(0, std::string(#call).find('(')) +   \
             ": " + status_name(lt_status_);                                \
      destroy_descriptors();                                                \
      return false;                                                         \
    }                                                                       \
  } while (0)

template <typename T>
cublasStatus_t set_attr(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, const T& value) {
  return cublasLtMatmulDescSetAttribute(d, attr, &value, sizeof value);
}

}  // namespace

int64_t lt_weight_block_ld(int64_t k) { return round_up(ceil_div(k, kScaleBlock), kLtBlockLdMultiple); }

std::vector<float> to_lt_weight_block_scales(const std::vector<float>& b_scale, int64_t n, int64_t k) {
  const int64_t kb = ceil_div(k, kScaleBlock);
  const int64_t nb = ceil_div(n, kScaleBlock);
  const int64_t ld = lt_weight_block_ld(k);
  std::vector<float> out(static_cast<size_t>(ld * nb), 1.0f);
  for (int64_t i = 0; i < nb; ++i)
    for (int64_t j = 0; j < kb; ++j) out[i * ld + j] = b_scale[i * kb + j];
  return out;
}

CublasLtGemm::CublasLtGemm(size_t workspace_bytes) : workspace_bytes_(workspace_bytes) {
  const cublasStatus_t s = cublasLtCreate(&handle_);
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaFailure(std::string("cublasLtCreate: ") + status_name(s));
  BENCH_CUDA(cudaMalloc(&workspace_, workspace_bytes_));
}

CublasLtGemm::~CublasLtGemm() {
  destroy_descriptors();
  if (workspace_) cudaFree(workspace_);
  if (handle_) cublasLtDestroy(handle_);
}

void CublasLtGemm::destroy_descriptors() {
  if (op_) cublasLtMatmulDescDestroy(op_);
  for (auto* l : {&a_layout_, &b_layout_, &d_layout_}) {
    if (*l) cublasLtMatrixLayoutDestroy(*l);
    *l = nullptr;
  }
  op_ = nullptr;
  algos_.clear();
}

bool CublasLtGemm::prepare(const LtProblem& p, std::string* why) {
  destroy_descriptors();
  LT_TRY(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_TRANSA, transa));
  LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_TRANSB, transb));
  const int8_t fast_accum = p.fast_accum ? 1 : 0;
  LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast_accum));

  cublasLtMatmulMatrixScale_t lt_a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  cublasLtMatmulMatrixScale_t lt_b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  switch (p.mode) {
    case Mode::Tensor: break;
    case Mode::TokenChannel:
      lt_a_mode = lt_b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
      break;
    case Mode::Block:
      lt_a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
      lt_b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
      break;
  }
  // cuBLASLt's A is fp8kit's B (the weight) and its B is fp8kit's A.
  const void* lt_a_scale = p.b_scale_lt;
  const void* lt_b_scale = p.a_scale;
  LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, lt_a_mode));
  LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, lt_b_mode));
  LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, lt_a_scale));
  LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, lt_b_scale));
  if (p.bias) {
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const cudaDataType_t bias_type = to_cuda_type(p.bias_type);
    LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue));
    LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, p.bias));
    LT_TRY(set_attr(op_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, bias_type));
  }

  LT_TRY(cublasLtMatrixLayoutCreate(&a_layout_, CUDA_R_8F_E4M3, p.k, p.n, p.ldb));
  LT_TRY(cublasLtMatrixLayoutCreate(&b_layout_, CUDA_R_8F_E4M3, p.k, p.m, p.lda));
  LT_TRY(cublasLtMatrixLayoutCreate(&d_layout_, to_cuda_type(p.d_type), p.n, p.m, p.ldd));

  cublasLtMatmulPreference_t pref = nullptr;
  LT_TRY(cublasLtMatmulPreferenceCreate(&pref));
  cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                          &workspace_bytes_, sizeof workspace_bytes_);
  cublasLtMatmulHeuristicResult_t results[kMaxAlgorithms] = {};
  int returned = 0;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulAlgoGetHeuristic(handle_, op_, a_layout_, b_layout_, d_layout_, d_layout_, pref,
                                       kMaxAlgorithms, results, &returned);
  cublasLtMatmulPreferenceDestroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS) {
    *why = std::string("cublasLtMatmulAlgoGetHeuristic: ") + status_name(s);
    destroy_descriptors();
    return false;
  }
  for (int i = 0; i < returned; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS) algos_.push_back(results[i]);
  if (algos_.empty()) {
    *why = "no algorithm from the heuristic";
    destroy_descriptors();
    return false;
  }
  return true;
}

cublasStatus_t CublasLtGemm::run(int algorithm, const void* a, const void* b, void* d, cudaStream_t stream) {
  const float alpha = 1.0f, beta = 0.0f;
  // Operands swapped: cuBLASLt's A is fp8kit's B. beta = 0, so C is D itself.
  return cublasLtMatmul(handle_, op_, &alpha, b, a_layout_, a, b_layout_, &beta, d, d_layout_, d, d_layout_,
                        &algos_[algorithm].algo, workspace_, workspace_bytes_, stream);
}

std::string CublasLtGemm::version() {
  const size_t v = cublasLtGetVersion();
  char text[32];
  std::snprintf(text, sizeof text, "%zu.%zu.%zu", v / 10000, (v / 100) % 100, v % 100);
  return text;
}

}  // namespace fp8bench
