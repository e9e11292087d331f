// The GEMM registries: which paths this build carries (the kernel families
// CMake built, fp8kit_build_config.hpp) in order of preference.
#include "gemm/dispatch.hpp"

#include "fp8kit_build_config.hpp"

namespace fp8kit {

template <>
const std::vector<const GemmPath*>& registry<GemmParams>() {
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

template <>
const std::vector<const GroupedPath*>& registry<GroupedParams>() {
  static const std::vector<const GroupedPath*> paths{
#ifdef FP8KIT_WITH_SM90
      &kSm90WgmmaGroupedPath,
#endif
#ifdef FP8KIT_WITH_SM89
      &kSm89MmaGroupedPath,
#endif
#ifdef FP8KIT_WITH_SM75
      &kSm75HmmaGroupedPath,
#endif
  };
  return paths;
}

}  // namespace fp8kit
