// The C entry points of fp8kit/nvfp4.h: NVFP4 GEMM and grouped GEMM (each
// with its path and workspace queries), quantisation, the scale-size helper
// and the layout's name. Each runs inside `guarded` (core/error.hpp); the
// pipeline is api/pipeline.hpp.
#include "api/ops.hpp"
#include "core/enums.hpp"
#include "core/error.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit {

fp8kit_status nvfp4_scale_size(int64_t rows, int64_t k, fp8kit_nvfp4_scale_layout layout, size_t* bytes);

}  // namespace fp8kit

extern "C" {

fp8kit_status fp8kit_nvfp4_gemm(const fp8kit_nvfp4_gemm_desc* desc, const fp8kit_gemm_options* options,
                                void* stream) {
  return fp8kit::guarded("fp8kit_nvfp4_gemm",
                         [&] { return fp8kit::run(desc, options, static_cast<cudaStream_t>(stream)); });
}

fp8kit_status fp8kit_nvfp4_gemm_select(const fp8kit_nvfp4_gemm_desc* desc, const fp8kit_gemm_options* options,
                                       fp8kit_path* path) {
  return fp8kit::guarded("fp8kit_nvfp4_gemm_select", [&] { return fp8kit::select_path(desc, options, path); });
}

fp8kit_status fp8kit_nvfp4_gemm_workspace_size(const fp8kit_nvfp4_gemm_desc* desc,
                                               const fp8kit_gemm_options* options, size_t* bytes) {
  return fp8kit::guarded("fp8kit_nvfp4_gemm_workspace_size",
                         [&] { return fp8kit::workspace_size(desc, options, bytes); });
}

fp8kit_status fp8kit_nvfp4_grouped_gemm_workspace_size(const fp8kit_nvfp4_grouped_gemm_desc* desc,
                                                       const fp8kit_gemm_options* options, size_t* bytes) {
  return fp8kit::guarded("fp8kit_nvfp4_grouped_gemm_workspace_size",
                         [&] { return fp8kit::workspace_size(desc, options, bytes); });
}

fp8kit_status fp8kit_nvfp4_grouped_gemm(const fp8kit_nvfp4_grouped_gemm_desc* desc,
                                        const fp8kit_gemm_options* options, void* stream) {
  return fp8kit::guarded("fp8kit_nvfp4_grouped_gemm",
                         [&] { return fp8kit::run(desc, options, static_cast<cudaStream_t>(stream)); });
}

fp8kit_status fp8kit_nvfp4_grouped_gemm_select(const fp8kit_nvfp4_grouped_gemm_desc* desc,
                                               const fp8kit_gemm_options* options, fp8kit_path* path) {
  return fp8kit::guarded("fp8kit_nvfp4_grouped_gemm_select",
                         [&] { return fp8kit::select_path(desc, options, path); });
}

fp8kit_status fp8kit_nvfp4_quantize(const fp8kit_nvfp4_quantize_desc* desc, void* stream) {
  return fp8kit::guarded("fp8kit_nvfp4_quantize",
                         [&] { return fp8kit::run(desc, nullptr, static_cast<cudaStream_t>(stream)); });
}

fp8kit_status fp8kit_nvfp4_scale_size(int64_t rows, int64_t k, fp8kit_nvfp4_scale_layout layout, size_t* bytes) {
  return fp8kit::guarded("fp8kit_nvfp4_scale_size", [&] { return fp8kit::nvfp4_scale_size(rows, k, layout, bytes); });
}

const char* fp8kit_nvfp4_scale_layout_name(fp8kit_nvfp4_scale_layout layout) {
  const char* name = fp8kit::nvfp4_scale_layout_name(fp8kit::raw(layout));
  return name ? name : "unknown_layout";
}

}  // extern "C"
