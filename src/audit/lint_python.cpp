// fp8kit lint, Python membership (capability-membership): a capability
// tested `in` / `not in` a literal list, tuple or set (of numbers, tuples or
// strings: `sm in ["120", "121"]`). Each entry is an equality; a list of
// majors (`cap[0] in [9, 10]`) is a family test and passes, and so do loops
// (`for cc in [(8, 0), (9, 0)]`) and lists of shapes. And tables keyed by
// exact capabilities (capability-table): `SMS = {(10, 0): 148}` looked up
// with `SMS[cc]` (a KeyError for the next minor), `SMS.get(cc, d)` (its
// default) or tested with `cc in SMS`.
#include <algorithm>
#include <map>
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
    if (c == '(' || c == '[' || c == '{') ++d;
    if (c == ')' || c == ']' || c == '}') --d;
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

namespace {

// The keys of a dict literal's items (`(10, 0): 148` -> `(10, 0)`), or empty
// when an item is not `key: value`.
std::vector<std::string> keys_of(const std::vector<std::string>& items) {
  std::vector<std::string> keys;
  for (const std::string& item : items) {
    int d = 0;
    std::size_t colon = std::string::npos;
    for (std::size_t i = 0; i < item.size() && colon == std::string::npos; ++i) {
      if (item[i] == '(' || item[i] == '[' || item[i] == '{') ++d;
      if (item[i] == ')' || item[i] == ']' || item[i] == '}') --d;
      if (item[i] == ':' && d == 0) colon = i;
    }
    if (colon == std::string::npos) return {};
    keys.push_back(trim(item.substr(0, colon)));
  }
  return keys;
}

struct Table {
  std::size_t at = 0;  // the dict literal
  std::vector<int> caps;
};

// `NAME = {(10, 0): 148, (9, 0): 132}` at the start of a line: tables keyed by capabilities.
std::map<std::string, Table> capability_tables(const std::string& code) {
  static const std::regex head(R"(^[ \t]*([A-Za-z_]\w*)\s*(?::[^=\n]+)?=\s*\{)");
  std::map<std::string, Table> out;
  for (const LineSpan& l : lines_of(code)) {
    if (l.end - l.begin > kMaxRegexLine || code.find('{', l.begin) >= l.end) continue;
    const std::string line = code.substr(l.begin, l.end - l.begin);
    std::smatch m;
    if (!std::regex_search(line, m, head)) continue;
    const std::size_t open = l.begin + static_cast<std::size_t>(m.position(0) + m.length(0)) - 1;
    const std::size_t end = closing(code, open);
    if (end == std::string::npos) continue;
    bool tuples = false;
    const std::vector<std::string> keys = keys_of(items_of(code.substr(open + 1, end - open - 1)));
    const std::vector<int> caps = list_caps(keys, tuples);
    if (!caps.empty()) out[m[1].str()] = {open, caps};
  }
  return out;
}

// Whether `x` names a capability (or, with capability tuples, a device).
bool capability_operand(const std::string& x, bool tuples) {
  const Archy a = operand_archy(x);
  const bool device = lower(x).find("device") != std::string::npos || lower(x).find("gpu") != std::string::npos;
  return a == Archy::Capability || (a == Archy::No && tuples && device);
}

bool quoted(const std::vector<std::string>& items) {
  return std::any_of(items.begin(), items.end(), [](const std::string& i) { return !i.empty() && (i[0] == '"' || i[0] == '\''); });
}

// The lines around [from, to) as the host rules read them.
HostContext context_of(const std::string& code, std::string_view raw, const Lines& lines, std::size_t line_begin,
                       std::size_t line_end, std::size_t from, std::size_t to) {
  constexpr std::size_t kAround = 200;
  const std::size_t b = from > kAround ? from - kAround : 0;
  const std::size_t e = std::min(code.size(), to + kAround);
  const std::string line = code.substr(line_begin, line_end - line_begin);
  return {line, line, code.substr(b, e - b), std::string(raw.substr(b, e - b)), {}, lines.at(b).first};
}

// Whether the subscript of table `name` at `at` is guarded: a membership test
// of the table a few lines before, or an `except KeyError` a few lines after.
bool guarded_lookup(const std::string& code, const Lines& lines, std::size_t at, const std::string& name) {
  constexpr int kGuardLines = 20, kHandlerLines = 10;
  const int line = lines.at(at).first;
  std::size_t from = lines.starts[static_cast<std::size_t>(std::max(1, line - kGuardLines)) - 1];
  static const std::regex def(R"((?:^|\n)[ \t]*(?:async[ \t]+)?def[ \t])");
  std::string before = code.substr(from, at - from);
  std::size_t function = 0;  // where the function that holds the lookup begins, in `before`
  for (auto it = std::sregex_iterator(before.begin(), before.end(), def); it != std::sregex_iterator(); ++it)
    function = static_cast<std::size_t>(it->position(0));
  before = before.substr(function);
  const std::regex membership("\\bin\\s+" + name + "\\b");
  if (std::regex_search(before, membership)) return true;
  const std::size_t last = std::min(lines.starts.size(), static_cast<std::size_t>(line + kHandlerLines));
  const std::size_t to = last < lines.starts.size() ? lines.starts[last] : code.size();
  const std::string after = code.substr(at, to - at);
  return after.find("KeyError") != std::string::npos;
}

}  // namespace

