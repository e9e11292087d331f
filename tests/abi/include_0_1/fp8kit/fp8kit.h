/* fp8kit 0.1.0's public header, frozen (tests/abi): the ABI that programs built
 * before versioned structs bind to. Never edit; test_abi_0_1.c compiles against it. */
/* fp8kit: FP8 scaled GEMM for every NVIDIA GPU family from SM75 up.
 *
 *   D[M,N] = (A[M,K] . B[N,K]^T) (x) scales (+ bias[N]),  accumulated in f32.
 *
 * Layouts ("TN", as checkpoints store weights):
 *   A  [M, K] row-major, K contiguous, leading dimension lda (elements = bytes)
 *   B  [N, K] row-major, K contiguous, leading dimension ldb
 *   D  [M, N] row-major, N contiguous, leading dimension ldd (elements)
 *
 * Scales (device pointers to f32):
 *   A: NONE (1.0) | TENSOR [1] | ROW [M] (per token)       | BLOCK [ceil(K/128), M]
 *   B: NONE (1.0) | TENSOR [1] | COL [N] (per channel)     | BLOCK [ceil(N/128), ceil(K/128)]
 *   A BLOCK is one scale per 1x128 group of A, stored M-contiguous: the scale of
 *   A[m, k] is a_scale[(k / 128) * M + m]. B BLOCK is one scale per 128x128 block
 *   of B, row-major: the scale of B[n, k] is b_scale[(n / 128) * ceil(K/128) + k / 128].
 *   BLOCK on one side requires BLOCK on the other; the block scales are applied
 *   inside the K loop (each 128-deep slice), not folded into the epilogue.
 *   TENSOR, ROW and COL mix freely with each other and with NONE.
 *
 * What is accepted (anything else returns FP8KIT_STATUS_INVALID_ARGUMENT):
 *   M >= 1, N >= 1, K >= 16 and K % 16 == 0; M, N, K < 2^31.
 *   A and B e4m3 or e5m2 in any pairing; D bf16, fp16 or f32; bias (optional,
 *   may be NULL) bf16, fp16 or f32.
 *   lda >= K, ldb >= K, ldd >= N; lda and ldb multiples of 16 bytes, ldd * sizeof(D)
 *   a multiple of 16 bytes; A, B, D 16-byte aligned; scales and bias 4-byte aligned
 *   (2-byte for a 16-bit bias).
 *   D must not overlap A, B, the scales or the bias.
 *
 * Every call is stream-ordered, never synchronises (unless checked launches are
 * asked for), never allocates and never prints. Errors come back as a status;
 * fp8kit_last_error() gives the message (per thread), naming the argument.
 */
#ifndef FP8KIT_FP8KIT_H
#define FP8KIT_FP8KIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FP8KIT_VERSION_MAJOR 0
#define FP8KIT_VERSION_MINOR 1
#define FP8KIT_VERSION_PATCH 0

typedef enum fp8kit_status {
  FP8KIT_STATUS_SUCCESS = 0,
  FP8KIT_STATUS_INVALID_ARGUMENT = 1, /* bad input; message names the argument */
  FP8KIT_STATUS_UNSUPPORTED = 2,      /* device or combination this build cannot run */
  FP8KIT_STATUS_CUDA_ERROR = 3,       /* CUDA reported an error; message names the kernel */
  FP8KIT_STATUS_INTERNAL_ERROR = 4,
  FP8KIT_STATUS_FORCE_INT32 = 0x7fffffff /* keeps every enum 32-bit in C and C++ */
} fp8kit_status;

typedef enum fp8kit_dtype {
  FP8KIT_DTYPE_E4M3 = 0,
  FP8KIT_DTYPE_E5M2 = 1,
  FP8KIT_DTYPE_BF16 = 2,
  FP8KIT_DTYPE_F16 = 3,
  FP8KIT_DTYPE_F32 = 4,
  FP8KIT_DTYPE_FORCE_INT32 = 0x7fffffff
} fp8kit_dtype;

