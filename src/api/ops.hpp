// The problem kinds of the C API as the pipeline (api/pipeline.hpp) takes
// them: per descriptor type, the kernels' problem, the entry's name, whether
// a forced path applies, the validation and the pointers the device must be
// able to read.
#pragma once

#include <array>

#include "api/pipeline.hpp"
#include "api/versioned.hpp"
#include "core/device.hpp"
#include "fp8kit/fp8kit.h"
#include "gemm/gemm_params.hpp"
#include "gemm/grouped/grouped_params.hpp"
#include "gemm/nvfp4/nvfp4_params.hpp"
#include "quant/nvfp4_quantize_params.hpp"
#include "quant/quantize_params.hpp"

namespace fp8kit {

fp8kit_status validate_gemm(const fp8kit_gemm_desc& d, GemmParams* params);
fp8kit_status validate_grouped(const fp8kit_grouped_gemm_desc& d, GroupedParams* g);
fp8kit_status validate_quantize(const fp8kit_quantize_desc& d, QuantizeParams* q);
fp8kit_status validate_nvfp4_gemm(const fp8kit_nvfp4_gemm_desc& d, Nvfp4Params* p);
fp8kit_status validate_nvfp4_grouped(const fp8kit_nvfp4_grouped_gemm_desc& d, Nvfp4GroupedParams* g);
fp8kit_status validate_nvfp4_quantize(const fp8kit_nvfp4_quantize_desc& d, Nvfp4QuantizeParams* q);

// Options a problem cannot honour, refused by name: FAST accumulation with
// block scales, which are applied per 128-deep K block and so are promoted
// there. Other kinds take every option (the NVFP4 and quantisation kernels
// sum in f32 whatever `accumulation` says).
template <typename Problem>
fp8kit_status check_options(const Problem&, const fp8kit_gemm_options&) {
  return FP8KIT_STATUS_SUCCESS;
}
inline fp8kit_status check_options(const GemmParams& p, const fp8kit_gemm_options& o) {
  if (o.accumulation == FP8KIT_ACCUMULATION_FAST && p.a_scale_mode == FP8KIT_SCALE_BLOCK)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT,
                "options->accumulation = FAST: block scales (a_scale_mode = BLOCK) are applied, and so promoted, "
                "per 128-deep K block; FAST applies to per-tensor, per-token and per-channel scales");
  return FP8KIT_STATUS_SUCCESS;
}
inline fp8kit_status check_options(const GroupedParams& g, const fp8kit_gemm_options& o) {
  return check_options(g.dense, o);
}

// The workspace a problem may write, bound to it once the options are known
// (api/pipeline.hpp). Only NVFP4 A uses it here: sm90_wgmma widens A to bf16
// into it beyond its decode kernel, where the call lends enough and has not
// promised it zero-filled for split-K (workspace_zeroed: fp8kit then never
// writes it but for those counters). `query`: a workspace-size query, which
// asks what widening would need.
template <typename Problem>
void bind_workspace(Problem*, const fp8kit_gemm_options&, bool) {}
inline void bind_nvfp4_workspace(Nvfp4Params* p, int64_t a_rows, const fp8kit_gemm_options& o, bool query) {
  if (p->a_type != FP8KIT_DTYPE_NVFP4 || o.workspace_zeroed) return;
  constexpr uintptr_t kAlignment = 16;  // the widened rows are read by TMA
  const size_t need = static_cast<size_t>(nvfp4_widened_bytes(a_rows, p->k));
  const bool lent =
      o.workspace && o.workspace_size >= need && reinterpret_cast<uintptr_t>(o.workspace) % kAlignment == 0;
  p->a_widen = query || lent;
  p->a_wide = query ? nullptr : (lent ? o.workspace : nullptr);
}
inline void bind_workspace(Nvfp4Params* p, const fp8kit_gemm_options& o, bool query) {
  bind_nvfp4_workspace(p, p->m, o, query);
}
inline void bind_workspace(Nvfp4GroupedParams* g, const fp8kit_gemm_options& o, bool query) {
  bind_nvfp4_workspace(&g->dense, nvfp4_grouped_a_rows(*g), o, query);
}

template <>
struct Op<fp8kit_gemm_desc> {
  using Problem = GemmParams;
  static constexpr const char* kEntry = "fp8kit_gemm";
  static constexpr const char* kWhat = "GEMM";
  static constexpr bool kTakesPath = true;
  static fp8kit_status validate(const fp8kit_gemm_desc& in, GemmParams* p) {
    fp8kit_gemm_desc d;
    FP8KIT_RETURN_IF_FAILED(read_versioned(&in, &d));
    return validate_gemm(d, p);
  }
  static std::array<NamedPointer, 7> pointers(const GemmParams& p, const fp8kit_gemm_options& o) {
    return {{{"a", p.a},
             {"b", p.b},
             {"d", p.d},
             {"a_scale", p.a_scale},
             {"b_scale", p.b_scale},
             {"bias", p.bias},
             {"options->workspace", o.workspace}}};
  }
};