void rule_python_membership(const std::string& code, std::string_view raw, Sink& s) {
  static const std::regex re(std::string(kOperand) + R"(\s+(not\s+in|in)\s*([\[\(\{]))");
  const HostSource src(code, raw, s.lines, true);
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
      std::vector<std::string> items = items_of(code.substr(open + 1, end - open - 1));
      if (code[open] == '{') {
        const std::vector<std::string> keys = keys_of(items);
        if (!keys.empty()) items = keys;  // a dict literal: its keys
      }
      const std::vector<int> caps = list_caps(items, tuples);
      if (caps.empty()) continue;
      const std::string x = trim(m[1].str());
      if (!capability_operand(x, tuples)) continue;
      const std::size_t at = l.begin + static_cast<std::size_t>(m.position(0));
      // Graded as one test naming the list; its surroundings as for an equality.
      const bool negate = m[2].str() != "in";
      const HostContext context = context_of(code, raw, s.lines, l.begin, l.end, at, end);
      const Effect e = host_effect(src, at, end + 1, negate, first_missed(caps));
      LintFinding& f = s.add(at, "capability-membership", grade_host_test(x, "", caps.back(), caps, context, e));
      f.text = collapse(code.substr(at, end + 1 - at));
      f.message =
          "architecture tested for membership in a literal list: each entry is an equality, so the next minor "
          "revision of a listed family fails the test";
      f.rewrite = quoted(items) ? "no safe rewrite of a test on strings: compare the capability as a number, e.g. " +
                                      py_range("int(" + x + ")", caps.front(), (caps.front() / 10 + 1) * 10, negate)
                                : membership_rewrite(x, caps, tuples, negate);
    }
  }
}

void rule_python_tables(const std::string& code, std::string_view raw, Sink& s) {
  const std::map<std::string, Table> tables = capability_tables(code);
  if (tables.empty()) return;
  const HostSource src(code, raw, s.lines, true);
  for (const auto& [name, table] : tables) {
    const std::string n = name;
    // `x in NAME`, `NAME[x]`, `NAME.get(x, ...)`
    const std::regex use(std::string(kOperand) + R"(\s+(not\s+in|in)\s+)" + n + R"(\b|\b)" + n +
                         R"(\s*(\[|\.get\s*\())");
    for (const LineSpan& l : lines_of(code)) {
      if (l.end - l.begin > kMaxRegexLine) continue;
      const std::string line = code.substr(l.begin, l.end - l.begin);
      if (line.find(n) == std::string::npos || l.begin <= table.at) continue;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), use); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        const std::size_t at = l.begin + static_cast<std::size_t>(m.position(0));
        std::string x;
        Effect e;
        std::size_t end = at + static_cast<std::size_t>(m.length(0));
        if (m[2].matched) {  // a membership test
          x = trim(m[1].str());
          if (in_for(line, static_cast<std::size_t>(m.position(0))) || !capability_operand(x, true)) continue;
          e = host_effect(src, at, end, m[2].str() != "in", first_missed(table.caps));
        } else {  // a lookup
          if (m[3].str() == "[" && guarded_lookup(code, s.lines, at, n)) continue;
          const std::size_t open = at + static_cast<std::size_t>(m.length(0)) - 1;
          const std::size_t close = closing(code, open);
          if (close == std::string::npos) continue;
          std::vector<std::string> args = items_of(code.substr(open + 1, close - open - 1));
          if (args.empty()) continue;
          x = args[0];
          if (!capability_operand(x, true)) continue;
          end = close + 1;
          const bool subscript = m[3].str() == "[";
          e = subscript ? Effect{Consequence::Refused, "`" + name + "[" + x + "]` raises KeyError for it", ""}
                        : Effect{Consequence::Other,
                                 args.size() > 1 ? "the table's default (`" + args[1] + "`)" : "None from the table", ""};
        }
        HostContext context = context_of(code, raw, s.lines, l.begin, l.end, at, end);
        context.line.clear();  // what the table holds (an SM count, a tile) does not make the lookup a tuning
        LintFinding& f = s.add(at, "capability-table", grade_host_test(x, "", table.caps.back(), table.caps, context, e));
        f.text = collapse(code.substr(at, end - at));
        f.message = "capability looked up in " + name + ", a table keyed by exact capabilities (line " +
                    std::to_string(s.lines.at(table.at).first) + "): the next minor of a listed family has no entry";
        f.rewrite = "key the table by family (the major) or fall back to the family's entry";
      }
    }
  }
}

}  // namespace fp8kit::audit::lint
