// fp8kit lint: the family model (which GPUs exist, what an exact test misses)
// and the classifier of what an expression names.
#include <algorithm>
#include <set>

#include "arch/config.hpp"
#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

namespace {

// Capabilities of the GPUs that exist: arch/config.hpp's one list.
constexpr const arch::ReleasedCapabilities& kExisting = arch::kReleasedCapabilities;
// Below this major, minors differ in shared memory and FP8 support: an exact
// test there picks a tuning, not a family.
constexpr int kFirstFamilyMajor = 9;
constexpr int kMinMajor = 5, kMaxMajor = 13;

}  // namespace

bool plausible_capability(int cap) { return cap / 10 >= kMinMajor && cap / 10 <= kMaxMajor; }

std::string cap_name(int cap) { return std::to_string(cap / 10) + "." + std::to_string(cap % 10); }

std::vector<int> missed_siblings(const std::vector<int>& named) {
  std::vector<int> out;
  for (int c : named)
    for (int e : kExisting)
      if (e / 10 == c / 10 && e > c && std::find(named.begin(), named.end(), e) == named.end() &&
          std::find(out.begin(), out.end(), e) == out.end())
        out.push_back(e);
  std::sort(out.begin(), out.end());
  return out;
}

Verdict exact_test_verdict(const std::vector<int>& named) {
  std::vector<int> family;  // the named capabilities of family-grade majors
  for (int c : named)
    if (c / 10 >= kFirstFamilyMajor) family.push_back(c);
  const std::vector<int> missed = missed_siblings(family);
  if (!missed.empty()) {
    std::string gpus;
    for (int m : missed) gpus += (gpus.empty() ? "" : ", ") + cap_name(m);
    return {Severity::Error, "a " + gpus + " GPU exists and fails this exact test"};
  }
  if (!family.empty()) {
    const int major = family.front() / 10;
    return {Severity::Warning, "every " + std::to_string(major) + ".x GPU of today passes; a future " +
                                   std::to_string(major) + ".x minor would fail the exact test"};
  }
  return {Severity::Note, "7.x/8.x minors differ in shared memory and FP8 support: an exact test there "
                          "is a tuning choice"};
}

// ---------------------------------------------------------------------------
// What an expression names.

namespace {

// The last component of `a.b->c::d(...)[0] // 10`, lower-case; a conversion
// at the end (`capability.to_int()`) gives the component before it.
std::string last_component(std::string expr) {
  const std::size_t div = expr.find("//");
  if (div != std::string::npos) expr = expr.substr(0, div);
  std::string clean;  // without call arguments and subscripts
  int depth = 0;
  for (char c : expr) {
    if (c == '(' || c == '[') ++depth;
    if (depth == 0) clean += c;
    if ((c == ')' || c == ']') && depth > 0) --depth;
  }
  clean = trim(clean);
  std::vector<std::string> parts(1);
  for (std::size_t i = 0; i < clean.size(); ++i) {
    const char c = clean[i];
    if (c == '.' || c == ':' || (c == '>' && i > 0 && clean[i - 1] == '-')) {
      if (!parts.back().empty()) parts.emplace_back();
    } else if (c != '-') {
      parts.back() += c;
    }
  }
  if (parts.back().empty()) parts.pop_back();
  static const std::set<std::string> conversions = {"to_int", "as_int", "int", "value", "as_tuple"};
  while (parts.size() > 1 && conversions.count(lower(parts.back()))) parts.pop_back();
  return parts.empty() ? "" : parts.back();
}

bool names_a_toolkit_or_count(const std::string& expr_lower, const std::vector<std::string>& words) {
  static const char* const toolkit[] = {"version_info", "__cuda_arch", "cudacc", "cuda_version", "cudart",
                                        "driver",       "runtime",     "nvcc",   "cudnn",        "nccl",
                                        "python",       "triton",      "torch.version", "kmincomputecapability",
                                        "archtag",      "arch_tag"};
  for (const char* t : toolkit)
    if (expr_lower.find(t) != std::string::npos) return true;
  static const std::set<std::string> counts = {"count", "num", "number", "n",     "size",   "sms",
                                               "multiprocessor", "len", "idx", "index", "dim", "tile"};
  for (const auto& w : words)
    if (counts.count(w)) return true;
  return false;
}

}  // namespace

Archy archy(const std::string& expr) {
  const std::string low = lower(expr);
  const std::string last = last_component(expr);
  const auto words = words_of(last);
  // `version_num` (vLLM's get_sm_version_num()) and `sm_version` name capabilities.
  const bool version_num = words.size() == 2 && words[0] == "version" && words[1] == "num";
  if (!version_num && names_a_toolkit_or_count(low, words)) return Archy::No;
  std::string joined;
  for (const auto& w : words) joined += w;
  static const std::set<std::string> cap_words = {"cap", "capability", "cc", "arch", "sm", "smversion"};
  bool major = false, cap = version_num;
  for (const auto& w : words) {
    if (w == "major") major = true;
    if (cap_words.count(w)) cap = true;
    if (w == "version" || w == "ver") cap |= joined.find("sm") != std::string::npos;
  }
  if (joined.find("capability") != std::string::npos || joined.find("smversion") != std::string::npos ||
      joined.find("smarch") != std::string::npos)
    cap = true;
  if (std::find(words.begin(), words.end(), "minor") != words.end() || expr.find("[1]") != std::string::npos)
    return Archy::No;  // a minor alone says nothing of the family
  const bool of_major = low.find("//") != std::string::npos || expr.find("[0]") != std::string::npos;
  if (major || (cap && of_major)) return Archy::Major;
  return cap ? Archy::Capability : Archy::No;
}

}  // namespace fp8kit::audit::lint
