/* A stand-in libfp8kit.so.0 with fp8kit 0.1's symbols and no symbol
   versions, as the 0.1 library was: test_abi_0_1 links against it, so its
   references are unversioned like those of a program built in 0.1 days, and
   runs against the real library. Every function says it is the stub. */
#include <fp8kit/fp8kit.h>

#include <stddef.h>

static const char kStub[] = "stub";

void fp8kit_gemm_options_init(fp8kit_gemm_options* options) { (void)options; }
fp8kit_status fp8kit_gemm(const fp8kit_gemm_desc* d, const fp8kit_gemm_options* o, void* s) {
  (void)d, (void)o, (void)s;
  return FP8KIT_STATUS_INTERNAL_ERROR;
}
fp8kit_status fp8kit_gemm_select(const fp8kit_gemm_desc* d, const fp8kit_gemm_options* o, fp8kit_path* p) {
  (void)d, (void)o, (void)p;
  return FP8KIT_STATUS_INTERNAL_ERROR;
}
fp8kit_status fp8kit_gemm_workspace_size(const fp8kit_gemm_desc* d, const fp8kit_gemm_options* o, size_t* b) {
  (void)d, (void)o, (void)b;
  return FP8KIT_STATUS_INTERNAL_ERROR;
}
fp8kit_status fp8kit_grouped_gemm(const fp8kit_grouped_gemm_desc* d, const fp8kit_gemm_options* o, void* s) {
  (void)d, (void)o, (void)s;
  return FP8KIT_STATUS_INTERNAL_ERROR;
}
fp8kit_status fp8kit_grouped_gemm_select(const fp8kit_grouped_gemm_desc* d, const fp8kit_gemm_options* o,
                                         fp8kit_path* p) {
  (void)d, (void)o, (void)p;
  return FP8KIT_STATUS_INTERNAL_ERROR;
}
fp8kit_status fp8kit_quantize(const fp8kit_quantize_desc* d, void* s) {
  (void)d, (void)s;
  return FP8KIT_STATUS_INTERNAL_ERROR;
}
fp8kit_status fp8kit_choose_path(int major, int minor, fp8kit_scale_mode a, fp8kit_scale_mode b,
                                 fp8kit_path_choice* c) {
  (void)major, (void)minor, (void)a, (void)b, (void)c;
  return FP8KIT_STATUS_INTERNAL_ERROR;
}
const char* fp8kit_last_error(void) { return kStub; }
const char* fp8kit_status_name(fp8kit_status s) { (void)s; return kStub; }
const char* fp8kit_dtype_name(fp8kit_dtype t) { (void)t; return kStub; }
const char* fp8kit_scale_mode_name(fp8kit_scale_mode m) { (void)m; return kStub; }
const char* fp8kit_path_name(fp8kit_path p) { (void)p; return kStub; }
const char* fp8kit_grouped_layout_name(fp8kit_grouped_layout l) { (void)l; return kStub; }
const char* fp8kit_build_targets(void) { return kStub; }
