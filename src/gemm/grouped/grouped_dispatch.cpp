#include "gemm/grouped/grouped_params.hpp"

namespace fp8kit {

const std::vector<const GroupedPath*>& grouped_paths() {
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