typedef enum fp8kit_scale_mode {
  FP8KIT_SCALE_NONE = 0,   /* no scale (1.0); pointer must be NULL */
  FP8KIT_SCALE_TENSOR = 1, /* one f32 */
  FP8KIT_SCALE_ROW = 2,    /* A only: [M] per token */
  FP8KIT_SCALE_COL = 3,    /* B only: [N] per channel */
  FP8KIT_SCALE_BLOCK = 4,  /* A: 1x128 groups, B: 128x128 blocks (see above) */
  FP8KIT_SCALE_FORCE_INT32 = 0x7fffffff
} fp8kit_scale_mode;

/* The kernel families. AUTO lets the library pick the fastest valid one for
 * the device, falling back automatically when a specialised path does not take
 * the input. Forcing a path that cannot run returns FP8KIT_STATUS_UNSUPPORTED. */
typedef enum fp8kit_path {
  FP8KIT_PATH_AUTO = 0,
  FP8KIT_PATH_SM90_WGMMA = 1, /* Hopper sm_90a: TMA + wgmma (native FP8) */
  FP8KIT_PATH_SM89_MMA = 2,   /* mma.sync m16n8k32 FP8: native on SM89/SM12x */
  FP8KIT_PATH_SM75_HMMA = 3,  /* FP8 -> f16 in registers, HMMA: SM75 and up */
  FP8KIT_PATH_FORCE_INT32 = 0x7fffffff
} fp8kit_path;

typedef struct fp8kit_gemm_desc {
  int64_t m, n, k;
  const void* a; int64_t lda; fp8kit_dtype a_type;
  const void* b; int64_t ldb; fp8kit_dtype b_type;
  void* d;       int64_t ldd; fp8kit_dtype d_type;
  fp8kit_scale_mode a_scale_mode; const float* a_scale;
  fp8kit_scale_mode b_scale_mode; const float* b_scale;
  const void* bias; fp8kit_dtype bias_type; /* bias may be NULL */
} fp8kit_gemm_desc;

typedef struct fp8kit_gemm_options {
  fp8kit_path path;      /* FP8KIT_PATH_AUTO unless testing a path */
  int checked;           /* nonzero: synchronise after the launch and return the
                            fault of this kernel, by name (debugging aid) */
  void* workspace;       /* optional, device memory; see fp8kit_gemm_workspace_size */
  size_t workspace_size;
} fp8kit_gemm_options;

/* Fills options with the defaults (AUTO path, unchecked, no workspace). The
 * environment variable FP8KIT_PATH (auto|sm90_wgmma|sm89_mma|sm75_hmma) and
 * FP8KIT_CHECKED=1 override the defaults: a way to force a path in tests. */
void fp8kit_gemm_options_init(fp8kit_gemm_options* options);

/* Runs D = A.B^T (x) scales (+ bias) on `stream` (a cudaStream_t; NULL is the
 * legacy default stream) on the current device. options may be NULL.
 * The sm90_wgmma path starts while the previous kernel on the stream ends
 * (programmatic dependent launch) and reads B, the weights, before that
 * kernel has finished: B must not be written by the kernel launched right
 * before this call on the same stream. */
fp8kit_status fp8kit_gemm(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options,
                          void* stream);

/* The path fp8kit_gemm would run for this problem on the current device,
 * without launching anything (same validation, same errors). */
fp8kit_status fp8kit_gemm_select(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options,
                                 fp8kit_path* path);

/* Bytes of workspace the chosen configuration would use for best speed (0 if
 * none). Passing less workspace is never an error: it only limits split-K. */
fp8kit_status fp8kit_gemm_workspace_size(const fp8kit_gemm_desc* desc,
                                         const fp8kit_gemm_options* options, size_t* bytes);

/* The message of the last failed call on this thread ("" after success). */
const char* fp8kit_last_error(void);
const char* fp8kit_status_name(fp8kit_status status);
const char* fp8kit_dtype_name(fp8kit_dtype dtype);
const char* fp8kit_scale_mode_name(fp8kit_scale_mode mode);
const char* fp8kit_path_name(fp8kit_path path);

