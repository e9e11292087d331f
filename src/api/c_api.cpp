// The C entry points of fp8kit.h for GEMM and path choice. No exception leaves
// this file: every entry point runs inside `guarded` (core/error.hpp).
#include "api/gemm_call.hpp"
#include "api/options.hpp"
#include "api/path_choice.hpp"
#include "core/error.hpp"
#include "fp8kit/fp8kit.h"
#include "fp8kit_build_config.hpp"

namespace fp8kit {
namespace {

// An answer read from the prepared call (no launch): `take(call)` on success.
template <typename Take>
fp8kit_status from_prepared(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, Take&& take) {
  PreparedGemm call;
  FP8KIT_RETURN_IF_FAILED(prepare_gemm(desc, options, &call));
  take(call);
  clear_error();
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace
}  // namespace fp8kit

extern "C" {

void fp8kit_gemm_options_init(fp8kit_gemm_options* options) {
  if (options) fp8kit::default_options(options);
}

fp8kit_status fp8kit_gemm(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options, void* stream) {
  return fp8kit::guarded("fp8kit_gemm",
                         [&] { return fp8kit::run_gemm(desc, options, static_cast<cudaStream_t>(stream)); });
}

fp8kit_status fp8kit_gemm_workspace_size(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options,
                                         size_t* bytes) {
  return fp8kit::guarded("fp8kit_gemm_workspace_size", [&] {
    if (!bytes) return fp8kit::fail(FP8KIT_STATUS_INVALID_ARGUMENT, "bytes is NULL");
    *bytes = 0;
    return fp8kit::from_prepared(desc, options, [&](const fp8kit::PreparedGemm& call) {
      *bytes = call.path->workspace_size ? call.path->workspace_size(call.params, *call.device) : 0;
    });
  });
}

fp8kit_status fp8kit_gemm_select(const fp8kit_gemm_desc* desc, const fp8kit_gemm_options* options,
                                 fp8kit_path* path) {
  return fp8kit::guarded("fp8kit_gemm_select", [&] {
    if (!path) return fp8kit::fail(FP8KIT_STATUS_INVALID_ARGUMENT, "path is NULL");
    *path = FP8KIT_PATH_AUTO;
    return fp8kit::from_prepared(desc, options, [&](const fp8kit::PreparedGemm& call) { *path = call.path->id; });
  });
}

fp8kit_status fp8kit_choose_path(int major, int minor, fp8kit_scale_mode a_mode, fp8kit_scale_mode b_mode,
                                 fp8kit_path_choice* choice) {
  return fp8kit::guarded("fp8kit_choose_path", [&] {
    const fp8kit_status s = fp8kit::choose_path_offline(major, minor, a_mode, b_mode, choice);
    if (s == FP8KIT_STATUS_SUCCESS) fp8kit::clear_error();
    return s;
  });
}

const char* fp8kit_build_targets(void) { return fp8kit::build::kTargets; }

}  // extern "C"
