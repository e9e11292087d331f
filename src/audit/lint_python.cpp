// fp8kit lint, Python membership (capability-membership): a capability
// tested `in` / `not in` a literal list, tuple or set. Each entry is an
// equality; a list of majors (`cap[0] in [9, 10]`) is a family test and
// passes, and so do loops (`for cc in [(8, 0), (9, 0)]`) and lists of shapes.
#include <algorithm>
#include <regex>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

namespace {

constexpr std::size_t kMaxList = 4096;  // a literal list longer than this is data

// Top-level comma-separated items of a bracket's inside.
std::vector<std::string> items_of(const std::string& inner) {
  std::vector<std::string> items;
  std::string cur;
  int d = 0;
  for (char c : inner) {
    if (c == '(') ++d;
    if (c == ')') --d;
    if (c == ',' && d == 0) {
      items.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) items.push_back(trim(cur));
  return items;
}

// Offset of the bracket closing the one at `open`, or npos.
std::size_t closing(const std::string& code, std::size_t open) {
  int depth = 0;
  for (std::size_t end = open; end < code.size() && end < open + kMaxList; ++end) {
    if (code[end] == '(' || code[end] == '[' || code[end] == '{') ++depth;
    if ((code[end] == ')' || code[end] == ']' || code[end] == '}') && --depth == 0) return end;
  }
  return std::string::npos;
}

// Whether the match at `at` is the target of a `for` (a loop or comprehension).
bool in_for(const std::string& line, std::size_t at) {
  static const std::regex word(R"(\b(for|if)\b)");
  std::string last;
  const std::string before = line.substr(0, at);
  for (auto it = std::sregex_iterator(before.begin(), before.end(), word); it != std::sregex_iterator(); ++it)
    last = (*it)[1].str();
  return last == "for";
}

// The capabilities of a literal list, or empty if an item names none.
std::vector<int> list_caps(const std::vector<std::string>& items, bool& tuples) {
  std::vector<int> caps;
  tuples = !items.empty();
  for (const auto& s : items) {
    const int cap = literal_cap(s);
    if (cap < 0) return {};
    tuples &= s[0] == '(';
    caps.push_back(cap);
  }
  return caps;
}

// Whether the line has ` in` followed by a bracket: std::regex is slow, and
// most lines with ` in` are loops over names.
bool has_literal_in(const std::string& line) {
  for (std::size_t p = line.find(" in"); p != std::string::npos; p = line.find(" in", p + 1)) {
    std::size_t k = p + 3;
    while (k < line.size() && line[k] == ' ') ++k;
    if (k < line.size() && (line[k] == '[' || line[k] == '(' || line[k] == '{')) return true;
  }
  return false;
}

}  // namespace

void rule_python_membership(const std::string& code, std::string_view raw, Sink& s) {
  static const std::regex re(std::string(kOperand) + R"(\s+(not\s+in|in)\s*([\[\(\{]))");
  for (const LineSpan& l : lines_of(code)) {
    if (l.end - l.begin > kMaxRegexLine) continue;
    const std::string line = code.substr(l.begin, l.end - l.begin);
    if (!has_literal_in(line)) continue;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), re); it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      if (in_for(line, static_cast<std::size_t>(m.position(0)))) continue;
      const std::size_t open = l.begin + static_cast<std::size_t>(m.position(3));
      const std::size_t end = closing(code, open);
      if (end == std::string::npos) continue;
      bool tuples = false;
      const std::vector<int> caps = list_caps(items_of(code.substr(open + 1, end - open - 1)), tuples);
      if (caps.empty()) continue;
      const std::string x = trim(m[1].str());
      const Archy a = operand_archy(x);
      const bool device = lower(x).find("device") != std::string::npos || lower(x).find("gpu") != std::string::npos;
      if (a != Archy::Capability && !(a == Archy::No && tuples && device)) continue;
      const std::size_t at = l.begin + static_cast<std::size_t>(m.position(0));
      // Graded as one test naming the list; its surroundings as for an equality.
      constexpr std::size_t kAround = 200;
      const std::size_t from = l.begin > kAround ? l.begin - kAround : 0;
      const std::size_t to = std::min(code.size(), end + kAround);
      const HostContext context{line, line, code.substr(from, to - from), std::string(raw.substr(from, to - from)), {}};
      const Verdict v = grade_host_test(x, "", caps.back(), caps, context);
      LintFinding& f = s.add(at, "capability-membership", v);
      f.text = collapse(code.substr(at, end + 1 - at));
      f.message =
          "architecture tested for membership in a literal list: each entry is an equality, so the next minor "
          "revision of a listed family fails the test";
      f.rewrite = membership_rewrite(x, caps, tuples, m[2].str() != "in");
    }
  }
}

}  // namespace fp8kit::audit::lint
