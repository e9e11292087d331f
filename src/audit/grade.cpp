#include "audit/grade.hpp"

#include "arch/config.hpp"

namespace fp8kit::audit {

namespace {

bool same_family(int a, int b) {
  const arch::Family* fa = arch::family_of(a);
  return fa && fa == arch::family_of(b);
}

std::string list(const std::vector<arch::Image>& images) {
  std::string s;
  for (const arch::Image& im : images) s += (s.empty() ? "" : " ") + image_name(im);
  return s;
}

}  // namespace

void grade(KernelRecord& r, bool gpu_requested) {
  const std::string gpu = capability_name(r.gpu);
  const arch::Family* fam = arch::family_of(r.gpu);
  const std::string family = fam ? fam->name : "unknown";
  if (r.outcome == Outcome::Missing) {
    r.severity = gpu_requested ? Severity::Error : Severity::Warning;
    r.reason = "built for the " + family + " family, but no image of it loads on " + gpu +
               (gpu_requested ? "" : " (default survey list; name the GPU with --gpu to make this an error)");
    return;
  }
  // Same-family real code on an earlier minor than this GPU is the
  // equality-guard signature (sm_120 real, sm_121 a stub: the guard forgot
  // the newer minor). Real code only on later minors is what a lower bound
  // or a guard for one later part gives (cuSPARSELt's sm_87-only kernels,
  // empty on 8.0 and 8.6): deliberate as a rule, worth a look.
  std::vector<arch::Image> earlier, later, specific, other;
  for (const arch::Image& im : r.real_on) {
    if (!same_family(im.arch, r.gpu))
      other.push_back(im);
    else if (im.variant == arch::Variant::ArchSpecific)
      specific.push_back(im);
    else if (im.arch <= r.gpu)
      earlier.push_back(im);
    else
      later.push_back(im);
  }
  const std::string what = r.outcome == Outcome::TrapStub ? "trap stub" : "empty body";
  if (!earlier.empty()) {
    r.severity = Severity::Error;
    r.reason = what + " where " + list(earlier) + " of the same family has real code (equality-guard signature)";
  } else if (!later.empty()) {
    r.severity = Severity::Warning;
    r.reason = what + "; real code only in " + list(later) + ", a later member of the family (a lower bound or a guard for that part)";
  } else if (!specific.empty()) {
    r.severity = Severity::Warning;
    r.reason = what + "; real code only in " + list(specific) + ", which " + gpu +
               " cannot load (build its own `a` target or the `f` target)";
  } else if (!other.empty()) {
    r.severity = Severity::Note;
    r.reason = what + "; real code only in another family's image (" + list(other) + "): arch-specific by design";
  } else {
    r.severity = Severity::Note;
    r.reason = what + " in every image of the module: unimplemented by design";
  }
}

}  // namespace fp8kit::audit
