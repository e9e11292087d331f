// fp8kit lint, C++/CUDA preprocessor rules: the arch macros compared with
// == / != (arch-macro-equality), feature macros without their family
// sibling (arch-feature-macro), and the #else of an arch guard that traps or
// does nothing (arch-guard-else).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>
#include <tuple>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

namespace {

// Occurrences of the arch macros compared with an operator, found by hand
// rather than by regex so that long blank runs cannot exhaust the stack.
struct MacroCompare {
  std::size_t at = 0;  // start of the whole comparison
  std::size_t end = 0;
  std::string macro, op;
  long value = -1;   // the number compared with, or -1
  std::string name;  // the named constant it came from (`GGML_CUDA_CC_DGX_SPARK`), if any
};

// The identifier ending at `end` or starting at `at` (empty if none).
std::string ident_before(const std::string& code, std::size_t end) {
  std::size_t b = end;
  while (b > 0 && is_ident(code[b - 1])) --b;
  return b < end && !std::isdigit(static_cast<unsigned char>(code[b])) ? code.substr(b, end - b) : std::string();
}
std::string ident_at(const std::string& code, std::size_t at) {
  std::size_t e = at;
  while (e < code.size() && is_ident(code[e])) ++e;
  return e > at && !std::isdigit(static_cast<unsigned char>(code[at])) ? code.substr(at, e - at) : std::string();
}

// With `named`, a name it defines stands for its value.
std::vector<MacroCompare> macro_compares(const std::string& code, const ArchDefines* named = nullptr) {
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
      if (k == j && named) {
        const std::string id = ident_at(code, j);
        const auto it = named->find(id);
        if (it != named->end()) {
          c.value = it->second;
          c.name = id;
          k = j + id.size();
        }
      }
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
        if (d > 0 && is_ident(code[d - 1])) d = k;  // the digits end a name (`SM120`)
        if (d < k) c.value = number(code.substr(d, k - d));
        if (d == k && named) {
          const std::string id = ident_before(code, k);
          const auto it = named->find(id);
          if (it != named->end()) {
            c.value = it->second;
            c.name = id;
            d = k - id.size();
          }
        }
        c.at = d < k ? d : j - c.op.size();
        c.end = pos + macro.size();
        out.push_back(c);
      }
    }
    pos += macro.size();
  }
  return out;
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


// Capabilities an arch-macro value names (1200 -> 120), or -1 if it names none.
int macro_cap(long value) {
  if (value < 0 || value % 10 != 0 || !plausible_capability(static_cast<int>(value / 10))) return -1;
  return static_cast<int>(value / 10);
}

// The capabilities a condition admits by equality on the arch macros
// (`== 1000 || == 1030` -> {100, 103}).
std::vector<int> equality_caps(const std::vector<MacroCompare>& compares) {
  std::vector<int> caps;
  for (const MacroCompare& c : compares)
    if ((c.op == "==" || c.op == "!=") && macro_cap(c.value) >= 0) caps.push_back(macro_cap(c.value));
  return caps;
}

// Feature macros whose family has a sibling today: __CUDA_ARCH_FEAT_SM100_ALL
// is defined for sm_100a only, so a 10.3 GPU (sm_103a) takes the other branch.
struct FeatureSibling {
  const char* base;
  const char* sibling;
};
constexpr FeatureSibling kFeatureSiblings[] = {
    {"__CUDA_ARCH_FEAT_SM100_ALL", "__CUDA_ARCH_FEAT_SM103_ALL"},
    {"__CUDA_ARCH_FEAT_SM120_ALL", "__CUDA_ARCH_FEAT_SM121_ALL"},
};

bool has_token(const std::string& s, const char* token) {
  for (std::size_t p = s.find(token); p != std::string::npos; p = s.find(token, p + 1)) {
    const std::size_t e = p + std::strlen(token);
    if ((p == 0 || !is_ident(s[p - 1])) && (e >= s.size() || !is_ident(s[e]))) return true;
  }
  return false;
}

// A feature macro of `cond` whose sibling neither it nor the file names (a
// file that names the sibling elsewhere has made its choice), or null.
const FeatureSibling* lone_feature_macro(const std::string& cond, const std::string& file_code) {
  if (cond.find("FAMILY") != std::string::npos) return nullptr;
  for (const FeatureSibling& f : kFeatureSiblings)
    if (has_token(cond, f.base) && !has_token(file_code, f.sibling)) return &f;
  return nullptr;
}

std::string else_kind_message(const std::string& kind) {
  if (kind == "trap")
    return "the #else branch of an architecture guard traps: every target outside the guard gets a trap stub, "
           "which the driver loads on a GPU the guard missed";
  return std::string("the #else branch of an architecture guard ") + (kind == "print" ? "only prints" : "is empty") +
         ": every target outside the guard gets a kernel that silently does nothing";
}

