#include "audit/lint.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <tuple>

namespace fp8kit::audit {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxFileBytes = 16u << 20;  // larger files are generated data
constexpr std::size_t kMaxRegexLine = 2000;          // longer lines are data, and std::regex recurses

// A decimal number of the source, saturated: no literal can throw.
int number(const std::string& digits) {
  long v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') break;
    v = std::min(v * 10 + (c - '0'), 1000000000L);
  }
  return static_cast<int>(v);
}

// ---------------------------------------------------------------------------
// Blanking: comments (and, optionally, string literals) become spaces, so the
// rules never match prose while offsets, lines and columns stay those of the
// file.

std::string blank_cpp(std::string_view in, bool blank_strings) {
  std::string out(in);
  std::size_t i = 0;
  auto blank = [&](std::size_t a, std::size_t b) {
    for (std::size_t k = a; k < b && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < in.size()) {
    const char c = in[i];
    if (c == '/' && i + 1 < in.size() && in[i + 1] == '/') {
      std::size_t e = in.find('\n', i);
      if (e == std::string_view::npos) e = in.size();
      blank(i, e);
      i = e;
    } else if (c == '/' && i + 1 < in.size() && in[i + 1] == '*') {
      std::size_t e = in.find("*/", i + 2);
      e = e == std::string_view::npos ? in.size() : e + 2;
      blank(i, e);
      i = e;
    } else if (c == 'R' && i + 1 < in.size() && in[i + 1] == '"' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(in[i - 1])) || in[i - 1] == '_'))) {
      const std::size_t open = in.find('(', i + 2);
      if (open == std::string_view::npos) break;
      const std::string close = ")" + std::string(in.substr(i + 2, open - i - 2)) + "\"";
      std::size_t e = in.find(close, open + 1);
      e = e == std::string_view::npos ? in.size() : e + close.size();
      if (blank_strings) blank(i + 2, e - 1);
      i = e;
    } else if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(in[i - 1]))))) {
      // A ' after a hex digit is a digit separator (1'000), not a char literal.
      std::size_t e = i + 1;
      while (e < in.size() && in[e] != c && in[e] != '\n') e += in[e] == '\\' ? 2 : 1;
      e = std::min(e, in.size());
      if (blank_strings) blank(i + 1, e);
      i = e + 1;
    } else {
      ++i;
    }
  }
  return out;
}

std::string blank_python(std::string_view in) {
  std::string out(in);
  auto blank = [&](std::size_t a, std::size_t b) {
    for (std::size_t k = a; k < b && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  std::size_t i = 0;
  while (i < in.size()) {
    const char c = in[i];
    if (c == '#') {
      std::size_t e = in.find('\n', i);
      if (e == std::string_view::npos) e = in.size();
      blank(i, e);
      i = e;
    } else if (c == '"' || c == '\'') {
      const bool triple = i + 2 < in.size() && in[i + 1] == c && in[i + 2] == c;
      const std::string delim = triple ? std::string(3, c) : std::string(1, c);
      std::size_t e = i + delim.size();
      while (e < in.size()) {
        if (in[e] == '\\') {
          e += 2;
          continue;
        }
        if (in.compare(e, delim.size(), delim) == 0) break;
        if (!triple && in[e] == '\n') break;
        ++e;
      }
      e = std::min(e, in.size());
      blank(i + delim.size(), e);
      i = e + delim.size();
    } else {
      ++i;
    }
  }
  return out;
}

std::string blank_cmake(std::string_view in) {
  std::string out(in);
  bool quoted = false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\\') {
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == '#' && !quoted) {
      std::size_t e;
      if (in.compare(i, 3, "#[[") == 0) {
        e = in.find("]]", i + 3);
        e = e == std::string_view::npos ? in.size() : e + 2;
      } else {
        e = in.find('\n', i);
        if (e == std::string_view::npos) e = in.size();
      }
      for (std::size_t k = i; k < e; ++k)
        if (out[k] != '\n') out[k] = ' ';
      i = e - 1;
    }
  }
  return out;
}

