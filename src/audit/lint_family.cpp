// fp8kit lint: the family model (which GPUs exist, what an exact test misses)
// and the classifier of what an expression names.
#include <algorithm>
#include <iterator>
#include <regex>
#include <set>
#include <string>

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
constexpr int kLastMinor = 9;
constexpr int kConsumerBlackwell = 12;  // the major whose GPUs have no tensor memory

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

int first_missed(const std::vector<int>& named) {
  std::vector<int> family;
  for (int c : named)
    if (c / 10 >= kFirstFamilyMajor) family.push_back(c);
  const std::vector<int>& pool = family.empty() ? named : family;
  const std::vector<int> missed = missed_siblings(pool);
  if (!missed.empty()) return missed.front();
  if (pool.empty()) return 0;
  int newest = pool.front();  // the newest named minor of the first family named
  for (int c : pool)
    if (c / 10 == pool.front() / 10) newest = std::max(newest, c);
  return newest % 10 == kLastMinor ? 0 : newest + 1;
}

std::string a_gpu(int cap) {
  const std::string name = cap_name(cap);
  const bool vowel = name[0] == '8' || name.rfind("11.", 0) == 0;  // "an 8.6", "an 11.0"
  return (vowel ? "an " : "a ") + name + " GPU";
}

std::string consequence_phrase(Consequence c) {
  switch (c) {
    case Consequence::Refused: return "is refused";
    case Consequence::Traps: return "traps";
    case Consequence::Empty: return "runs an empty body";
    case Consequence::CompiledOut: return "runs a body compiled out";
    case Consequence::NoImage: return "has no image it can load";
    case Consequence::Other: return "gets another configuration";
    case Consequence::Passes: return "passes";
    case Consequence::NotAGpu: return "is not what the test picks";
  }
  return "?";
}

Verdict grade(const std::vector<int>& named, const Effect& e) {
  std::vector<int> family;  // the named capabilities of family-grade majors
  for (int c : named)
    if (c / 10 >= kFirstFamilyMajor) family.push_back(c);
  const int gpu = first_missed(named);
  if (gpu == 0)
    return {Severity::Note, Consequence::Passes,
            "the test names the last minor a family can have: no newer GPU of the family can fail it"};
  const std::string said = consequence_phrase(e.what) + (e.evidence.empty() ? "" : ": " + e.evidence);
  const bool device_stub =
      e.what == Consequence::Traps || e.what == Consequence::Empty || e.what == Consequence::CompiledOut;
  if (family.empty()) {
    const bool today = !missed_siblings(named).empty();
    if (device_stub && today) return {Severity::Error, e.what, a_gpu(gpu) + " " + said};
    return {Severity::Note, e.what,
            "7.x/8.x minors differ in shared memory and FP8 support, so an exact test there is a tuning choice (" +
                (today ? a_gpu(gpu) : "a future " + std::to_string(gpu / 10) + ".x GPU (" + cap_name(gpu) + ")") +
                " " + said + ")"};
  }
  if (missed_siblings(family).empty()) {
    // Only a future minor can be missed: say which GPUs of today the test names.
    const int m = family.front() / 10;
    const std::string major = std::to_string(m);
    int members = 0;
    bool all_named = true;
    for (int c : kExisting)
      if (c / 10 == m) {
        ++members;
        all_named &= std::find(named.begin(), named.end(), c) != named.end();
      }
    const std::string today = members <= 1 ? "no other " + major + ".x GPU exists today"
                              : all_named  ? "every " + major + ".x GPU of today passes"
                                           : "no " + major + ".x GPU newer than " + cap_name(gpu - 1) + " exists today";
    return {breaks(e.what) ? Severity::Warning : Severity::Note, e.what,
            today + "; a future " + major + ".x GPU (" + cap_name(gpu) + ") " + said};
  }
  const std::string who = a_gpu(gpu) + " " + said;
  if (e.what == Consequence::Passes || e.what == Consequence::NotAGpu) return {Severity::Note, e.what, who};
  if (!breaks(e.what)) return {Severity::Warning, e.what, who};
  if (!e.deliberate.empty()) return {Severity::Warning, e.what, who + "; " + e.deliberate};
  return {Severity::Error, e.what, who};
}

bool family_lacks(const std::string& context, int gpu, std::string* why) {
  // Tensor memory (tcgen05, TMEM) is a unit of the 10.x and 11.x GPUs; 12.x
  // GPUs have none, so what a test refuses them there no kernel of theirs uses.
  static const std::regex tmem(R"(tmem|tcgen05|tensor_memory)", std::regex::icase);
  if (gpu / 10 != kConsumerBlackwell || context.size() > 4 * kMaxRegexLine || !std::regex_search(context, tmem))
    return false;
  *why = "the test serves tensor memory (TMEM, tcgen05), which 12.x GPUs do not have: no kernel of theirs needs it";
  return true;
}

std::string reason_elsewhere(const std::string& reason, const std::string& how, const std::string& file) {
  const std::size_t colon = reason.find(": ");
  std::string head = colon == std::string::npos ? reason : reason.substr(0, colon);
  std::string tail = colon == std::string::npos ? "" : reason.substr(colon + 2);
  const std::string at = " at line ";
  for (std::size_t p = tail.find(at); p != std::string::npos; p = tail.find(at, p + 1))
    tail.replace(p, at.size(), " at " + file + ":");
  return head + how + (tail.empty() ? "" : ": " + tail);
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

namespace fp8kit::audit {

const char* consequence_name(Consequence c) {
  switch (c) {
    case Consequence::Refused: return "refused";
    case Consequence::Traps: return "traps";
    case Consequence::Empty: return "empty body";
    case Consequence::CompiledOut: return "compiled out";
    case Consequence::NoImage: return "no image";
    case Consequence::Other: return "another configuration";
    case Consequence::Passes: return "passes";
    case Consequence::NotAGpu: return "not a GPU";
  }
  return "?";
}

}  // namespace fp8kit::audit