// The grade of an #else stub from the guard it belongs to: an exact guard
// hands the stub to a sibling GPU; a lower bound, a range or a feature macro
// stubs other families by design (fp8kit audit tells whether one ships).
Verdict guard_else_verdict(const std::string& cond, const std::string& file_code) {
  const std::vector<int> caps = equality_caps(macro_compares(cond));
  std::vector<int> served = equality_caps(macro_compares(file_code));  // the file's other exact guards
  served.insert(served.end(), caps.begin(), caps.end());
  std::vector<int> missed;
  for (int m : missed_siblings(served))
    for (int c : caps)
      if (m / 10 == c / 10 && std::find(missed.begin(), missed.end(), m) == missed.end()) missed.push_back(m);
  if (!missed.empty()) return {Severity::Error, "the guard is exact: a " + cap_name(missed.front()) +
                                                    " GPU gets the stub where its target is built"};
  if (const FeatureSibling* f = lone_feature_macro(cond, file_code))
    return {Severity::Error, std::string("the guard tests ") + f->base + " alone: the family sibling gets the stub"};
  if (!caps.empty())
    return {Severity::Warning, "the guard is exact in a family with one member today: a future minor gets the stub"};
  return {Severity::Note, "a lower bound, range or feature guard stubs other families by design; fp8kit audit "
                          "shows whether a shipped image is a stub"};
}

// One logical line (backslash continuations joined) from `pos`; `pos` moves past it.
std::string logical_line(const std::string& s, std::size_t& pos) {
  std::size_t end = pos;
  for (;;) {
    end = s.find('\n', end);
    if (end == std::string::npos) {
      end = s.size();
      break;
    }
    std::size_t k = end;
    while (k > pos && (s[k - 1] == ' ' || s[k - 1] == '\r' || s[k - 1] == '\t')) --k;
    if (k > pos && s[k - 1] == '\\') {
      ++end;
      continue;
    }
    break;
  }
  std::string line = s.substr(pos, end - pos);
  pos = end + 1;
  return line;
}

// `#  if defined(X)` -> {"if", " defined(X)"}; not a directive -> {"", ""}.
std::pair<std::string, std::string> directive_of(const std::string& t) {
  if (t.empty() || t[0] != '#') return {};
  std::size_t k = 1;
  while (k < t.size() && std::isspace(static_cast<unsigned char>(t[k]))) ++k;
  std::size_t d = k;
  while (d < t.size() && std::isalpha(static_cast<unsigned char>(t[d]))) ++d;
  return {t.substr(k, d - k), t.substr(d)};
}

bool cond_is_arch(const std::string& cond) {
  const std::string c = trim(cond);
  if (c == "0" || c.rfind("0 ", 0) == 0 || c.rfind("0&&", 0) == 0) return false;  // dead code
  if (cond.find("__CUDA_ARCH_FEAT_SM") != std::string::npos ||
      cond.find("__CUDA_ARCH_SPECIFIC__") != std::string::npos ||
      cond.find("__CUDA_ARCH_FAMILY_SPECIFIC__") != std::string::npos)
    return true;
  return !macro_compares(cond).empty();
}

struct GuardLevel {
  bool arch = false;
  std::string cond;  // the #if and #elif conditions
  std::size_t if_at = 0;
  bool in_else = false;
  std::size_t else_at = 0;
  std::string else_text, body;
};

void report_else(const GuardLevel& l, const std::string& file_code, Sink& s) {
  const std::string kind = else_body_kind(l.body);
  if (kind.empty()) return;
  LintFinding& f = s.add(l.else_at, "arch-guard-else", guard_else_verdict(l.cond, file_code));
  f.text = l.else_text;
  f.message = else_kind_message(kind);
  f.rewrite = "guard with a family range, build only targets inside it, and give the #else a portable path or a "
              "static_assert";
}

// The nearest character before `at` / from `at` on that is not white space.
char prev_char(const std::string& s, std::size_t at) {
  while (at > 0 && std::isspace(static_cast<unsigned char>(s[at - 1]))) --at;
  return at > 0 ? s[at - 1] : '\0';
}
char next_char(const std::string& s, std::size_t at) {
  while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
  return at < s.size() ? s[at] : '\0';
}

// An exact guard around a whole function body with no #else (vLLM's
// enable_sm90_only): outside it the kernel is empty. Lower bounds and ranges
// around a body are the ordinary way to stub other families and pass.
void report_whole_body(const GuardLevel& l, std::size_t endif_end, const std::string& code, Sink& s) {
  if (prev_char(code, l.if_at) != '{' || next_char(code, endif_end) != '}') return;
  const Verdict v = guard_else_verdict(l.cond, code);
  if (v.severity == Severity::Note) return;
  LintFinding& f = s.add(l.if_at + code.substr(l.if_at).find('#'), "arch-guard-else", v);
  f.text = collapse(trim(code.substr(l.if_at, code.find('\n', l.if_at) - l.if_at)));
  f.message = "an exact architecture guard covers the whole body and has no #else: every other target gets a "
              "kernel that silently does nothing";
  f.rewrite = "guard with a family range and build only targets inside it";
}

}  // namespace