struct Lines {
  std::vector<std::size_t> starts;
  explicit Lines(std::string_view s) {
    starts.push_back(0);
    for (std::size_t i = 0; i < s.size(); ++i)
      if (s[i] == '\n') starts.push_back(i + 1);
  }
  std::pair<int, int> at(std::size_t off) const {
    const auto it = std::upper_bound(starts.begin(), starts.end(), off);
    const std::size_t line = static_cast<std::size_t>(it - starts.begin());
    return {static_cast<int>(line), static_cast<int>(off - starts[line - 1] + 1)};
  }
};

std::string trim(std::string s) {
  const auto ws = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!s.empty() && ws(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t k = 0;
  while (k < s.size() && ws(static_cast<unsigned char>(s[k]))) ++k;
  return s.substr(k);
}

std::string collapse(std::string s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Family ranges for the rewrites.

int family_end(int cap) { return (cap / 10 + 1) * 10; }

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

// ---------------------------------------------------------------------------
// Which expressions name an architecture.

std::vector<std::string> words_of(const std::string& ident) {
  std::vector<std::string> words;
  std::string cur;
  for (std::size_t i = 0; i < ident.size(); ++i) {
    const char c = ident[i];
    if (c == '_' || !std::isalnum(static_cast<unsigned char>(c))) {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
      continue;
    }
    const bool upper = std::isupper(static_cast<unsigned char>(c));
    const bool prev_lower = i > 0 && std::islower(static_cast<unsigned char>(ident[i - 1]));
    if (upper && prev_lower && !cur.empty()) {
      words.push_back(cur);
      cur.clear();
    }
    cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!cur.empty()) words.push_back(cur);
  return words;
}

// The last component of `a.b->c::d(...)[0] // 10`, lower-case.
std::string last_component(std::string expr) {
  auto cut = [&](char open) {
    const std::size_t p = expr.find(open);
    if (p != std::string::npos) expr = expr.substr(0, p);
  };
  const std::size_t div = expr.find("//");
  if (div != std::string::npos) expr = expr.substr(0, div);
  cut('(');
  cut('[');
  expr = trim(expr);
  std::size_t start = 0;
  for (std::size_t i = 0; i < expr.size(); ++i)
    if (expr[i] == '.' || expr[i] == '>' || expr[i] == ':') start = i + 1;
  return expr.substr(start);
}

enum class Archy { No, Major, Capability };

Archy archy(const std::string& expr) {
  std::string lower;
  for (char c : expr) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("version_info") != std::string::npos || lower.find("__cuda_arch") != std::string::npos)
    return Archy::No;
  const std::string last = last_component(expr);
  const auto words = words_of(last);
  std::string joined;
  for (const auto& w : words) joined += w;
  static const std::set<std::string> cap_words = {"cap", "capability", "cc", "arch", "sm", "archs", "sms", "smversion"};
  bool major = false, cap = false;
  for (const auto& w : words) {
    if (w == "major") major = true;
    if (cap_words.count(w)) cap = true;
  }
  if (joined.find("capability") != std::string::npos || joined.find("smversion") != std::string::npos ||
      joined.find("smarch") != std::string::npos)
    cap = true;
  if (cap) return Archy::Capability;
  return major ? Archy::Major : Archy::No;
}

// ---------------------------------------------------------------------------
// Rules.

// Occurrences of the arch macros compared with an operator, found by hand
// rather than by regex so that long blank runs cannot exhaust the stack.
struct MacroCompare {
  std::size_t at = 0;  // start of the whole comparison
  std::size_t end = 0;
  std::string macro, op;
  long value = -1;  // the number compared with, or -1
};

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<MacroCompare> macro_compares(const std::string& code) {
  static const char* const kMacros[] = {"__CUDA_ARCH_FAMILY_SPECIFIC__", "__CUDA_ARCH_SPECIFIC__", "__CUDA_ARCH__"};
  static const char* const kOps[] = {"==", "!=", ">=", "<=", ">", "<"};
  std::vector<MacroCompare> out;
  auto skip_ws = [&](std::size_t i, int dir) {
    for (int n = 0; n < 256; ++n) {
      const std::size_t k = dir > 0 ? i : i - 1;
      if (dir < 0 && i == 0) return i;
      if (k >= code.size() || !(code[k] == ' ' || code[k] == '\t' || code[k] == '(' || code[k] == ')')) return i;
      i = dir > 0 ? i + 1 : i - 1;
    }
    return i;
  };
  std::size_t pos = 0;
  while ((pos = code.find("__CUDA_ARCH", pos)) != std::string::npos) {
    std::string macro;
    for (const char* m : kMacros)
      if (code.compare(pos, std::strlen(m), m) == 0 &&
          (pos + std::strlen(m) >= code.size() || !is_ident(code[pos + std::strlen(m)])) &&
          (pos == 0 || !is_ident(code[pos - 1]))) {
        macro = m;
        break;
      }
    if (macro.empty()) {
      pos += 11;
      continue;
    }
    MacroCompare c;
    c.macro = macro;
    // macro OP number
    std::size_t i = skip_ws(pos + macro.size(), +1);
    for (const char* op : kOps)
      if (code.compare(i, std::strlen(op), op) == 0) {
        c.op = op;
        break;
      }
    if (!c.op.empty()) {
      std::size_t j = skip_ws(i + c.op.size(), +1), k = j;
      while (k < code.size() && std::isdigit(static_cast<unsigned char>(code[k])) && k - j < 9) ++k;
      if (k > j) c.value = number(code.substr(j, k - j));
      c.at = pos;
      c.end = k > j ? k : i + c.op.size();
      out.push_back(c);
    } else {
      // number OP macro
      std::size_t j = skip_ws(pos, -1);
      for (const char* op : kOps) {
        const std::size_t n = std::strlen(op);
        if (j >= n && code.compare(j - n, n, op) == 0 &&
            !(n == 1 && j >= 2 &&
              (code[j - 2] == '<' || code[j - 2] == '>' || code[j - 2] == '=' || code[j - 2] == '!'))) {
          c.op = op;
          break;
        }
      }
      if (!c.op.empty()) {
        std::size_t k = skip_ws(j - c.op.size(), -1), d = k;
        while (d > 0 && std::isdigit(static_cast<unsigned char>(code[d - 1])) && k - d < 9) --d;
        if (d < k) c.value = number(code.substr(d, k - d));
        c.at = d < k ? d : j - c.op.size();
        c.end = pos + macro.size();
        out.push_back(c);
      }
    }
    pos += macro.size();
  }
  return out;
}

void rule_macro_equality(const std::string& code, const Lines& lines, const std::string& file,
                         std::vector<LintFinding>& out) {
  for (const MacroCompare& c : macro_compares(code)) {
    if ((c.op != "==" && c.op != "!=") || c.value < 0) continue;
    const long lo = c.value / 100 * 100, hi = lo + 100;
    LintFinding f;
    f.file = file;
    std::tie(f.line, f.column) = lines.at(c.at);
    f.rule = "arch-macro-equality";
    f.text = collapse(code.substr(c.at, c.end - c.at));
    f.message = c.macro + " compared with " + c.op + ": a GPU of another minor revision of the family (" +
                std::to_string(c.value / 100) + ".x) gets the other branch";
    f.rewrite = cxx_range(c.macro, static_cast<int>(lo), static_cast<int>(hi), c.op == "!=");
    out.push_back(std::move(f));
  }
}

bool cond_is_arch(const std::string& cond) {
  if (cond.find("__CUDA_ARCH_FEAT_SM") != std::string::npos ||
      cond.find("__CUDA_ARCH_SPECIFIC__") != std::string::npos ||
      cond.find("__CUDA_ARCH_FAMILY_SPECIFIC__") != std::string::npos)
    return true;
  return !macro_compares(cond).empty();
}

// "empty", "trap" or "" (real code) for the body of an #else branch.
std::string else_body_kind(const std::string& body) {
  std::string flat;
  for (char c : body) flat += (c == '{' || c == '}') ? ' ' : c;
  static const std::regex trap(
      R"(^(?:(?:asm|__asm__|__asm)\s*(?:volatile|__volatile__)?\s*\(\s*"\s*trap\s*;?\s*"\s*\)|(?:__trap|__builtin_trap|(?:std::)?abort)\s*\(\s*\)|assert\s*\(\s*(?:false|0)\b.*\))$)");
  static const std::regex print(R"(^(?:std::)?printf\s*\(.*\)$)");
  static const std::regex noop(R"(^(?:return|\(void\)\s*[\w.\->\[\]]+)$)");
  bool traps = false, prints = false;
  // Statements end at semicolons outside string literals (asm("trap;")).
  std::vector<std::string> statements(1);
  char quote = 0;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const char c = flat[i];
    if (quote) {
      if (c == '\\' && i + 1 < flat.size())
        statements.back() += flat[i++];
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ';') {
      statements.emplace_back();
      continue;
    }
    statements.back() += c;
  }
  for (std::string st : statements) {
    st = collapse(st);
    if (st.empty()) continue;
    if (st.size() > kMaxRegexLine) return "";
    if (std::regex_match(st, trap))
      traps = true;
    else if (std::regex_match(st, print))
      prints = true;
    else if (!std::regex_match(st, noop))
      return "";
  }
  if (traps) return "trap";
  return prints ? "print" : "empty";
}

