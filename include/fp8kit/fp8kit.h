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
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version and ABI --------------------------------------------------------
 *
 * FP8KIT_VERSION is the header's version, fp8kit_version() the library's
 * (major * 10000 + minor * 100 + patch): a program can refuse a library older
 * than its header. The ABI rules (docs/abi.md):
 *   - Every struct passed to fp8kit begins with `size_t struct_size`, which the
 *     caller sets to sizeof the struct of the header it was built with; the
 *     FP8KIT_*_INIT macros and the fp8kit_*_init functions below do that and
 *     zero the rest (zero is every field's default). The library reads the
 *     prefix it knows and takes the fields it knows past that prefix as zero;
 *     a larger struct (from a newer header) is accepted when the fields this
 *     library does not know are zero, and refused (INVALID_ARGUMENT, naming
 *     the size) otherwise. Output structs are written up to struct_size.
 *   - Structs only grow at the end; enums only gain values.
 *   - Programs built against 0.1 (structs without struct_size) bind to the
 *     FP8KIT_0.1 symbols of libfp8kit.so.0, which read the 0.1 layouts. */
#define FP8KIT_VERSION_MAJOR 0
#define FP8KIT_VERSION_MINOR 2
#define FP8KIT_VERSION_PATCH 0
#define FP8KIT_VERSION_STRING "0.2.0"
#define FP8KIT_VERSION (FP8KIT_VERSION_MAJOR * 10000 + FP8KIT_VERSION_MINOR * 100 + FP8KIT_VERSION_PATCH)

/* A versioned struct of type T with struct_size set and every other field zero
 * (the FP8KIT_*_INIT macros; C: an initialiser, C++: an expression). */
#ifdef __cplusplus
#define FP8KIT_STRUCT_INIT_(T) ([] { T v_{}; v_.struct_size = sizeof v_; return v_; }())
#else
#define FP8KIT_STRUCT_INIT_(T) {.struct_size = sizeof(T)}
#endif

/* The library's FP8KIT_VERSION and FP8KIT_VERSION_STRING. */
int fp8kit_version(void);
const char* fp8kit_version_string(void);

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
  FP8KIT_DTYPE_NVFP4 = 5, /* E2M1 two per byte with E4M3 block scales: fp8kit/nvfp4.h only */
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
  FP8KIT_PATH_SM120_MMA = 4,  /* SM12x sm_120f: block-scaled mma.sync, unit scales (QMMA.SF) */
  FP8KIT_PATH_CUDA_CORES = 5, /* no tensor cores, every target: fp8kit_quantize (no GEMM) */
  FP8KIT_PATH_FORCE_INT32 = 0x7fffffff
} fp8kit_path;

/* How the sm90_wgmma path sums K (fp8kit_gemm_options.accumulation). Hopper's
 * FP8 wgmma keeps about 14 mantissa bits in its accumulator. PROMOTED (the
 * default) adds each 128-deep K block's sum into an f32 accumulator, so that
 * error is bounded by one block's magnitude; FAST keeps the whole K sum in the
 * wgmma accumulator (as torch._scaled_mm's use_fast_accum and CUTLASS's
 * FP8FastAccum kernels do): faster, with an error that grows with K
 * (docs/testing.md states both bounds). Block scales are always promoted per K
 * block, so FAST is refused with them; the portable paths accumulate in f32
 * either way. */
typedef enum fp8kit_accumulation {
  FP8KIT_ACCUMULATION_PROMOTED = 0,
  FP8KIT_ACCUMULATION_FAST = 1,
  FP8KIT_ACCUMULATION_FORCE_INT32 = 0x7fffffff
} fp8kit_accumulation;

/* The operands of a GEMM, shared by the dense and the grouped descriptor
 * (embedded in both; this struct itself never grows). */
typedef struct fp8kit_gemm_operands {
  const void* a; int64_t lda; fp8kit_dtype a_type;
  const void* b; int64_t ldb; fp8kit_dtype b_type;
  void* d;       int64_t ldd; fp8kit_dtype d_type;
  fp8kit_scale_mode a_scale_mode; const float* a_scale;
  fp8kit_scale_mode b_scale_mode; const float* b_scale;
  const void* bias; fp8kit_dtype bias_type; /* bias may be NULL */
} fp8kit_gemm_operands;

typedef struct fp8kit_gemm_desc {
  size_t struct_size; /* sizeof(fp8kit_gemm_desc): FP8KIT_GEMM_DESC_INIT */
  int64_t m, n, k;
  fp8kit_gemm_operands op;
} fp8kit_gemm_desc;

#define FP8KIT_GEMM_DESC_INIT FP8KIT_STRUCT_INIT_(fp8kit_gemm_desc)
static inline void fp8kit_gemm_desc_init(fp8kit_gemm_desc* desc) {
  memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
}

/* Per-call options; zero (FP8KIT_GEMM_OPTIONS_INIT) is the default of every
 * field. The environment overrides the defaults, once per process, read at
 * the first call: FP8KIT_PATH (auto|sm90_wgmma|sm120_mma|sm89_mma|sm75_hmma)
 * forces a path where `path` is AUTO (a way to test a path), FP8KIT_CHECKED=1
 * and FP8KIT_PDL=1 turn `checked` and `programmatic_launch` on. */
