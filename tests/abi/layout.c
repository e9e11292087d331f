/* Prints the layout of every public struct of fp8kit.h as JSON: its size and
   each field's offset and size, in declaration order. The Python package's
   packed formats are checked against it (tests/python/test_package.py), so
   the header is the one account of the layout. */
#include <fp8kit/fp8kit.h>

#include <stddef.h>
#include <stdio.h>

static int first_struct = 1, first_field;

static void begin(const char* name, size_t size) {
  printf("%s\n  \"%s\": {\"size\": %zu, \"fields\": [", first_struct ? "{" : ",", name, size);
  first_struct = 0, first_field = 1;
}

static void field(const char* name, size_t offset, size_t size) {
  printf("%s[\"%s\", %zu, %zu]", first_field ? "" : ", ", name, offset, size);
  first_field = 0;
}

static void end(void) { printf("]}"); }

#define FIELD(T, f) field(#f, offsetof(T, f), sizeof(((T*)0)->f))
#define OPERANDS(T)                                                                                                \
  FIELD(T, op.a), FIELD(T, op.lda), FIELD(T, op.a_type), FIELD(T, op.b), FIELD(T, op.ldb), FIELD(T, op.b_type),   \
      FIELD(T, op.d), FIELD(T, op.ldd), FIELD(T, op.d_type), FIELD(T, op.a_scale_mode), FIELD(T, op.a_scale),     \
      FIELD(T, op.b_scale_mode), FIELD(T, op.b_scale), FIELD(T, op.bias), FIELD(T, op.bias_type)

#define NVFP4_OPERANDS(T)                                                                                          \
  FIELD(T, op.a), FIELD(T, op.lda), FIELD(T, op.a_scale), FIELD(T, op.b), FIELD(T, op.ldb), FIELD(T, op.b_scale),  \
      FIELD(T, op.alpha), FIELD(T, op.d), FIELD(T, op.ldd), FIELD(T, op.bias), FIELD(T, op.a_type),                \
      FIELD(T, op.b_type), FIELD(T, op.a_scale_layout), FIELD(T, op.b_scale_layout), FIELD(T, op.d_type),          \
      FIELD(T, op.bias_type)

int main(void) {
  begin("fp8kit_gemm_desc", sizeof(fp8kit_gemm_desc));
  FIELD(fp8kit_gemm_desc, struct_size), FIELD(fp8kit_gemm_desc, m), FIELD(fp8kit_gemm_desc, n);
  FIELD(fp8kit_gemm_desc, k), OPERANDS(fp8kit_gemm_desc);
  end();
  begin("fp8kit_grouped_gemm_desc", sizeof(fp8kit_grouped_gemm_desc));
  FIELD(fp8kit_grouped_gemm_desc, struct_size), FIELD(fp8kit_grouped_gemm_desc, layout);
  FIELD(fp8kit_grouped_gemm_desc, experts), FIELD(fp8kit_grouped_gemm_desc, rows), FIELD(fp8kit_grouped_gemm_desc, n);
  FIELD(fp8kit_grouped_gemm_desc, k), FIELD(fp8kit_grouped_gemm_desc, offs), FIELD(fp8kit_grouped_gemm_desc, counts);
  OPERANDS(fp8kit_grouped_gemm_desc);
  end();
  begin("fp8kit_quantize_desc", sizeof(fp8kit_quantize_desc));
  FIELD(fp8kit_quantize_desc, struct_size), FIELD(fp8kit_quantize_desc, m), FIELD(fp8kit_quantize_desc, k);
  FIELD(fp8kit_quantize_desc, x), FIELD(fp8kit_quantize_desc, ldx), FIELD(fp8kit_quantize_desc, x_type);
  FIELD(fp8kit_quantize_desc, q), FIELD(fp8kit_quantize_desc, ldq), FIELD(fp8kit_quantize_desc, q_type);
  FIELD(fp8kit_quantize_desc, mode), FIELD(fp8kit_quantize_desc, eps), FIELD(fp8kit_quantize_desc, scale);
  FIELD(fp8kit_quantize_desc, rms_weight);
  end();
  begin("fp8kit_gemm_options", sizeof(fp8kit_gemm_options));
  FIELD(fp8kit_gemm_options, struct_size), FIELD(fp8kit_gemm_options, path), FIELD(fp8kit_gemm_options, checked);
  FIELD(fp8kit_gemm_options, workspace), FIELD(fp8kit_gemm_options, workspace_size);
  FIELD(fp8kit_gemm_options, programmatic_launch), FIELD(fp8kit_gemm_options, workspace_zeroed);
  FIELD(fp8kit_gemm_options, accumulation), FIELD(fp8kit_gemm_options, reserved);
  end();
  begin("fp8kit_path_choice", sizeof(fp8kit_path_choice));
  FIELD(fp8kit_path_choice, struct_size), FIELD(fp8kit_path_choice, path), FIELD(fp8kit_path_choice, tensor_cores);
  FIELD(fp8kit_path_choice, family), FIELD(fp8kit_path_choice, image);
  end();
  begin("fp8kit_nvfp4_gemm_desc", sizeof(fp8kit_nvfp4_gemm_desc));
  FIELD(fp8kit_nvfp4_gemm_desc, struct_size), FIELD(fp8kit_nvfp4_gemm_desc, m), FIELD(fp8kit_nvfp4_gemm_desc, n);
  FIELD(fp8kit_nvfp4_gemm_desc, k), NVFP4_OPERANDS(fp8kit_nvfp4_gemm_desc);
  end();
  begin("fp8kit_nvfp4_grouped_gemm_desc", sizeof(fp8kit_nvfp4_grouped_gemm_desc));
  FIELD(fp8kit_nvfp4_grouped_gemm_desc, struct_size), FIELD(fp8kit_nvfp4_grouped_gemm_desc, layout);
  FIELD(fp8kit_nvfp4_grouped_gemm_desc, experts), FIELD(fp8kit_nvfp4_grouped_gemm_desc, rows);
  FIELD(fp8kit_nvfp4_grouped_gemm_desc, n), FIELD(fp8kit_nvfp4_grouped_gemm_desc, k);
  FIELD(fp8kit_nvfp4_grouped_gemm_desc, offs), FIELD(fp8kit_nvfp4_grouped_gemm_desc, counts);
  NVFP4_OPERANDS(fp8kit_nvfp4_grouped_gemm_desc);
  end();
  begin("fp8kit_nvfp4_quantize_desc", sizeof(fp8kit_nvfp4_quantize_desc));
  FIELD(fp8kit_nvfp4_quantize_desc, struct_size), FIELD(fp8kit_nvfp4_quantize_desc, m);
  FIELD(fp8kit_nvfp4_quantize_desc, k), FIELD(fp8kit_nvfp4_quantize_desc, x), FIELD(fp8kit_nvfp4_quantize_desc, ldx);
  FIELD(fp8kit_nvfp4_quantize_desc, q), FIELD(fp8kit_nvfp4_quantize_desc, ldq);
  FIELD(fp8kit_nvfp4_quantize_desc, scale), FIELD(fp8kit_nvfp4_quantize_desc, global_scale);
  FIELD(fp8kit_nvfp4_quantize_desc, rms_weight), FIELD(fp8kit_nvfp4_quantize_desc, x_type);
  FIELD(fp8kit_nvfp4_quantize_desc, q_type), FIELD(fp8kit_nvfp4_quantize_desc, scale_layout);
  FIELD(fp8kit_nvfp4_quantize_desc, eps);
  end();
  printf("\n}\n");
  return 0;
}
