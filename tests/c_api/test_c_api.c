/* The public header compiles as C99 and the shared library links from C:
   the C front end. Checks the argument errors, which need no GPU, and that
   the library is the header's version. */
#include <fp8kit/fp8kit.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  fp8kit_gemm_desc d = FP8KIT_GEMM_DESC_INIT;
  fp8kit_gemm_options o;
  fp8kit_path_choice c = FP8KIT_PATH_CHOICE_INIT;
  fp8kit_gemm_options_init(&o);
  if (fp8kit_version() != FP8KIT_VERSION || strcmp(fp8kit_version_string(), FP8KIT_VERSION_STRING) != 0) {
    fprintf(stderr, "library %s, header %s\n", fp8kit_version_string(), FP8KIT_VERSION_STRING);
    return 1;
  }
  if (fp8kit_gemm(&d, &o, NULL) != FP8KIT_STATUS_INVALID_ARGUMENT) {
    fprintf(stderr, "expected invalid_argument for an empty descriptor\n");
    return 1;
  }
  if (strstr(fp8kit_last_error(), "m = 0") == NULL) {
    fprintf(stderr, "unexpected message: %s\n", fp8kit_last_error());
    return 1;
  }
  {
    fp8kit_nvfp4_gemm_desc n4 = FP8KIT_NVFP4_GEMM_DESC_INIT;
    size_t bytes = 0;
    if (fp8kit_nvfp4_gemm(&n4, NULL, NULL) != FP8KIT_STATUS_INVALID_ARGUMENT ||
        strstr(fp8kit_last_error(), "m = 0") == NULL) {
      fprintf(stderr, "nvfp4: unexpected answer to an empty descriptor: %s\n", fp8kit_last_error());
      return 1;
    }
    if (fp8kit_nvfp4_gemm_workspace_size(&n4, NULL, &bytes) != FP8KIT_STATUS_INVALID_ARGUMENT ||
        strstr(fp8kit_last_error(), "m = 0") == NULL) {
      fprintf(stderr, "nvfp4: unexpected workspace answer to an empty descriptor: %s\n", fp8kit_last_error());
      return 1;
    }
    if (fp8kit_nvfp4_scale_size(1, 16, FP8KIT_NVFP4_SCALES_SWIZZLED, &bytes) != FP8KIT_STATUS_SUCCESS || bytes != 512) {
      fprintf(stderr, "nvfp4: scale size %zu\n", bytes);
      return 1;
    }
  }
  if (fp8kit_choose_path(12, 1, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, &c) == FP8KIT_STATUS_SUCCESS)
    printf("12.1 -> %s (%s)\n", fp8kit_path_name(c.path), c.image);
  printf("3 passed, 0 failed\n");
  return 0;
}
