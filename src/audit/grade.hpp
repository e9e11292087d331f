// The family rule: how much an offender matters (severity.hpp), and why.
//
//   trap / empty, real code in a sibling image of the GPU's own family that
//     the family can load (plain or `f`: sm_120 real, sm_121 trap)   error
//   trap / empty, real code in the family only in an `a` image of another
//     capability (sm_120a real; 12.1 loads the sm_120 stub)            warning
//   trap / empty, real code only in other families' images (CUTLASS sm90
//     kernels in the sm_120 image, Ampere-only kernels in sm_90)      note
//   trap in every image of the module (deliberately unimplemented)    note
//   missing, for a GPU named by the caller                            error
//   missing, on the default survey list                               warning
// An empty body with no real sibling is counted, never reported.
#pragma once

#include "audit/report.hpp"

namespace fp8kit::audit {

// Sets r.severity and r.reason from r.outcome, r.gpu, r.image and r.real_on.
void grade(KernelRecord& r, bool gpu_requested);

}  // namespace fp8kit::audit
