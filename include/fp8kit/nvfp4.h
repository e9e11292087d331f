/* fp8kit NVFP4: block-scaled FP4 GEMM (dense and grouped) and its quantiser.
 * Included by fp8kit/fp8kit.h; include that header, not this one.
 *
 * The format (vLLM, PyTorch, cuBLASLt, CUTLASS and Triton agree on it):
 *   values   E2M1 (sign, 2 exponent bits, 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3,
 *            4, 6), two per byte: element 2i in the low nibble, 2i+1 in the high
 *            nibble. A row of K elements is K / 2 bytes.
 *   scales   one E4M3 byte (used as unsigned: its sign must be 0) per 16
 *            consecutive K elements of a row ("block"): row r, block kb.
 *   alpha    one f32 applied to the product; for vLLM's checkpoints
 *            1 / (input_global_scale * weight_global_scale).
 *   The value of element (r, k) is e2m1(r, k) * e4m3(scale(r, k / 16)).
 *
 * Scale layouts of a [rows, K] operand (Kb = K / 16 blocks per row):
 *   SWIZZLED  512-byte tiles of 128 rows x 4 blocks, K-fastest; with
 *             Kb4 = round_up(Kb, 4) the byte of (r, kb) is
 *               ((r / 128) * (Kb4 / 4) + kb / 4) * 512
 *                 + (r % 32) * 16 + ((r % 128) / 32) * 4 + kb % 4
 *             The buffer holds round_up(rows, 128) * Kb4 bytes; the padding
 *             rows and blocks are zero (fp8kit_nvfp4_quantize writes them).
 *             What vLLM's scaled_fp4_quant(..., is_sf_swizzled_layout=True)
 *             returns and what cuBLASLt and CUTLASS read.
 *   LINEAR    [rows, Kb] row-major bytes: the byte of (r, kb) is r * Kb + kb.
 *
 * GEMM:  D[M,N] = alpha * (A[M,K] . B[N,K]^T) (+ bias[N]),  f32 accumulation.
 *   B    NVFP4 [N, K/2] bytes, row pitch ldb bytes, scales b_scale.
 *   A    NVFP4 [M, K/2] bytes (W4A4), pitch lda bytes, scales a_scale; or
 *        bf16 / f16 [M, K] (W4A16, weight-only), pitch lda elements, a_scale NULL.
 *   D    bf16, f16 or f32 [M, N], pitch ldd elements. bias optional, [N].
 *   alpha device f32 [1], or NULL for 1.0.
 * Accepted (else FP8KIT_STATUS_INVALID_ARGUMENT naming the argument):
 *   M, N >= 1; K >= 32 and K % 32 == 0 (FP8KIT_NVFP4_K_GRANULE); all < 2^31.
 *   lda (in A's units) and ldb >= the row; lda, ldb and ldd in bytes
 *   multiples of 16; A, B, D 16-byte aligned; swizzled scales 16-byte
 *   aligned, linear ones any; alpha 4-byte aligned; bias aligned to its type.
 *   D must not overlap any input.
 * Paths: sm120_mma (SM12x, W4A4: the block-scaled FP4 mma.sync, SASS OMMA.SF,
 *   one sm_120f image) and sm75_hmma (every family from SM75: E2M1 x E4M3
 *   decoded to f16 / bf16 in registers, exactly, then HMMA; bf16 activations
 *   need SM80+, since SM75 has no bf16 tensor-core mma). docs/nvfp4.md. */
#ifndef FP8KIT_NVFP4_H
#define FP8KIT_NVFP4_H

#ifndef FP8KIT_FP8KIT_H
#error "include fp8kit/fp8kit.h, which includes fp8kit/nvfp4.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define FP8KIT_NVFP4_BLOCK 16      /* K elements per E4M3 scale */
#define FP8KIT_NVFP4_K_GRANULE 32  /* K of a GEMM is a multiple of this (16 bytes of a packed row) */

typedef enum fp8kit_nvfp4_scale_layout {
  FP8KIT_NVFP4_SCALES_SWIZZLED = 0, /* 128 x 4 tiles (see above) */
  FP8KIT_NVFP4_SCALES_LINEAR = 1,   /* [rows, K / 16] row-major */
  FP8KIT_NVFP4_SCALES_FORCE_INT32 = 0x7fffffff
} fp8kit_nvfp4_scale_layout;

/* The operands of an NVFP4 GEMM, shared by the dense and the grouped
 * descriptor (embedded in both; this struct itself never grows). */
