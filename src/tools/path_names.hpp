// fp8kit_path values by their fp8kit_path_name ("auto", "sm90_wgmma", ...):
// what the programs' --path options take. Header-only; not part of libfp8kit.
#pragma once

#include <string>
#include <vector>

#include "core/enums.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit::tools {

inline bool parse_path(const std::string& text, fp8kit_path* out) {
  for (fp8kit_path p : kAllPaths) {
    if (text == fp8kit_path_name(p)) {
      *out = p;
      return true;
    }
  }
  return false;
}

inline std::vector<std::string> path_names() {
  std::vector<std::string> names;
  for (fp8kit_path p : kAllPaths) names.push_back(fp8kit_path_name(p));
  return names;
}

}  // namespace fp8kit::tools