void rule_guard_else(const std::string& nocomment, const Lines& lines, const std::string& file,
                     std::vector<LintFinding>& out) {
  struct Level {
    bool arch = false;
    bool in_else = false;
    std::size_t else_at = 0;
    std::string else_text;
    std::string body;
  };
  std::vector<Level> stack;
  std::size_t pos = 0;
  while (pos < nocomment.size()) {
    // One logical line (backslash continuations joined).
    std::size_t end = pos;
    for (;;) {
      end = nocomment.find('\n', end);
      if (end == std::string::npos) {
        end = nocomment.size();
        break;
      }
      std::size_t k = end;
      while (k > pos && (nocomment[k - 1] == ' ' || nocomment[k - 1] == '\r' || nocomment[k - 1] == '\t')) --k;
      if (k > pos && nocomment[k - 1] == '\\') {
        ++end;
        continue;
      }
      break;
    }
    const std::string line = nocomment.substr(pos, end - pos);
    const std::size_t line_at = pos;
    pos = end + 1;
    const std::string t = trim(line);
    std::string directive, rest;
    if (!t.empty() && t[0] == '#') {
      std::size_t k = 1;
      while (k < t.size() && std::isspace(static_cast<unsigned char>(t[k]))) ++k;
      std::size_t d = k;
      while (d < t.size() && std::isalpha(static_cast<unsigned char>(t[d]))) ++d;
      directive = t.substr(k, d - k);
      rest = t.substr(d);
    }
    auto append = [&](const std::string& text) {
      for (Level& l : stack)
        if (l.in_else) l.body += text + "\n";
    };
    if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
      append(line);
      Level l;
      l.arch = cond_is_arch(rest);
      stack.push_back(l);
    } else if (directive == "elif" && !stack.empty()) {
      stack.back().arch |= cond_is_arch(rest);
    } else if (directive == "else" && !stack.empty()) {
      stack.back().in_else = true;
      stack.back().else_at = line_at + line.find('#');
      stack.back().else_text = t;
    } else if (directive == "endif" && !stack.empty()) {
      const Level l = stack.back();
      stack.pop_back();
      append(line);
      if (l.arch && l.in_else) {
        const std::string kind = else_body_kind(l.body);
        if (!kind.empty()) {
          LintFinding f;
          f.file = file;
          std::tie(f.line, f.column) = lines.at(l.else_at);
          f.rule = "arch-guard-else";
          f.text = l.else_text;
          f.message = kind == "trap"
                          ? "the #else branch of an architecture guard traps: every target outside the guard "
                            "gets a trap stub, which the driver loads on a GPU the guard missed"
                          : std::string("the #else branch of an architecture guard ") +
                                (kind == "print" ? "only prints" : "is empty") +
                                ": every target outside the guard gets a kernel that silently does nothing";
          f.rewrite =
              "guard with a family range, build only targets inside it, and give the #else a "
              "portable path or a static_assert";
          out.push_back(std::move(f));
        }
      }
    } else {
      append(line);
    }
  }
}