template <>
struct Op<fp8kit_grouped_gemm_desc> {
  using Problem = GroupedParams;
  static constexpr const char* kEntry = "fp8kit_grouped_gemm";
  static constexpr const char* kWhat = "grouped GEMM";
  static constexpr bool kTakesPath = true;
  static fp8kit_status validate(const fp8kit_grouped_gemm_desc& in, GroupedParams* g) {
    fp8kit_grouped_gemm_desc d;
    FP8KIT_RETURN_IF_FAILED(read_versioned(&in, &d));
    return validate_grouped(d, g);
  }
  static std::array<NamedPointer, 7> pointers(const GroupedParams& g, const fp8kit_gemm_options&) {
    const GemmParams& p = g.dense;
    return {{{g.layout == FP8KIT_GROUPED_MASKED ? "counts" : "offs", g.groups},
             {"a", p.a},
             {"b", p.b},
             {"d", p.d},
             {"a_scale", p.a_scale},
             {"b_scale", p.b_scale},
             {"bias", p.bias}}};
  }
};

// Quantisation takes no options: the defaults and the environment's
// FP8KIT_CHECKED; it has one path.
template <>
struct Op<fp8kit_quantize_desc> {
  using Problem = QuantizeParams;
  static constexpr const char* kEntry = "fp8kit_quantize";
  static constexpr const char* kWhat = "quantisation";
  static constexpr bool kTakesPath = false;
  static fp8kit_status validate(const fp8kit_quantize_desc& in, QuantizeParams* q) {
    fp8kit_quantize_desc d;
    FP8KIT_RETURN_IF_FAILED(read_versioned(&in, &d));
    return validate_quantize(d, q);
  }
  static std::array<NamedPointer, 4> pointers(const QuantizeParams& q, const fp8kit_gemm_options&) {
    return {{{"x", q.kernel.x}, {"q", q.kernel.q}, {"scale", q.kernel.scale}, {"rms_weight", q.kernel.rms_weight}}};
  }
};

template <>
struct Op<fp8kit_nvfp4_gemm_desc> {
  using Problem = Nvfp4Params;
  static constexpr const char* kEntry = "fp8kit_nvfp4_gemm";
  static constexpr const char* kWhat = "NVFP4 GEMM";
  static constexpr bool kTakesPath = true;
  static fp8kit_status validate(const fp8kit_nvfp4_gemm_desc& in, Nvfp4Params* p) {
    fp8kit_nvfp4_gemm_desc d;
    FP8KIT_RETURN_IF_FAILED(read_versioned(&in, &d));
    return validate_nvfp4_gemm(d, p);
  }
  static std::array<NamedPointer, 8> pointers(const Nvfp4Params& p, const fp8kit_gemm_options& o) {
    return {{{"a", p.a},
             {"a_scale", p.a_scale},
             {"b", p.b},
             {"b_scale", p.b_scale},
             {"alpha", p.alpha},
             {"d", p.d},
             {"bias", p.bias},
             {"options->workspace", o.workspace}}};
  }
};

template <>
struct Op<fp8kit_nvfp4_grouped_gemm_desc> {
  using Problem = Nvfp4GroupedParams;
  static constexpr const char* kEntry = "fp8kit_nvfp4_grouped_gemm";
  static constexpr const char* kWhat = "NVFP4 grouped GEMM";
  static constexpr bool kTakesPath = true;
  static fp8kit_status validate(const fp8kit_nvfp4_grouped_gemm_desc& in, Nvfp4GroupedParams* g) {
    fp8kit_nvfp4_grouped_gemm_desc d;
    FP8KIT_RETURN_IF_FAILED(read_versioned(&in, &d));
    return validate_nvfp4_grouped(d, g);
  }
  static std::array<NamedPointer, 9> pointers(const Nvfp4GroupedParams& g, const fp8kit_gemm_options& o) {
    const Nvfp4Params& p = g.dense;
    return {{{g.layout == FP8KIT_GROUPED_MASKED ? "counts" : "offs", g.groups},
             {"a", p.a},
             {"a_scale", p.a_scale},
             {"b", p.b},
             {"b_scale", p.b_scale},
             {"alpha", p.alpha},
             {"d", p.d},
             {"bias", p.bias},
             {"options->workspace", o.workspace}}};
  }
};

// Like fp8kit_quantize: no options, one path.
template <>
struct Op<fp8kit_nvfp4_quantize_desc> {
  using Problem = Nvfp4QuantizeParams;
  static constexpr const char* kEntry = "fp8kit_nvfp4_quantize";
  static constexpr const char* kWhat = "NVFP4 quantisation";
  static constexpr bool kTakesPath = false;
  static fp8kit_status validate(const fp8kit_nvfp4_quantize_desc& in, Nvfp4QuantizeParams* q) {
    fp8kit_nvfp4_quantize_desc d;
    FP8KIT_RETURN_IF_FAILED(read_versioned(&in, &d));
    return validate_nvfp4_quantize(d, q);
  }
  static std::array<NamedPointer, 5> pointers(const Nvfp4QuantizeParams& q, const fp8kit_gemm_options&) {
    const quant::Nvfp4QuantParams& p = q.kernel;
    return {{{"x", p.x}, {"q", p.q}, {"scale", p.scale}, {"global_scale", p.global_scale}, {"rms_weight", p.rms_weight}}};
  }
};

}  // namespace fp8kit