typedef struct fp8kit_nvfp4_operands {
  const void* a;        /* NVFP4 [M, K/2] or bf16 / f16 [M, K] */
  int64_t lda;          /* bytes (NVFP4) or elements (bf16 / f16) */
  const void* a_scale;  /* E4M3 block scales of A (NVFP4 A only; else NULL) */
  const void* b;        /* NVFP4 [N, K/2] */
  int64_t ldb;          /* bytes */
  const void* b_scale;  /* E4M3 block scales of B */
  const float* alpha;   /* device f32 [1] (grouped: [E]); NULL: 1.0 */
  void* d;
  int64_t ldd;          /* elements of d_type */
  const void* bias;     /* [N] (grouped: [E, N]) of bias_type; may be NULL */
  fp8kit_dtype a_type;  /* FP8KIT_DTYPE_NVFP4, BF16 or F16 */
  fp8kit_dtype b_type;  /* FP8KIT_DTYPE_NVFP4 */
  fp8kit_nvfp4_scale_layout a_scale_layout;
  fp8kit_nvfp4_scale_layout b_scale_layout;
  fp8kit_dtype d_type;  /* BF16, F16 or F32 */
  fp8kit_dtype bias_type;
} fp8kit_nvfp4_operands;

typedef struct fp8kit_nvfp4_gemm_desc {
  size_t struct_size; /* sizeof(fp8kit_nvfp4_gemm_desc): FP8KIT_NVFP4_GEMM_DESC_INIT */
  int64_t m, n, k;
  fp8kit_nvfp4_operands op;
} fp8kit_nvfp4_gemm_desc;

#define FP8KIT_NVFP4_GEMM_DESC_INIT FP8KIT_STRUCT_INIT_(fp8kit_nvfp4_gemm_desc)
static inline void fp8kit_nvfp4_gemm_desc_init(fp8kit_nvfp4_gemm_desc* desc) {
  memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
}

/* Runs D = alpha * A.B^T (+ bias) on `stream`; options as for fp8kit_gemm
 * (path, checked, programmatic_launch, workspace). May be NULL.
 * Workspace: sm90_wgmma (Hopper) runs NVFP4 A beyond its decode sizes (more
 * than 16 tokens; grouped, experts of 20 rows or more) by widening A to bf16
 * (exactly: an E2M1 value times an E4M3 scale fits bf16) into the workspace
 * and running the W4A16 kernels: lend at least
 * fp8kit_nvfp4_gemm_workspace_size bytes (M x K x 2), 16-byte aligned,
 * without workspace_zeroed (a zeroed workspace is kept for split-K counters
 * and never written here). Without it those problems run sm75_hmma (AUTO) or
 * are refused with UNSUPPORTED (path sm90_wgmma). Nothing else uses it. */
fp8kit_status fp8kit_nvfp4_gemm(const fp8kit_nvfp4_gemm_desc* desc, const fp8kit_gemm_options* options,
                                void* stream);
/* The path fp8kit_nvfp4_gemm would run, without launching anything. */
fp8kit_status fp8kit_nvfp4_gemm_select(const fp8kit_nvfp4_gemm_desc* desc, const fp8kit_gemm_options* options,
                                       fp8kit_path* path);
/* Bytes of workspace the call would use with enough lent (0 if none): A
 * widened to bf16 where sm90_wgmma runs NVFP4 A beyond decode. */
fp8kit_status fp8kit_nvfp4_gemm_workspace_size(const fp8kit_nvfp4_gemm_desc* desc,
                                               const fp8kit_gemm_options* options, size_t* bytes);

/* ---- Grouped NVFP4 GEMM (mixture-of-experts layers) -------------------------
 *
 * The layouts of fp8kit_grouped_gemm (CONTIGUOUS with offs, MASKED with
 * counts; clamping, graphs and empty experts alike), per expert e:
 *   B [E, N, K/2] (expert stride N * ldb bytes); b_scale per expert, one
 *     after another, each the size of an [N, K] operand's scales in its layout.
 *   A (NVFP4) CONTIGUOUS: a_scale is the scale matrix of all T rows as one
 *     [T, K] operand; MASKED: per expert, each of an [max_m, K] operand's size.
 *   alpha [E] (NULL: all 1.0); bias [E, N].
 * Accepted as fp8kit_nvfp4_gemm, plus what fp8kit_grouped_gemm requires of
 * experts, rows, offs and counts. */
typedef struct fp8kit_nvfp4_grouped_gemm_desc {
  size_t struct_size; /* sizeof(fp8kit_nvfp4_grouped_gemm_desc): FP8KIT_NVFP4_GROUPED_GEMM_DESC_INIT */
  fp8kit_grouped_layout layout;
  int64_t experts;       /* E */
  int64_t rows;          /* contiguous: T; masked: max_m */
  int64_t n, k;
  const int32_t* offs;   /* contiguous: [E] cumulative row ends; masked: NULL */
  const int32_t* counts; /* masked: [E] valid rows; contiguous: NULL */
  fp8kit_nvfp4_operands op;
} fp8kit_nvfp4_grouped_gemm_desc;