typedef struct fp8kit_gemm_options {
  size_t struct_size;    /* sizeof(fp8kit_gemm_options): FP8KIT_GEMM_OPTIONS_INIT */
  fp8kit_path path;      /* FP8KIT_PATH_AUTO unless testing a path */
  int checked;           /* nonzero: synchronise after the launch and return the
                            fault of this kernel, by name (debugging aid) */
  void* workspace;       /* optional, device memory; see fp8kit_gemm_workspace_size */
  size_t workspace_size;
  int programmatic_launch; /* nonzero: the sm90_wgmma path may start while the kernel
                              before it on the stream finishes (programmatic dependent
                              launch) and reads B, the weights, before that kernel has
                              finished. Only when that kernel does not write B. Pays
                              inside CUDA graphs (decode); off by default. The grouped
                              sm90_wgmma path honours it too (its start overlaps; it
                              reads nothing before the wait). */
  int workspace_zeroed;  /* nonzero: the caller zero-filled `workspace` once (e.g. cudaMemset
                            after allocating it) and lends it to fp8kit alone, to one stream
                            or graph at a time. Each completed call leaves it as fp8kit needs
                            it, so the call skips zeroing its split-K counters (a memset
                            before the kernel; in a graph a node that also breaks
                            programmatic launch). After a failed or aborted call, or any
                            other use of the memory, zero it again. Off by default. */
  fp8kit_accumulation accumulation; /* PROMOTED (default) or FAST: see fp8kit_accumulation */
  int reserved;          /* zero */
} fp8kit_gemm_options;

#define FP8KIT_GEMM_OPTIONS_INIT FP8KIT_STRUCT_INIT_(fp8kit_gemm_options)
static inline void fp8kit_gemm_options_init(fp8kit_gemm_options* options) {
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

/* Runs D = A.B^T (x) scales (+ bias) on `stream` (a cudaStream_t; NULL is the
 * legacy default stream) on the current device. options may be NULL (the
 * defaults). */
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
  size_t struct_size;   /* sizeof(fp8kit_grouped_gemm_desc): FP8KIT_GROUPED_GEMM_DESC_INIT */
  fp8kit_grouped_layout layout;
  int64_t experts;      /* E */
  int64_t rows;         /* contiguous: T; masked: max_m */
  int64_t n, k;
  const int32_t* offs;   /* contiguous: [E] cumulative row ends; masked: NULL */
  const int32_t* counts; /* masked: [E] valid rows; contiguous: NULL */
  fp8kit_gemm_operands op;
} fp8kit_grouped_gemm_desc;

#define FP8KIT_GROUPED_GEMM_DESC_INIT FP8KIT_STRUCT_INIT_(fp8kit_grouped_gemm_desc)
static inline void fp8kit_grouped_gemm_desc_init(fp8kit_grouped_gemm_desc* desc) {
  memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
}

/* Runs every expert's GEMM on `stream`; options as for fp8kit_gemm (path,
 * checked, programmatic_launch on sm90_wgmma; no workspace is used). Paths: sm90_wgmma (Hopper, preferred there;
 * at most 1024 experts), sm89_mma and sm75_hmma. */
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
  size_t struct_size;     /* sizeof(fp8kit_quantize_desc): FP8KIT_QUANTIZE_DESC_INIT */
  int64_t m, k;
  const void* x; int64_t ldx; fp8kit_dtype x_type;
  void* q;       int64_t ldq; fp8kit_dtype q_type;
  fp8kit_scale_mode mode; /* TENSOR, ROW or BLOCK */
  float eps;              /* RMSNorm epsilon (e.g. 1e-6) */
  float* scale;           /* TENSOR: read; ROW, BLOCK: written */
  const void* rms_weight; /* optional fused RMSNorm */
} fp8kit_quantize_desc;

#define FP8KIT_QUANTIZE_DESC_INIT FP8KIT_STRUCT_INIT_(fp8kit_quantize_desc)
static inline void fp8kit_quantize_desc_init(fp8kit_quantize_desc* desc) {
  memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
}

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

/* An output struct: the caller sets struct_size (FP8KIT_PATH_CHOICE_INIT) and
 * fp8kit writes that many bytes at most. */
typedef struct fp8kit_path_choice {
  size_t struct_size;           /* sizeof(fp8kit_path_choice): FP8KIT_PATH_CHOICE_INIT */
  fp8kit_path path;             /* path AUTO would run; AUTO if none */
  fp8kit_tensor_cores tensor_cores;
  const char* family;           /* "Hopper", "Blackwell (SM12x)", ... or "unknown" */
  const char* image;            /* "sass sm_120", "ptx compute_120 (JIT)", ... */
} fp8kit_path_choice;

#define FP8KIT_PATH_CHOICE_INIT FP8KIT_STRUCT_INIT_(fp8kit_path_choice)
static inline void fp8kit_path_choice_init(fp8kit_path_choice* choice) {
  memset(choice, 0, sizeof *choice);
  choice->struct_size = sizeof *choice;
}

/* What AUTO would choose for a device of this capability and scale modes,
 * judged from the images this build carries (no GPU needed). Returns
 * FP8KIT_STATUS_UNSUPPORTED with a message when nothing can run; `choice`
 * (struct_size set) is filled either way. */
fp8kit_status fp8kit_choose_path(int major, int minor, fp8kit_scale_mode a_mode,
                                 fp8kit_scale_mode b_mode, fp8kit_path_choice* choice);

/* Space-separated list of the targets each path was built for, e.g.
 * "sm89_mma: sm_89 sm_90 ... compute_120". Static storage. */
const char* fp8kit_build_targets(void);

#ifdef __cplusplus
}
#endif

/* NVFP4 (E2M1 values, E4M3 block scales): GEMM, grouped GEMM, quantisation. */
#include "fp8kit/nvfp4.h"

#endif /* FP8KIT_FP8KIT_H */
