// fp8kit lint, the arch macros compared with == / != (arch-macro-equality):
// where each comparison stands (a #if chain, the body of a #define that a
// chain tests, C++ code), the names files give arch values (`#define
// GGML_CUDA_CC_DGX_SPARK 1210`), and the grade from what the GPU the test
// misses then compiles (Preprocessor, lint_cpp.cpp) or runs (lint_branch.cpp).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

namespace {

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

}  // namespace

// Occurrences are found by hand rather than by regex so that long blank runs
// cannot exhaust the stack.
std::vector<MacroCompare> macro_compares(const std::string& code, const ArchDefines* named) {
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

int macro_cap(long value) {
  if (value < 0 || value % 10 != 0 || !plausible_capability(static_cast<int>(value / 10))) return -1;
  return static_cast<int>(value / 10);
}

std::vector<int> equality_caps(const std::vector<MacroCompare>& compares) {
  std::vector<int> caps;
  for (const MacroCompare& c : compares)
    if ((c.op == "==" || c.op == "!=") && macro_cap(c.value) >= 0) caps.push_back(macro_cap(c.value));
  return caps;
}

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

ArchExprs arch_exprs(const std::string& code) {
  static const std::regex define(R"(^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(.*\S)[ \t]*$)");
  ArchExprs out;
  if (code.find("define") == std::string::npos || code.find("__CUDA_ARCH") == std::string::npos) return out;
  std::size_t pos = 0;
  while (pos < code.size()) {
    const std::size_t at = pos;
    std::string line = logical_line(code, pos);
    if (line.find("__CUDA_ARCH") == std::string::npos || line.find("define") == std::string::npos ||
        line.size() > kMaxRegexLine)
      continue;
    for (char& c : line)
      if (c == '\\' || c == '\n' || c == '\r') c = ' ';
    std::smatch m;
    if (std::regex_match(line, m, define)) out.emplace(m[1].str(), ArchExpr{trim(m[2].str()), at, std::min(pos, code.size())});
  }
  return out;
}

std::string tested_elsewhere(const std::vector<MacroCompare>& all, int gpu, std::size_t skip_begin,
                             std::size_t skip_end, const Lines& lines, const std::string& code) {
  for (const MacroCompare& o : all)
    if (o.op == "==" && macro_cap(o.value) == gpu && (o.at < skip_begin || o.at >= skip_end))
      return "the file tests " + cap_name(gpu) + " itself at line " + std::to_string(lines.at(o.at).first) + " (`" +
             collapse(code.substr(o.at, o.end - o.at)) + "`)";
  return "";
}

namespace {

// The comparisons of `all` in [b, e) on `macro` in the family of `value`.
std::vector<int> caps_in(const std::vector<MacroCompare>& all, std::size_t b, std::size_t e, const MacroCompare& c) {
  std::vector<MacroCompare> same;
  for (const MacroCompare& o : all)
    if (o.at >= b && o.at < e && o.macro == c.macro && o.value / 100 == c.value / 100) same.push_back(o);
  std::vector<int> caps = equality_caps(same);
  if (caps.empty()) caps.push_back(macro_cap(c.value));
  return caps;
}

// The effect and the part of the file it was read from.
struct Placed {
  std::vector<int> caps;
  Effect effect;
  std::size_t begin = 0, end = 0;
};

Placed place(const MacroCompare& c, const std::vector<MacroCompare>& all, const CppFile& f, const Lines& lines) {
  Placed p;
  if (const PpChain* chain = f.pp.chain_at(c.at)) {
    for (const PpBranch& b : chain->branches)
      if (c.at >= b.at && c.at < b.body_begin) p.caps = caps_in(all, b.at, b.body_begin, c);
    p.effect = f.pp.effect(*chain, first_missed(p.caps), lines);
    p.begin = chain->branches.front().at;
    p.end = chain->endif_end;
    return p;
  }
  const std::size_t line_begin = lines.starts[static_cast<std::size_t>(lines.at(c.at).first) - 1];
  const std::size_t next = f.code.find('\n', c.at);
  const std::size_t line_end = next == std::string::npos ? f.code.size() : next;
  for (const auto& [name, expr] : f.pp.exprs()) {
    if (c.at < expr.at || c.at >= expr.end) continue;
    p.caps = caps_in(all, expr.at, expr.end, c);
    const int gpu = first_missed(p.caps);
    p.begin = expr.at;
    p.end = expr.end;
    p.effect = {Consequence::Other, "`" + name + "` (line " + std::to_string(lines.at(expr.at).first) +
                                        ") is tested by no #if of this file",
                ""};
    for (const PpChain* chain : f.pp.chains_using(name)) {
      Effect e = f.pp.effect(*chain, gpu, lines);
      e.evidence = "via `" + name + "`, " + e.evidence;
      if (breaks(e.what) || p.effect.evidence.find("is tested by no") != std::string::npos) p.effect = e;
      if (breaks(e.what)) break;
    }
    return p;
  }
  p.caps = caps_in(all, line_begin, line_end, c);
  const HostSource src(f.code, f.raw, lines, false);
  p.effect = host_effect(src, c.at, c.end, c.op == "!=", first_missed(p.caps));
  p.begin = line_begin;
  p.end = line_end;
  return p;
}

}  // namespace

void rule_macro_equality(const CppFile& f, Sink& s, const ArchDefines* named) {
  if (named && (named->empty() || f.code.find("__CUDA_ARCH") == std::string::npos)) return;
  const std::vector<MacroCompare> all = macro_compares(f.code, named);
  for (const MacroCompare& c : all) {
    if ((c.op != "==" && c.op != "!=") || macro_cap(c.value) < 0 || c.name.empty() != !named) continue;
    Placed p = place(c, all, f, s.lines);
    // A file that tests the sibling itself elsewhere (CUTLASS's config.h: == 1000
    // here, == 1030 there) serves it on purpose; say so, and never that it passes.
    const int gpu = first_missed(p.caps);
    if (p.effect.what != Consequence::Passes) {
      const std::string other = tested_elsewhere(all, gpu, p.begin, p.end, s.lines, f.code);
      if (!other.empty() && breaks(p.effect.what)) p.effect.deliberate = other + ", so the choice looks meant";
      if (!other.empty() && !breaks(p.effect.what)) p.effect.evidence += "; " + other;
    }
    const long lo = c.value / 100 * 100, hi = lo + 100;
    LintFinding& x = s.add(c.at, "arch-macro-equality", grade(p.caps, p.effect));
    x.text = collapse(f.code.substr(c.at, c.end - c.at));
    x.message = c.macro + " compared with " + c.op +
                (c.name.empty() ? "" : " " + c.name + " (" + std::to_string(c.value) + ")") +
                ": a GPU of another minor revision of the family (" + std::to_string(c.value / 100) +
                ".x) gets the other branch";
    x.rewrite = cxx_range(c.macro, static_cast<int>(lo), static_cast<int>(hi), c.op == "!=");
  }
}

}  // namespace fp8kit::audit::lint