#define FP8KIT_NVFP4_GROUPED_GEMM_DESC_INIT FP8KIT_STRUCT_INIT_(fp8kit_nvfp4_grouped_gemm_desc)
static inline void fp8kit_nvfp4_grouped_gemm_desc_init(fp8kit_nvfp4_grouped_gemm_desc* desc) {
  memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
}

fp8kit_status fp8kit_nvfp4_grouped_gemm(const fp8kit_nvfp4_grouped_gemm_desc* desc,
                                        const fp8kit_gemm_options* options, void* stream);
fp8kit_status fp8kit_nvfp4_grouped_gemm_select(const fp8kit_nvfp4_grouped_gemm_desc* desc,
                                               const fp8kit_gemm_options* options, fp8kit_path* path);
/* As fp8kit_nvfp4_gemm_workspace_size: all rows of A widened (contiguous
 * T x K x 2 bytes, masked E x max_m x K x 2). */
fp8kit_status fp8kit_nvfp4_grouped_gemm_workspace_size(const fp8kit_nvfp4_grouped_gemm_desc* desc,
                                                       const fp8kit_gemm_options* options, size_t* bytes);

/* ---- NVFP4 quantisation (the producer of W4A4's A) --------------------------
 *
 *   y[m, k] = x[m, k]                                                (rms_weight NULL)
 *   y[m, k] = x[m, k] * rsqrt(mean_k(x[m, :]^2) + eps) * rms_weight[k]  (fused RMSNorm)
 * per row m and block kb of 16 elements, with g = global_scale[0] (static):
 *   s        = e4m3(g * amax |y[m, 16 kb : 16 kb + 16]| / 6)   (rn, saturating at 448)
 *   q[m, k]  = e2m1(y[m, k] * (g / s))                         (rn, saturating at 6; 0 if s = 0)
 * written as packed bytes q [M, K/2] (pitch ldq bytes) and the scales s in
 * scale_layout (SWIZZLED: the padding rows and blocks written as zero). The
 * GEMM of q then takes alpha = 1 / (g * weight_global_scale). vLLM's
 * scaled_fp4_quant computes the same.
 * x bf16 or f16 [M, K] (pitch ldx elements); rms_weight x's dtype, [K].
 * Accepted: M >= 1, K >= 16 and K % 16 == 0; ldx * sizeof(x) multiple of 16,
 * ldq >= K/2 and a multiple of 8; x 16-byte aligned, q 8-byte aligned,
 * swizzled scales 16-byte aligned; global_scale 4-byte aligned; no output
 * overlapping an input or the other output. */
typedef struct fp8kit_nvfp4_quantize_desc {
  size_t struct_size; /* sizeof(fp8kit_nvfp4_quantize_desc): FP8KIT_NVFP4_QUANTIZE_DESC_INIT */
  int64_t m, k;
  const void* x;
  int64_t ldx;              /* elements */
  void* q;
  int64_t ldq;              /* bytes */
  void* scale;              /* E4M3 block scales, written */
  const float* global_scale; /* device f32 [1], read; NULL: 1.0 */
  const void* rms_weight;   /* optional fused RMSNorm */
  fp8kit_dtype x_type;      /* BF16 or F16 */
  fp8kit_dtype q_type;      /* FP8KIT_DTYPE_NVFP4 */
  fp8kit_nvfp4_scale_layout scale_layout;
  float eps;                /* RMSNorm epsilon */
} fp8kit_nvfp4_quantize_desc;

#define FP8KIT_NVFP4_QUANTIZE_DESC_INIT FP8KIT_STRUCT_INIT_(fp8kit_nvfp4_quantize_desc)
static inline void fp8kit_nvfp4_quantize_desc_init(fp8kit_nvfp4_quantize_desc* desc) {
  memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
}

fp8kit_status fp8kit_nvfp4_quantize(const fp8kit_nvfp4_quantize_desc* desc, void* stream);

/* Bytes of the block scales of a [rows, k] NVFP4 operand in `layout`
 * (k a multiple of 16). */
fp8kit_status fp8kit_nvfp4_scale_size(int64_t rows, int64_t k, fp8kit_nvfp4_scale_layout layout, size_t* bytes);
const char* fp8kit_nvfp4_scale_layout_name(fp8kit_nvfp4_scale_layout layout);

#ifdef __cplusplus
}
#endif
#endif /* FP8KIT_NVFP4_H */
