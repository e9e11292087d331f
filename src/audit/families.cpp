#include "audit/families.hpp"

#include <map>
#include <set>
#include <utility>

namespace fp8kit::audit {
namespace {

bool belongs(const KernelRecord& k, const KernelFamily& f) {
  return k.demangled.find(f.function) != std::string::npos &&
         (f.policy.empty() || k.demangled.find(f.policy) != std::string::npos);
}

// "void fp8kit::sm90::kernel<...>(...)": the qualified name after the return type.
bool in_namespace(const std::string& demangled, const std::string& ns) {
  const size_t space = demangled.find(' ');
  const size_t start = space == std::string::npos ? 0 : space + 1;
  return demangled.compare(start, ns.size(), ns) == 0;
}

void count(FamilyTally& t, const KernelRecord& k) {
  ++t.kernels;
  switch (k.outcome) {
    case Outcome::Sass: ++t.sass; break;
    case Outcome::Jit: ++t.jit; break;
    case Outcome::TrapStub: ++t.trap; break;
    case Outcome::Empty: ++t.empty; break;
    case Outcome::Missing: ++t.missing; break;
    case Outcome::NotBuilt: ++t.not_built; break;
  }
  if (k.outcome == Outcome::Sass) t.tensor_ops |= k.tensor_ops;
}

}  // namespace

bool FamilyAudit::ok() const {
  if (!unattributed.empty() || !empty.empty() || tallies.empty()) return false;
  for (const FamilyTally& t : tallies)
    if (t.trap || t.empty || t.missing) return false;
  return true;
}

FamilyAudit attribute_families(const AuditReport& report, const std::vector<KernelFamily>& families,
                               const std::string& ns) {
  FamilyAudit out;
  std::map<std::pair<size_t, int>, FamilyTally> tallies;  // (family index, gpu)
  std::set<size_t> seen;
  std::set<std::string> unattributed;
  for (const KernelRecord& k : report.records) {
    bool found = false;
    for (size_t f = 0; f < families.size() && !found; ++f) {
      if (!belongs(k, families[f])) continue;
      found = true;
      seen.insert(f);
      FamilyTally& t = tallies[{f, k.gpu}];
      t.family = families[f].name;
      t.gpu = k.gpu;
      count(t, k);
    }
    if (!found && in_namespace(k.demangled, ns)) unattributed.insert(k.demangled);
  }
  for (auto& [key, t] : tallies) out.tallies.push_back(std::move(t));
  out.unattributed.assign(unattributed.begin(), unattributed.end());
  for (size_t f = 0; f < families.size(); ++f)
    if (!seen.count(f)) out.empty.push_back(families[f].name);
  return out;
}

}  // namespace fp8kit::audit