// Operand patterns for host-side checks.
const char* const kLhs =
    R"(([A-Za-z_]\w*(?:(?:\.|->|::)[A-Za-z_]\w*)*(?:\([^()\n]*\))?(?:\[\s*\d+\s*\])?(?:\s*//\s*\d+)?))";
const char* const kLit = R"((\(\s*\d+\s*,\s*\d+\s*\)|\d+\b|(?:[A-Za-z_]\w*\.)*sm_?\d+[af]?\b))";

bool plausible(Archy a, const std::string& lit) {
  if (lit.empty()) return false;
  if (lit[0] == '(' || !std::isdigit(static_cast<unsigned char>(lit[0]))) return true;  // tuple or enum
  const long v = number(lit.substr(0, 6));
  if (a == Archy::Major) return v >= 5 && v <= 30;
  return v >= 5 && v < 1000;
}

std::string equality_rewrite(const std::string& x, const std::string& lit, bool negate, bool python) {
  static const std::regex tuple(R"(\(\s*(\d+)\s*,\s*(\d+)\s*\))");
  static const std::regex smenum(R"(sm_?(\d+)[af]?$)");
  std::smatch m;
  if (std::regex_match(lit, m, tuple)) {
    const int major = number(m[1].str()), minor = number(m[2].str());
    return python ? py_tuple_range(x, major, minor, negate)
                  : "compare (major, minor) with the range [" + std::to_string(major) + "." + std::to_string(minor) +
                        ", " + std::to_string(major + 1) + ".0)";
  }
  int v = 0;
  std::string target = x;
  if (std::regex_search(lit, m, smenum)) {
    v = number(m[1].str());
    target = "capability(" + x + ")";
  } else {
    v = number(lit.substr(0, 6));
  }
  if (v < 30) {
    // A major version: say which families have the feature instead.
    return python ? x + " >= " + std::to_string(v) + "  (or the bounded range of families that have the feature)"
                  : x + " >= " + std::to_string(v) + "  (or the bounded range of families that have the feature)";
  }
  return python ? py_range(target, v, family_end(v), negate) : cxx_range(target, v, family_end(v), negate);
}