/* ---- Grouped GEMM (mixture-of-experts layers) ------------------------------
 *
 *   D_e = (A_e . B_e^T) (x) scales_e (+ bias_e)   for experts e = 0 .. E-1
 *
 * Layouts (each expert's operands packed one after another):
 *   CONTIGUOUS  A [T, K] (lda): the rows of expert e are offs[e-1] .. offs[e]-1
 *               (offs[-1] = 0): `offs` is a device int32 [E] of cumulative row
 *               ends, PyTorch's convention. D [T, N] (ldd), the same rows.
 *   MASKED      A [E, max_m, K] (lda; expert stride max_m * lda), D [E, max_m, N]
 *               (ldd; expert stride max_m * ldd); `counts` is a device int32 [E]
 *               of valid rows per expert. `rows` is max_m.
 *   B [E, N, K] (ldb; expert stride N * ldb) in both layouts.
 * The group sizes are read on the device only: the call never synchronises and
 * sizes nothing from them, so it can be captured in a CUDA graph and replayed
 * with new offs / counts. Rows that belong to no expert (contiguous: at or past
 * the last end; masked: at or past count[e]) are neither read nor written.
 * What only the device can see is clamped, never trusted (docs/grouped.md):
 *   contiguous  end_e = min(T, max(end_{e-1}, offs[e])): an offset out of
 *               order gives its expert no rows, one above T stops at T;
 *   masked      count_e = min(max_m, max(0, counts[e])).
 *
 * Scales (device f32), with R = T (contiguous) or E * max_m (masked) rows:
 *   A: NONE | TENSOR [E] (one per expert) | ROW [R] (per token, in A's row order)
 *      | BLOCK contiguous [ceil(K/128), T] (the dense layout over all T rows),
 *              masked [E, ceil(K/128), max_m] (the dense layout per expert)
 *   B: NONE | TENSOR [E] | COL [E, N] | BLOCK [E, ceil(N/128), ceil(K/128)]
 *   bias (optional) [E, N] of bias_type. BLOCK on one side requires BLOCK on
 *   the other; the others mix freely, as in fp8kit_gemm.
 * Accepted: E >= 1, rows >= 0 (T = 0 is an empty call), N >= 1, K as in
 * fp8kit_gemm; dtypes, leading dimensions and alignment as in fp8kit_gemm;
 * offs / counts 4-byte aligned; D must not overlap an input. All sizes and
 * products such as E * N and E * max_m below 2^31. */
typedef enum fp8kit_grouped_layout {
  FP8KIT_GROUPED_CONTIGUOUS = 0,
  FP8KIT_GROUPED_MASKED = 1,
  FP8KIT_GROUPED_FORCE_INT32 = 0x7fffffff
} fp8kit_grouped_layout;

typedef struct fp8kit_grouped_gemm_desc {
  fp8kit_grouped_layout layout;
  int64_t experts;      /* E */
  int64_t rows;         /* contiguous: T; masked: max_m */
  int64_t n, k;
  const int32_t* offs;   /* contiguous: [E] cumulative row ends; masked: NULL */
  const int32_t* counts; /* masked: [E] valid rows; contiguous: NULL */
  const void* a; int64_t lda; fp8kit_dtype a_type;
  const void* b; int64_t ldb; fp8kit_dtype b_type;
  void* d;       int64_t ldd; fp8kit_dtype d_type;
  fp8kit_scale_mode a_scale_mode; const float* a_scale;
  fp8kit_scale_mode b_scale_mode; const float* b_scale;
  const void* bias; fp8kit_dtype bias_type; /* bias may be NULL */
} fp8kit_grouped_gemm_desc;

/* Runs every expert's GEMM on `stream`; options as for fp8kit_gemm (path,
 * checked; no workspace is used). Paths: sm89_mma and sm75_hmma. */
fp8kit_status fp8kit_grouped_gemm(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                                  void* stream);

