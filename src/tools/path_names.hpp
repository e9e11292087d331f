// fp8kit_path values by their names ("auto", "sm90_wgmma", ...; the one list
// is core/enums.hpp's kPathNames): what the programs' --path options take.
// Header-only; not part of libfp8kit.
#pragma once

#include <string>
#include <vector>

#include "core/enums.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit::tools {

inline bool parse_path(const std::string& text, fp8kit_path* out) { return path_of_name(text.c_str(), out); }

inline std::vector<std::string> path_names() {
  std::vector<std::string> names;
  for (const PathName& p : kPathNames) names.push_back(p.name);
  return names;
}

}  // namespace fp8kit::tools
