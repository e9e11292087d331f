/* A program built against fp8kit 0.1's header (tests/abi/include_0_1) and
   linked against a 0.1-style library (stub_0_1.c), run against the current
   libfp8kit.so.0: its unversioned references bind to the FP8KIT_0.1 symbols.
   Every struct it passes is malloc'd at exactly its 0.1 size, so under ASan
   any read or write past it by the library is a heap-buffer-overflow. Checks
   that each field reaches the library where 0.1 put it (errors name them),
   and, where a GPU is present, that a GEMM gives the right result. */
#include <fp8kit/fp8kit.h>

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                          \
  do {                                            \
    if (!(cond)) {                                \
      fprintf(stderr, "FAILED %s: ", #cond);      \
      fprintf(stderr, __VA_ARGS__);               \
      fprintf(stderr, "\n");                      \
      ++failures;                                 \
    }                                             \
  } while (0)

/* `s` is `want` and the message names `needle`. */
static void expect_refusal(fp8kit_status s, fp8kit_status want, const char* needle) {
  CHECK(s == want, "status %d, wanted %d (%s)", (int)s, (int)want, fp8kit_last_error());
  CHECK(strstr(fp8kit_last_error(), needle) != NULL, "message '%s' does not name '%s'", fp8kit_last_error(),
        needle);
}

/* A descriptor whose fields are all valid for the host-side checks. */
static void fill_desc(fp8kit_gemm_desc* d, void* a, void* b, void* out, float* sa, float* sb) {
  d->m = 64, d->n = 80, d->k = 256;
  d->a = a, d->lda = 256, d->a_type = FP8KIT_DTYPE_E4M3;
  d->b = b, d->ldb = 256, d->b_type = FP8KIT_DTYPE_E4M3;
  d->d = out, d->ldd = 80, d->d_type = FP8KIT_DTYPE_F32;
  d->a_scale_mode = FP8KIT_SCALE_TENSOR, d->a_scale = sa;
  d->b_scale_mode = FP8KIT_SCALE_TENSOR, d->b_scale = sb;
  d->bias = NULL, d->bias_type = FP8KIT_DTYPE_F32;
}

static double e4m3(uint8_t v) {
  const int sign = v >> 7, exp = (v >> 3) & 0xf, mant = v & 7;
  const double mag = exp == 0 ? ldexp(mant / 8.0, -6) : ldexp(1.0 + mant / 8.0, exp - 7);
  return sign ? -mag : mag;
}

/* On a GPU: D = A.B^T * 0.5 * 0.25 through the 0.1 entry points, against a
   float64 reference within 2^-8 of the sum of |terms| (the bound of every
   path, docs/testing.md). */
static void gemm_on_gpu(void) {
  enum { M = 64, N = 80, K = 256 };
  static uint8_t a[M * K], b[N * K];
  static float d[M * N];
  const float scales[2] = {0.5f, 0.25f};
  for (int i = 0; i < M * K; ++i) a[i] = (uint8_t)((rand() & 0x80) | (rand() % 11) << 3 | (rand() & 7));
  for (int i = 0; i < N * K; ++i) b[i] = (uint8_t)((rand() & 0x80) | (rand() % 11) << 3 | (rand() & 7));
  void *da, *db, *dd, *ds;
  cudaMalloc(&da, sizeof a), cudaMalloc(&db, sizeof b), cudaMalloc(&dd, sizeof d), cudaMalloc(&ds, sizeof scales);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  cudaMemcpy(ds, scales, sizeof scales, cudaMemcpyHostToDevice);
  cudaMemset(dd, 0xff, sizeof d); /* poisoned: NaN where nothing is written */
  fp8kit_gemm_desc* desc = malloc(sizeof *desc);
  fp8kit_gemm_options* opt = malloc(sizeof *opt);
  fp8kit_gemm_options_init(opt);
  fill_desc(desc, da, db, dd, (float*)ds, (float*)ds + 1);
  const fp8kit_status s = fp8kit_gemm(desc, opt, NULL);
  CHECK(s == FP8KIT_STATUS_SUCCESS, "fp8kit_gemm: %s", fp8kit_last_error());
  cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        const double t = e4m3(a[m * K + k]) * e4m3(b[n * K + k]) * 0.125;
        ref += t, mag += fabs(t);
      }
      if (!(fabs(d[m * N + n] - ref) <= ldexp(mag, -8) + 1e-30)) ++wrong;
    }
  CHECK(wrong == 0, "%d of %d outputs off the float64 reference", wrong, M * N);
  printf("GPU GEMM through the 0.1 ABI: %d of %d outputs checked, %d wrong\n", M * N, M * N, wrong);
  free(desc), free(opt);
  cudaFree(da), cudaFree(db), cudaFree(dd), cudaFree(ds);
}