/* The path fp8kit_grouped_gemm would run, without launching anything. */
fp8kit_status fp8kit_grouped_gemm_select(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                                         fp8kit_path* path);
const char* fp8kit_grouped_layout_name(fp8kit_grouped_layout layout);

/* ---- Quantisation (the producer of the GEMM's A operand) ------------------
 *
 *   y[m, k] = x[m, k]                                   (rms_weight == NULL)
 *   y[m, k] = x[m, k] * rsqrt(mean_k(x[m, :]^2) + eps) * rms_weight[k]   (fused RMSNorm)
 *   q[m, k] = fp8(y[m, k] / s),  rounded to nearest even, saturating
 *
 * Scale s, by mode (the layouts fp8kit_gemm reads for A):
 *   TENSOR  static: s = scale[0], given by the caller
 *   ROW     dynamic per token: s = amax_k |y[m, :]| / FP8_MAX, written to scale[m]
 *   BLOCK   dynamic per 1x128 group: s = amax |y[m, 128g : 128g + 128]| / FP8_MAX,
 *           written to scale[g * M + m]  ([ceil(K/128), M], M contiguous)
 * FP8_MAX is 448 (e4m3) or 57344 (e5m2). An all-zero row or group gets s = 1.
 * x is bf16, f16 or f32 [M, K] with leading dimension ldx; q is [M, K] with ldq;
 * rms_weight has x's dtype and K elements. K >= 16, K % 16 == 0; ldx * sizeof(x)
 * and ldq multiples of 16 bytes; x, q 16-byte aligned. */
typedef struct fp8kit_quantize_desc {
  int64_t m, k;
  const void* x; int64_t ldx; fp8kit_dtype x_type;
  void* q;       int64_t ldq; fp8kit_dtype q_type;
  fp8kit_scale_mode mode; /* TENSOR, ROW or BLOCK */
  float* scale;           /* TENSOR: read; ROW, BLOCK: written */
  const void* rms_weight; /* optional fused RMSNorm */
  float eps;              /* RMSNorm epsilon (e.g. 1e-6) */
} fp8kit_quantize_desc;

fp8kit_status fp8kit_quantize(const fp8kit_quantize_desc* desc, void* stream);

/* ---- Introspection (the CLI's `info` and `doctor` use these) ---------------- */

typedef enum fp8kit_tensor_cores {
  FP8KIT_TC_NONE = 0,     /* path cannot run here */
  FP8KIT_TC_NATIVE = 1,   /* FP8 tensor-core instructions (QMMA, QGMMA) */
  FP8KIT_TC_EMULATED = 2, /* FP8 mma.sync lowered by ptxas to HMMA (SM90, SM10x, SM11x) */
  FP8KIT_TC_FALLBACK = 3, /* FP8 converted to f16 in registers, HMMA */
  FP8KIT_TC_UNKNOWN = 4,  /* JIT-compiled PTX on a GPU newer than this build */
  FP8KIT_TC_FORCE_INT32 = 0x7fffffff
} fp8kit_tensor_cores;

typedef struct fp8kit_path_choice {
  fp8kit_path path;             /* path AUTO would run; AUTO if none */
  fp8kit_tensor_cores tensor_cores;
  const char* family;           /* "Hopper", "Blackwell (SM12x)", ... or "unknown" */
  const char* image;            /* "sass sm_120", "ptx compute_120 (JIT)", ... */
} fp8kit_path_choice;

/* What AUTO would choose for a device of this capability and scale modes,
 * judged from the images this build carries (no GPU needed). Returns
 * FP8KIT_STATUS_UNSUPPORTED with a message when nothing can run. */
fp8kit_status fp8kit_choose_path(int major, int minor, fp8kit_scale_mode a_mode,
                                 fp8kit_scale_mode b_mode, fp8kit_path_choice* choice);

/* Space-separated list of the targets each path was built for, e.g.
 * "sm89_mma: sm_89 sm_90 ... compute_120". Static storage. */
const char* fp8kit_build_targets(void);

#ifdef __cplusplus
}
#endif
#endif /* FP8KIT_FP8KIT_H */
