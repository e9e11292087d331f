// The FP8KIT_0.1 symbols of libfp8kit.so.0: what a program built against
// the 0.1 header binds to (docs/abi.md). Each reads the 0.1 struct it was
// given (api/abi_0_1.hpp), exactly its size and no more, into the current
// struct and runs the current entry point; each writes no more of the
// caller's struct than 0.1 had. Built into the shared library only.
#include "api/abi_0_1.hpp"
#include "fp8kit/fp8kit.h"

// One 0.1 symbol: its C++ name here, its exported name and version there.
#define FP8KIT_ABI_0_1(name) extern "C" __attribute__((visibility("default"), symver(#name "@FP8KIT_0.1")))

namespace fp8kit::abi_0_1 {
namespace {

fp8kit_gemm_operands convert(const Operands& in) {
  fp8kit_gemm_operands op{};
  op.a = in.a, op.lda = in.lda, op.a_type = in.a_type;
  op.b = in.b, op.ldb = in.ldb, op.b_type = in.b_type;
  op.d = in.d, op.ldd = in.ldd, op.d_type = in.d_type;
  op.a_scale_mode = in.a_scale_mode, op.a_scale = in.a_scale;
  op.b_scale_mode = in.b_scale_mode, op.b_scale = in.b_scale;
  op.bias = in.bias, op.bias_type = in.bias_type;
  return op;
}

// The current struct of a 0.1 one; null stays null (the current entry point
// then names it).
const fp8kit_gemm_desc* convert(const GemmDesc* in, fp8kit_gemm_desc* out) {
  if (!in) return nullptr;
  *out = FP8KIT_GEMM_DESC_INIT;
  out->m = in->m, out->n = in->n, out->k = in->k;
  out->op = convert(in->op);
  return out;
}

const fp8kit_grouped_gemm_desc* convert(const GroupedGemmDesc* in, fp8kit_grouped_gemm_desc* out) {
  if (!in) return nullptr;
  *out = FP8KIT_GROUPED_GEMM_DESC_INIT;
  out->layout = in->layout;
  out->experts = in->experts, out->rows = in->rows, out->n = in->n, out->k = in->k;
  out->offs = in->offs, out->counts = in->counts;
  out->op = convert(in->op);
  return out;
}

const fp8kit_quantize_desc* convert(const QuantizeDesc* in, fp8kit_quantize_desc* out) {
  if (!in) return nullptr;
  *out = FP8KIT_QUANTIZE_DESC_INIT;
  out->m = in->m, out->k = in->k;
  out->x = in->x, out->ldx = in->ldx, out->x_type = in->x_type;
  out->q = in->q, out->ldq = in->ldq, out->q_type = in->q_type;
  out->mode = in->mode, out->scale = in->scale, out->rms_weight = in->rms_weight, out->eps = in->eps;
  return out;
}

const fp8kit_gemm_options* convert(const GemmOptions* in, fp8kit_gemm_options* out) {
  if (!in) return nullptr;
  *out = FP8KIT_GEMM_OPTIONS_INIT;
  out->path = in->path, out->checked = in->checked;
  out->workspace = in->workspace, out->workspace_size = in->workspace_size;
  return out;
}

// A current entry point `fn` of a GEMM descriptor and options, called with
// a 0.1 descriptor and options converted.
template <typename New, typename Old, typename Out>
fp8kit_status forward(fp8kit_status (*fn)(const New*, const fp8kit_gemm_options*, Out), const Old* desc,
                      const GemmOptions* options, Out out) {
  New d;
  fp8kit_gemm_options o;
  return fn(convert(desc, &d), convert(options, &o), out);
}

}  // namespace

FP8KIT_ABI_0_1(fp8kit_gemm_options_init) void fp8kit_abi_0_1_gemm_options_init(GemmOptions* options) {
  if (options) *options = GemmOptions{FP8KIT_PATH_AUTO, 0, nullptr, 0};
}

FP8KIT_ABI_0_1(fp8kit_gemm)
fp8kit_status fp8kit_abi_0_1_gemm(const GemmDesc* desc, const GemmOptions* options, void* stream) {
  return forward(fp8kit_gemm, desc, options, stream);
}

FP8KIT_ABI_0_1(fp8kit_gemm_select)
fp8kit_status fp8kit_abi_0_1_gemm_select(const GemmDesc* desc, const GemmOptions* options, fp8kit_path* path) {
  return forward(fp8kit_gemm_select, desc, options, path);
}

FP8KIT_ABI_0_1(fp8kit_gemm_workspace_size)
fp8kit_status fp8kit_abi_0_1_gemm_workspace_size(const GemmDesc* desc, const GemmOptions* options, size_t* bytes) {
  return forward(fp8kit_gemm_workspace_size, desc, options, bytes);
}

FP8KIT_ABI_0_1(fp8kit_grouped_gemm)
fp8kit_status fp8kit_abi_0_1_grouped_gemm(const GroupedGemmDesc* desc, const GemmOptions* options, void* stream) {
  return forward(fp8kit_grouped_gemm, desc, options, stream);
}

FP8KIT_ABI_0_1(fp8kit_grouped_gemm_select)
fp8kit_status fp8kit_abi_0_1_grouped_gemm_select(const GroupedGemmDesc* desc, const GemmOptions* options,
                                                 fp8kit_path* path) {
  return forward(fp8kit_grouped_gemm_select, desc, options, path);
}

FP8KIT_ABI_0_1(fp8kit_quantize)
fp8kit_status fp8kit_abi_0_1_quantize(const QuantizeDesc* desc, void* stream) {
  fp8kit_quantize_desc d;
  return fp8kit_quantize(convert(desc, &d), stream);
}

FP8KIT_ABI_0_1(fp8kit_choose_path)
fp8kit_status fp8kit_abi_0_1_choose_path(int major, int minor, fp8kit_scale_mode a_mode, fp8kit_scale_mode b_mode,
                                         PathChoice* choice) {
  fp8kit_path_choice c = FP8KIT_PATH_CHOICE_INIT;
  const fp8kit_status s = fp8kit_choose_path(major, minor, a_mode, b_mode, choice ? &c : nullptr);
  if (choice) *choice = PathChoice{c.path, c.tensor_cores, c.family, c.image};
  return s;
}

#undef FP8KIT_ABI_0_1

}  // namespace fp8kit::abi_0_1