void rule_host_equality(const std::string& code, const Lines& lines, const std::string& file, bool python,
                        std::vector<LintFinding>& out) {
  static const std::regex fwd(std::string(kLhs) + R"(\s*(==|!=)\s*)" + kLit);
  static const std::regex rev(R"((\(\s*\d+\s*,\s*\d+\s*\)|\b\d+)\s*(==|!=)\s*)" + std::string(kLhs));
  std::size_t line_start = 0;
  while (line_start < code.size()) {
    std::size_t line_end = code.find('\n', line_start);
    if (line_end == std::string::npos) line_end = code.size();
    const std::string line = code.substr(line_start, line_end - line_start);
    const bool candidate = line.find("==") != std::string::npos || line.find("!=") != std::string::npos;
    if (candidate && line.size() <= kMaxRegexLine) {
      std::set<std::size_t> seen;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), fwd); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        const std::string lhs = m[1].str(), op = m[2].str(), lit = m[3].str();
        const Archy a = archy(lhs);
        if (a == Archy::No || !plausible(a, lit)) continue;
        if (!python && lit[0] == '(') continue;
        LintFinding f;
        f.file = file;
        std::tie(f.line, f.column) = lines.at(line_start + static_cast<std::size_t>(m.position(0)));
        seen.insert(static_cast<std::size_t>(m.position(0)));
        f.rule = "capability-equality";
        f.text = m.str(0);
        f.message = "architecture compared with " + op +
                    ": the next minor revision of the family (12.1 after 12.0, "
                    "10.3 after 10.0) or the next family fails the test";
        f.rewrite = equality_rewrite(trim(lhs), lit, op == "!=", python);
        out.push_back(std::move(f));
      }
      for (auto it = std::sregex_iterator(line.begin(), line.end(), rev); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        const std::string lit = m[1].str(), op = m[2].str(), rhs = m[3].str();
        const Archy a = archy(rhs);
        if (a == Archy::No || !plausible(a, lit) || seen.count(static_cast<std::size_t>(m.position(0)))) continue;
        if (!python && lit[0] == '(') continue;
        LintFinding f;
        f.file = file;
        std::tie(f.line, f.column) = lines.at(line_start + static_cast<std::size_t>(m.position(0)));
        f.rule = "capability-equality";
        f.text = m.str(0);
        f.message = "architecture compared with " + op + ": the next minor revision of the family fails the test";
        f.rewrite = equality_rewrite(trim(rhs), lit, op == "!=", python);
        out.push_back(std::move(f));
      }
    }
    line_start = line_end + 1;
  }
}

