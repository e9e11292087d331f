// fp8kit lint: rewrites of exact architecture tests into family ranges. Each
// form is checked by LintRewrite.* over every capability 7.0 ... 13.9: it keeps
// the test's value everywhere except on the same-family minors newer than the
// one named, which it now serves.
#include <regex>
#include <utility>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

namespace {

constexpr int kNoSafeRewriteBelow = 30;  // a bare major: no capability to widen from

int family_end(int cap) { return (cap / 10 + 1) * 10; }

std::string join_or(const std::vector<std::string>& terms, bool python) {
  std::string s;
  for (const auto& t : terms) s += (s.empty() ? "" : python ? " or " : " || ") + t;
  return s;
}

}  // namespace

std::string cxx_range(const std::string& x, int lo, int hi, bool negate) {
  const std::string r = x + " >= " + std::to_string(lo) + " && " + x + " < " + std::to_string(hi);
  return negate ? "!(" + r + ")" : "(" + r + ")";
}

std::string py_range(const std::string& x, int lo, int hi, bool negate) {
  const std::string r = std::to_string(lo) + " <= " + x + " < " + std::to_string(hi);
  return negate ? "not (" + r + ")" : r;
}

std::string py_tuple_range(const std::string& x, int major, int minor, bool negate) {
  const std::string r = "(" + std::to_string(major) + ", " + std::to_string(minor) + ") <= " + x + " < (" +
                        std::to_string(major + 1) + ", 0)";
  return negate ? "not (" + r + ")" : r;
}

std::string equality_rewrite(const std::string& x, const std::string& lit, bool negate, bool python) {
  if (!lit.empty() && (lit[0] == '"' || lit[0] == '\'')) {
    const int cap = literal_cap(lit);
    const std::string advice = "no safe rewrite of a test on strings: compare the capability as a number, e.g. ";
    if (lit.find('.') != std::string::npos) {
      const std::string r = std::to_string(cap / 10) + "." + std::to_string(cap % 10) + " <= float(" + x + ") < " +
                            std::to_string(cap / 10 + 1) + ".0";
      return advice + (negate ? "not (" + r + ")" : r);
    }
    return advice + py_range("int(" + x + ")", cap, family_end(cap), negate);
  }
  static const std::regex tuple(R"(\(\s*(\d+)\s*,\s*(\d+)\s*\))");
  static const std::regex smenum(R"(sm_?(\d+)[af]?$)");
  std::smatch m;
  if (std::regex_match(lit, m, tuple)) {
    const int major = number(m[1].str()), minor = number(m[2].str());
    if (python) return py_tuple_range(x, major, minor, negate);
    return "no safe rewrite here: test (major, minor) against [" + std::to_string(major) + "." +
           std::to_string(minor) + ", " + std::to_string(major + 1) + ".0)";
  }
  if (std::regex_search(lit, m, smenum))
    return "no safe rewrite of an enum equality: test the capability against [" + m[1].str() + ", " +
           std::to_string(family_end(number(m[1].str()))) + ") instead";
  const int v = number(lit.substr(0, 6));
  if (v < kNoSafeRewriteBelow) return "no safe rewrite: a major number is already a family test";
  const int end = v >= kArchUnitsFrom ? family_end(v / 10) * 10 : family_end(v);
  return python ? py_range(x, v, end, negate) : cxx_range(x, v, end, negate);
}

std::string membership_rewrite(const std::string& x, const std::vector<int>& caps, bool tuples, bool negate) {
  std::vector<std::pair<int, int>> ranges;  // [lo, hi) capabilities, merged: 103 falls in [100, 110)
  for (int v : caps) {
    bool covered = false;
    for (const auto& [lo, hi] : ranges) covered |= v >= lo && v < hi;
    if (!covered) ranges.emplace_back(v, family_end(v));
  }
  std::vector<std::string> terms;
  for (const auto& [lo, hi] : ranges)
    terms.push_back(tuples ? py_tuple_range(x, lo / 10, lo % 10, false) : py_range(x, lo, hi, false));
  const std::string r = join_or(terms, true);
  return negate ? "not (" + r + ")" : r;
}

std::string major_minor_rewrite(const std::string& major, const std::string& minor, int cap, bool python,
                                bool negate) {
  const std::string eq = major + " == " + std::to_string(cap / 10);
  const std::string r =
      cap % 10 == 0 ? eq : eq + (python ? " and " : " && ") + minor + " >= " + std::to_string(cap % 10);
  if (python) return negate ? "not (" + r + ")" : r;
  return negate ? "!(" + r + ")" : "(" + r + ")";
}

}  // namespace fp8kit::audit::lint