ArchDefines arch_defines(const std::string& code) {
  static const std::regex define(R"(^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?[ \t]*(\d{3,4})[ \t]*\)?[ \t]*$)");
  ArchDefines out;
  if (code.find("define") == std::string::npos) return out;
  for (const LineSpan& l : lines_of(code)) {
    if (l.end - l.begin > kMaxRegexLine) continue;
    const std::string line = code.substr(l.begin, l.end - l.begin);
    std::smatch m;
    if (line.find('#') != std::string::npos && std::regex_match(line, m, define) && macro_cap(number(m[2].str())) >= 0)
      out.emplace(m[1].str(), number(m[2].str()));
  }
  return out;
}

void rule_macro_equality(const std::string& code, Sink& s, const ArchDefines* named) {
  if (named && (named->empty() || code.find("__CUDA_ARCH") == std::string::npos)) return;
  const std::vector<MacroCompare> all = macro_compares(code, named);
  for (const MacroCompare& c : all) {
    if ((c.op != "==" && c.op != "!=") || macro_cap(c.value) < 0 || c.name.empty() != !named) continue;
    // The file's equalities on the same macro name the set it serves: a file
    // that also tests == 1030 has made its choice for 10.3.
    std::vector<MacroCompare> same_macro;
    for (const MacroCompare& o : all)
      if (o.macro == c.macro && o.value / 100 == c.value / 100) same_macro.push_back(o);
    const long lo = c.value / 100 * 100, hi = lo + 100;
    LintFinding& f = s.add(c.at, "arch-macro-equality", exact_test_verdict(equality_caps(same_macro)));
    f.text = collapse(code.substr(c.at, c.end - c.at));
    f.message = c.macro + " compared with " + c.op + (c.name.empty() ? "" : " " + c.name + " (" + std::to_string(c.value) + ")") +
                ": a GPU of another minor revision of the family (" + std::to_string(c.value / 100) +
                ".x) gets the other branch";
    f.rewrite = cxx_range(c.macro, static_cast<int>(lo), static_cast<int>(hi), c.op == "!=");
  }
}

void rule_feature_macros(const std::string& code, Sink& s) {
  std::size_t pos = 0;
  while (pos < code.size()) {
    const std::size_t at = pos;
    const std::string line = logical_line(code, pos);
    const auto [directive, cond] = directive_of(trim(line));
    if (directive != "if" && directive != "elif" && directive != "ifdef" && directive != "ifndef") continue;
    const FeatureSibling* f = cond_is_arch(cond) ? lone_feature_macro(cond, code) : nullptr;
    if (!f) continue;
    LintFinding& x = s.add(at + line.find(f->base), "arch-feature-macro",
                           {Severity::Warning, "the sibling GPU exists and takes the other branch; it is an error "
                                               "(arch-guard-else) where that branch is a stub"});
    x.text = collapse(trim(line));
    x.message = std::string(f->base) + " without " + f->sibling +
                ": the sibling of the family compiles the other branch";
    x.rewrite = std::string("defined(") + f->base + ") || defined(" + f->sibling + ")";
  }
}

void rule_guard_else(const std::string& nocomment, Sink& s) {
  std::vector<GuardLevel> stack;
  std::size_t pos = 0;
  while (pos < nocomment.size()) {
    const std::size_t line_at = pos;
    const std::string line = logical_line(nocomment, pos);
    const std::string t = trim(line);
    const auto [directive, rest] = directive_of(t);
    auto append = [&](const std::string& text) {
      for (GuardLevel& l : stack)
        if (l.in_else) l.body += text + "\n";
    };
    if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
      append(line);
      GuardLevel l;
      l.arch = cond_is_arch(rest);
      l.cond = rest;
      l.if_at = line_at;
      stack.push_back(l);
    } else if (directive == "elif" && !stack.empty()) {
      stack.back().arch |= cond_is_arch(rest);
      stack.back().cond += " || " + rest;
    } else if (directive == "else" && !stack.empty()) {
      stack.back().in_else = true;
      stack.back().else_at = line_at + line.find('#');
      stack.back().else_text = t;
    } else if (directive == "endif" && !stack.empty()) {
      const GuardLevel l = stack.back();
      stack.pop_back();
      append(line);
      if (l.arch && l.in_else) report_else(l, nocomment, s);
      if (l.arch && !l.in_else) report_whole_body(l, std::min(pos, nocomment.size()), nocomment, s);
    } else {
      append(line);
    }
  }
}

}  // namespace fp8kit::audit::lint