void rule_python_membership(const std::string& code, const Lines& lines, const std::string& file,
                            std::vector<LintFinding>& out) {
  static const std::regex re(std::string(kLhs) + R"(\s+(not\s+in|in)\s*([\[\(\{]))");
  static const std::regex item(R"(^\s*(?:\d+|\(\s*\d+\s*,\s*\d+\s*\))\s*$)");
  static const std::regex tuple(R"(\(\s*(\d+)\s*,\s*(\d+)\s*\))");
  for (std::size_t ls = 0, le; ls < code.size(); ls = le + 1) {
    le = code.find('\n', ls);
    if (le == std::string::npos) le = code.size();
    if (le - ls > kMaxRegexLine || code.find(" in", ls) >= le) continue;
    const std::string line = code.substr(ls, le - ls);
    for (auto it = std::sregex_iterator(line.begin(), line.end(), re); it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      const std::size_t at = ls + static_cast<std::size_t>(m.position(0));
      const std::size_t open = ls + static_cast<std::size_t>(m.position(3));
      const char close = code[open] == '[' ? ']' : code[open] == '(' ? ')' : '}';
      // The literal, up to the matching bracket (tuples nest one level).
      int depth = 0;
      std::size_t end = open;
      for (; end < code.size() && end < open + 4096; ++end) {
        if (code[end] == '(' || code[end] == '[' || code[end] == '{') ++depth;
        if (code[end] == ')' || code[end] == ']' || code[end] == '}') {
          if (--depth == 0) break;
        }
      }
      if (end >= code.size() || code[end] != close) continue;
      const std::string inner = code.substr(open + 1, end - open - 1);
      // Split on top-level commas.
      std::vector<std::string> items;
      std::string cur;
      int d = 0;
      for (char c : inner) {
        if (c == '(') ++d;
        if (c == ')') --d;
        if (c == ',' && d == 0) {
          items.push_back(cur);
          cur.clear();
        } else {
          cur += c;
        }
      }
      if (!trim(cur).empty()) items.push_back(cur);
      if (items.empty()) continue;
      bool literal = true, tuples = true;
      for (const auto& s : items) {
        literal &= std::regex_match(s, item);
        tuples &= std::regex_search(s, tuple);
      }
      if (!literal) continue;
      const std::string lhs = trim(m[1].str());
      const Archy a = archy(lhs);
      if (a == Archy::No && !tuples) continue;
      if (!tuples) {
        bool ok = true;
        for (const auto& s : items) ok &= plausible(a == Archy::No ? Archy::Capability : a, trim(s));
        if (!ok) continue;
      }
      const bool negate = m[2].str() != "in";
      std::string rewrite;
      std::vector<std::pair<int, int>> ranges;  // already written, to merge 103 into [100, 110)
      for (const auto& s : items) {
        std::smatch t;
        std::string r;
        if (std::regex_search(s, t, tuple)) {
          r = py_tuple_range(lhs, number(t[1].str()), number(t[2].str()), false);
        } else {
          const int v = number(trim(s));
          const int hi = v < 30 ? v + 1 : family_end(v);
          bool covered = false;
          for (const auto& [a, b] : ranges) covered |= v >= a && v < b;
          if (covered) continue;
          ranges.emplace_back(v, hi);
          r = py_range(lhs, v, hi, false);
        }
        if (rewrite.find(r) == std::string::npos) rewrite += (rewrite.empty() ? "" : " or ") + r;
      }
      if (negate) rewrite = "not (" + rewrite + ")";
      LintFinding f;
      f.file = file;
      std::tie(f.line, f.column) = lines.at(at);
      f.rule = "capability-membership";
      f.text = collapse(code.substr(at, end + 1 - at));
      f.message =
          "architecture tested for membership in a literal list: each entry is an equality, so the next "
          "minor revision of a listed family fails the test";
      if (tuples && a == Archy::No) f.message += " (capability tuples)";
      f.rewrite = rewrite;
      out.push_back(std::move(f));
    }
  }
}

