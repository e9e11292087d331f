// The equality-guard story of a trapping kernel: which sibling images of its
// module have real code (from the host binaries, through the audit), the
// guard's likely form, and the family-range fix. Internal to fp8kit_coredump.
#pragma once

#include <string>
#include <vector>

#include "arch/loader.hpp"
#include "coredump/dump.hpp"
#include "coredump/fault.hpp"

namespace fp8kit::coredump {

struct GuardAdvice {
  bool same_family = false;  // a real sibling is in the GPU's own family
  std::string guard;         // likely form of the guard
  std::string fix;           // the family-range fix
};

// `gpu`: the faulting GPU's capability; `loaded`: the target of the image it
// ran (a trap stub or empty body); `real_on`: sibling images with real code.
GuardAdvice advise(int gpu, const std::string& loaded, const std::vector<arch::Image>& real_on);

// Fills Fault::sibling, real_on, guard and fix for every fault whose loaded
// image is a trap stub or empty, from options.binaries; notes what it cannot.
void check_siblings(Explanation& ex, const CoreDump& dump, const ExplainOptions& options);

}  // namespace fp8kit::coredump
