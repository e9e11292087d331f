// The C entry points of fp8kit.h that run or plan work: GEMM, grouped GEMM,
// quantisation, path choice, build description, version. Each runs inside
// `guarded` (core/error.hpp): no exception leaves this file, and the message
// is cleared on success there. The pipeline is api/pipeline.hpp.
#include "api/ops.hpp"
#include "api/path_choice.hpp"
#include "core/error.hpp"
#include "fp8kit/fp8kit.h"
#include "fp8kit_build_config.hpp"
#include "gemm/dispatch.hpp"

namespace fp8kit {
namespace {

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace
}  // namespace fp8kit

extern "C" {

int fp8kit_version(void) { return FP8KIT_VERSION; }

const char* fp8kit_version_string(void) { return FP8KIT_VERSION_STRING; }

fp8kit_status fp8kit_gemm(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, void* stream) {
  return fp8kit::guarded("fp8kit_gemm", [&] { return fp8kit::run(desc, options, fp8kit::as_stream(stream)); });
}

fp8kit_status fp8kit_gemm_select(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options,
                                 fp8kit_path* path) {
  return fp8kit::guarded("fp8kit_gemm_select", [&] { return fp8kit::select_path(desc, options, path); });
}

fp8kit_status fp8kit_gemm_workspace_size(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options,
                                         size_t* bytes) {
  return fp8kit::guarded("fp8kit_gemm_workspace_size", [&] { return fp8kit::workspace_size(desc, options, bytes); });
}

fp8kit_status fp8kit_grouped_gemm(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                                  void* stream) {
  return fp8kit::guarded("fp8kit_grouped_gemm",
                         [&] { return fp8kit::run(desc, options, fp8kit::as_stream(stream)); });
}

fp8kit_status fp8kit_grouped_gemm_select(const fp8kit_grouped_gemm_desc* desc, const fp8kit_gemm_options* options,
                                         fp8kit_path* path) {
  return fp8kit::guarded("fp8kit_grouped_gemm_select", [&] { return fp8kit::select_path(desc, options, path); });
}

fp8kit_status fp8kit_quantize(const fp8kit_quantize_desc* desc, void* stream) {
  return fp8kit::guarded("fp8kit_quantize",
                         [&] { return fp8kit::run(desc, nullptr, fp8kit::as_stream(stream)); });
}

fp8kit_status fp8kit_choose_path(int major, int minor, fp8kit_scale_mode a_mode, fp8kit_scale_mode b_mode,
                                 fp8kit_path_choice* choice) {
  return fp8kit::guarded("fp8kit_choose_path",
                         [&] { return fp8kit::choose_path_offline(major, minor, a_mode, b_mode, choice); });
}

const char* fp8kit_build_targets(void) { return fp8kit::build::kTargets; }

}  // extern "C"