void rule_cmake_lists(const std::string& code, const Lines& lines, const std::string& file,
                      std::vector<LintFinding>& out) {
  // Each command invocation name(...) is one list.
  static const std::regex cmd(R"(([A-Za-z_]\w*)\s*\()");
  static const std::regex arch_token(R"((?:^|[^\w.])(?:sm_|compute_)?(\d{2,3})([af]?)(?![\w.]))");
  static const std::regex dotted(R"((?:^|[^\w.])(\d{1,2})\.(\d)([af]?)(?![\d]))");
  for (std::size_t ls = 0, le; ls < code.size(); ls = le + 1) {
    le = code.find('\n', ls);
    if (le == std::string::npos) le = code.size();
    if (le - ls > kMaxRegexLine || code.find('(', ls) >= le) continue;
    const std::string line = code.substr(ls, le - ls);
    for (auto it = std::sregex_iterator(line.begin(), line.end(), cmd); it != std::sregex_iterator(); ++it) {
      const std::size_t cmd_at = ls + static_cast<std::size_t>(it->position(0));
      const std::size_t open = ls + static_cast<std::size_t>(it->position(0) + it->length(0) - 1);
      int depth = 0;
      std::size_t end = open;
      for (; end < code.size(); ++end) {
        if (code[end] == '(') ++depth;
        if (code[end] == ')' && --depth == 0) break;
      }
      if (end >= code.size()) continue;
      const std::string args = code.substr(open + 1, end - open - 1);
      std::string lower;
      for (char c : args) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find("arch") == std::string::npos && lower.find("gencode") == std::string::npos) continue;
      std::map<int, std::size_t> caps;  // capability -> first offset
      std::set<int> family_wide;        // `f` targets
      auto note = [&](int cap, const std::string& suffix, std::size_t at) {
        if (cap < 30 || cap >= 200) return;
        caps.emplace(cap, at);
        if (suffix == "f") family_wide.insert(cap);
      };
      for (auto t = std::sregex_iterator(args.begin(), args.end(), arch_token); t != std::sregex_iterator(); ++t)
        note(number((*t)[1].str()), (*t)[2].str(), open + 1 + static_cast<std::size_t>(t->position(1)));
      for (auto t = std::sregex_iterator(args.begin(), args.end(), dotted); t != std::sregex_iterator(); ++t)
        note(number((*t)[1].str()) * 10 + number((*t)[2].str()), (*t)[3].str(),
             open + 1 + static_cast<std::size_t>(t->position(1)));
      static const struct { int base, sibling; } pairs[] = {{120, 121}, {100, 103}};
      for (const auto& p : pairs) {
        if (!caps.count(p.base) || caps.count(p.sibling) || family_wide.count(p.base)) continue;
        LintFinding f;
        f.file = file;
        std::tie(f.line, f.column) = lines.at(caps[p.base]);
        f.rule = "cmake-arch-list";
        f.text = collapse(code.substr(cmd_at, std::min<std::size_t>(end + 1 - cmd_at, 160)));
        const std::string b = std::to_string(p.base / 10) + "." + std::to_string(p.base % 10);
        const std::string s = std::to_string(p.sibling / 10) + "." + std::to_string(p.sibling % 10);
        f.message = "architecture list names " + b + " without " + s + ": a " + s +
                    " GPU gets no image of its own (and none at all if the " + b + " one is an `a` target)";
        f.rewrite = "add " + s + " (" + std::to_string(p.sibling) + "), or build the family target " +
                    std::to_string(p.base) + "f";
        out.push_back(std::move(f));
      }
    }
  }
}

}  // namespace

