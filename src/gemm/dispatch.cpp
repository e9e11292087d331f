#include "gemm/dispatch.hpp"

namespace fp8kit {

const std::vector<const GemmPath*>& gemm_paths() {
  static const std::vector<const GemmPath*> paths{
#ifdef FP8KIT_WITH_SM90
      &kSm90WgmmaPath,
#endif
#ifdef FP8KIT_WITH_SM120
      &kSm120MmaPath,
#endif
#ifdef FP8KIT_WITH_SM89
      &kSm89MmaPath,
#endif
#ifdef FP8KIT_WITH_SM75
      &kSm75HmmaPath,
#endif
  };
  return paths;
}

const GemmPath* find_path(fp8kit_path id) {
  for (const GemmPath* p : gemm_paths())
    if (p->id == id) return p;
  return nullptr;
}

}  // namespace fp8kit