int main(void) {
  CHECK(strcmp(fp8kit_build_targets(), "stub") != 0, "the stub library was loaded, not libfp8kit.so.0");

  /* Options: init writes exactly the 0.1 fields. */
  fp8kit_gemm_options* opt = malloc(sizeof *opt);
  memset(opt, 0x5a, sizeof *opt);
  fp8kit_gemm_options_init(opt);
  CHECK(opt->path == FP8KIT_PATH_AUTO && opt->checked == 0 && opt->workspace == NULL && opt->workspace_size == 0,
        "fp8kit_gemm_options_init's defaults");

  /* Each field where 0.1 put it. The pointers are host memory: the checks
     that name these fields come before any device is asked. */
  static uint8_t a[64 * 256], b[80 * 256];
  static float out[64 * 80], sa = 1, sb = 1;
  fp8kit_gemm_desc* desc = malloc(sizeof *desc);
  fp8kit_path chosen;
  fill_desc(desc, a, b, out, &sa, &sb);
  opt->path = (fp8kit_path)99;
  expect_refusal(fp8kit_gemm_select(desc, opt, &chosen), FP8KIT_STATUS_INVALID_ARGUMENT, "options->path = 99");
  opt->path = FP8KIT_PATH_AUTO;
  opt->workspace_size = 4096;
  expect_refusal(fp8kit_gemm(desc, opt, NULL), FP8KIT_STATUS_INVALID_ARGUMENT, "workspace is NULL");
  opt->workspace_size = 0;
  desc->k = 17;
  expect_refusal(fp8kit_gemm_select(desc, opt, &chosen), FP8KIT_STATUS_INVALID_ARGUMENT, "k = 17");
  desc->k = 256;
  desc->bias = out, desc->bias_type = (fp8kit_dtype)42;
  expect_refusal(fp8kit_gemm(desc, opt, NULL), FP8KIT_STATUS_INVALID_ARGUMENT, "bias_type = 42");
  desc->bias = NULL;
  desc->b_scale_mode = FP8KIT_SCALE_COL, desc->b_scale = NULL;
  size_t bytes = 1;
  expect_refusal(fp8kit_gemm_workspace_size(desc, NULL, &bytes), FP8KIT_STATUS_INVALID_ARGUMENT, "b_scale is NULL");

  fp8kit_grouped_gemm_desc* g = malloc(sizeof *g);
  memset(g, 0, sizeof *g);
  g->layout = (fp8kit_grouped_layout)7;
  expect_refusal(fp8kit_grouped_gemm(g, opt, NULL), FP8KIT_STATUS_INVALID_ARGUMENT, "layout = 7");
  g->layout = FP8KIT_GROUPED_MASKED, g->experts = 4, g->rows = 8, g->n = 80, g->k = 256;
  expect_refusal(fp8kit_grouped_gemm_select(g, NULL, &chosen), FP8KIT_STATUS_INVALID_ARGUMENT, "counts is NULL");

  fp8kit_quantize_desc* q = malloc(sizeof *q);
  memset(q, 0, sizeof *q);
  q->m = 4, q->k = 32, q->x_type = FP8KIT_DTYPE_BF16, q->q_type = FP8KIT_DTYPE_E4M3, q->mode = (fp8kit_scale_mode)9;
  expect_refusal(fp8kit_quantize(q, NULL), FP8KIT_STATUS_INVALID_ARGUMENT, "mode = 9");

  /* The output struct: written at its 0.1 size. */
  fp8kit_path_choice* c = malloc(sizeof *c);
  const fp8kit_status cs = fp8kit_choose_path(9, 0, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, c);
  CHECK(cs == FP8KIT_STATUS_SUCCESS || cs == FP8KIT_STATUS_UNSUPPORTED, "fp8kit_choose_path: %s",
        fp8kit_last_error());
  CHECK(c->family != NULL && strcmp(c->family, "Hopper") == 0, "choice->family");

  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0) gemm_on_gpu();
  else printf("no GPU: the GEMM result is not checked here\n");

  free(opt), free(desc), free(g), free(q), free(c);
  printf("%s\n", failures == 0 ? "the 0.1 ABI holds" : "the 0.1 ABI is broken");
  return failures == 0 ? 0 : 1;
}