SourceKind source_kind(const std::string& path) {
  const fs::path p(path);
  const std::string name = p.filename().string();
  if (name == "CMakeLists.txt") return SourceKind::CMake;
  const std::string ext = p.extension().string();
  if (ext == ".cmake") return SourceKind::CMake;
  if (ext == ".py") return SourceKind::Python;
  static const std::set<std::string> cpp = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".cxx", ".hh", ".inl"};
  return cpp.count(ext) ? SourceKind::Cpp : SourceKind::Unknown;
}

std::vector<LintFinding> lint_source(std::string_view text, SourceKind kind, const std::string& file) {
  std::vector<LintFinding> out;
  const Lines lines(text);
  switch (kind) {
    case SourceKind::Cpp: {
      const std::string code = blank_cpp(text, true);
      const std::string nocomment = blank_cpp(text, false);
      rule_macro_equality(code, lines, file, out);
      rule_guard_else(nocomment, lines, file, out);
      rule_host_equality(code, lines, file, false, out);
      break;
    }
    case SourceKind::Python: {
      const std::string code = blank_python(text);
      rule_host_equality(code, lines, file, true, out);
      rule_python_membership(code, lines, file, out);
      break;
    }
    case SourceKind::CMake:
      rule_cmake_lists(blank_cmake(text), lines, file, out);
      break;
    case SourceKind::Unknown:
      break;
  }
  std::sort(out.begin(), out.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::tie(a.line, a.column, a.rule) < std::tie(b.line, b.column, b.rule);
  });
  return out;
}

LintReport lint_paths(const std::vector<std::string>& paths) {
  LintReport report;
  auto lint_file = [&](const fs::path& p) {
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec) {
      report.errors.push_back({p.string(), ec.message()});
      return;
    }
    if (size > kMaxFileBytes) return;
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      report.errors.push_back({p.string(), "cannot open"});
      return;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ++report.files;
    for (auto& f : lint_source(text, source_kind(p.string()), p.string())) report.findings.push_back(std::move(f));
  };
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      report.errors.push_back({path, "no such file or directory"});
      continue;
    }
    if (fs::is_regular_file(st)) {
      if (source_kind(path) == SourceKind::Unknown)
        report.errors.push_back({path, "not a source kind fp8kit lint reads (.cu .cuh .h .hpp .cpp .cc .py, CMake)"});
      else
        lint_file(path);
      continue;
    }
    if (!fs::is_directory(st)) {
      report.errors.push_back({path, "not a file or directory"});
      continue;
    }
    std::vector<fs::path> files;
    fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) {
      report.errors.push_back({path, ec.message()});
      continue;
    }
    for (; it != end; it.increment(ec)) {
      if (ec) {
        report.errors.push_back({path, ec.message()});
        break;
      }
      const std::string name = it->path().filename().string();
      if (it->is_directory(ec)) {
        if (!name.empty() && name[0] == '.') it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec) && source_kind(it->path().string()) != SourceKind::Unknown)
        files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) lint_file(f);
  }
  return report;
}

}  // namespace fp8kit::audit
