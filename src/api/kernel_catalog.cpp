#include "api/kernel_catalog.hpp"

#include "api/ops.hpp"
#include "gemm/dispatch.hpp"

namespace fp8kit {
namespace {

template <typename Desc>
void add(ProblemKind problem, std::vector<KernelFamilyEntry>* out) {
  for (const auto* path : registry<typename Op<Desc>::Problem>())
    out->push_back({problem, Op<Desc>::kWhat, path->name(), path->kernels, &path->images()});
}

}  // namespace

std::vector<KernelFamilyEntry> kernel_catalog() {
  std::vector<KernelFamilyEntry> out;
  add<fp8kit_gemm_desc>(ProblemKind::Gemm, &out);
  add<fp8kit_grouped_gemm_desc>(ProblemKind::GroupedGemm, &out);
  add<fp8kit_quantize_desc>(ProblemKind::Quantize, &out);
  add<fp8kit_nvfp4_gemm_desc>(ProblemKind::Nvfp4Gemm, &out);
  add<fp8kit_nvfp4_grouped_gemm_desc>(ProblemKind::Nvfp4GroupedGemm, &out);
  add<fp8kit_nvfp4_quantize_desc>(ProblemKind::Nvfp4Quantize, &out);
  return out;
}

}  // namespace fp8kit
