// fp8kit lint: the statements of a branch and what they do (lint_statements.hpp).
#include "audit/lint_statements.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace fp8kit::audit::lint {

namespace {
constexpr std::size_t kEvidenceText = 48;  // characters of a statement quoted as evidence
constexpr int kBranchStatements = 8;       // top-level statements of a branch that are read

bool any_word(const std::string& name, std::initializer_list<const char*> words) {
  for (const std::string& w : words_of(name))
    for (const char* x : words)
      if (w == x) return true;
  return false;
}
}  // namespace

std::size_t skip_ws(const std::string& s, std::size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

std::size_t skip_ws_back(const std::string& s, std::size_t i) {
  while (i > 0 && std::isspace(static_cast<unsigned char>(s[i - 1]))) --i;
  return i;
}

std::string word_at(const std::string& s, std::size_t i) {
  std::size_t e = i;
  while (e < s.size() && is_ident(s[e])) ++e;
  return s.substr(i, e - i);
}

// The identifier that ends at `end` (white space before `end` skipped).
std::string word_before(const std::string& s, std::size_t end) {
  end = skip_ws_back(s, end);
  std::size_t b = end;
  while (b > 0 && is_ident(s[b - 1])) --b;
  return s.substr(b, end - b);
}

// The bracket closing the one at `open`, or npos.
std::size_t match_close(const std::string& s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size() && i < open + kReach; ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth == 0) return i;
  }
  return npos;
}

std::string trim_quotes(std::string t) {
  t.erase(std::remove(t.begin(), t.end(), '"'), t.end());
  t.erase(std::remove(t.begin(), t.end(), '\''), t.end());
  return t;
}

// "raise ValueError(...)": a statement as evidence.
std::string quote(const std::string& statement) {
  std::string t = collapse(trim(statement));
  const std::size_t paren = t.find('(');
  if (t.size() > kEvidenceText || (paren != npos && t.size() > paren + 2 && t.find(')') != paren + 1))
    t = t.substr(0, paren != npos && paren < kEvidenceText ? paren : kEvidenceText) + (paren != npos ? "(...)" : "...");
  return "`" + t + "`";
}

// A predicate or flag whose false means "not supported here".
bool support_name(const std::string& name) {
  return any_word(name, {"supported", "support", "supports", "available", "compatible", "eligible", "valid", "can",
                         "allowed", "ok", "check"});
}

// A function that may decline without refusing: an optional, faster or tuned path.
bool optional_path(const std::string& name) {
  return any_word(name, {"fast", "fused", "opt", "optimized", "prefer", "preferred", "try", "maybe", "heuristic",
                         "heuristics", "tune", "tuned", "tuning", "config", "configs", "default", "candidate",
                         "candidates", "use", "should", "want", "enable", "enabled", "workaround"});
}

bool check_macro(const std::string& name) {
  static const std::regex check(R"(^(?:[A-Z][A-Z0-9]*_)*(?:CHECK|ICHECK|ASSERT|ENFORCE|REQUIRE)(?:_[A-Z0-9_]+)?$|^assert$|^static_assert$)");
  return !name.empty() && std::regex_match(name, check);
}

Act act_of_cpp(const std::string& statement) {
  const std::string st = collapse(trim(statement));
  if (st.empty() || st.size() > kMaxRegexLine) return Act::Work;
  static const std::regex refuse(
      R"(^(?:throw\b|(?:\w+::)*(?:[A-Z][A-Z0-9_]*(?:ERROR|THROW|FATAL|PANIC)[A-Z0-9_]*|abort|exit|__trap|__builtin_trap)\s*\(|LOG\s*\(\s*FATAL|(?:[A-Z][A-Z0-9]*_)*(?:CHECK|ICHECK|ASSERT)\w*\s*\(\s*(?:false|0)\b|assert\s*\(\s*(?:false|0)\b))");
  static const std::regex status(R"(^return\b.*(?:Error|NotSupported|Unsupported|NOT_SUPPORTED|kInvalid))");
  static const std::regex none(R"(^return\s*(?:false|nullptr|NULL|\{\s*\}|std::nullopt|"\s*"|\w+\s*\{\s*\})?\s*;?$)");
  static const std::regex unset(R"(=\s*[\w:.]*(?:No_?Backend|NotSupported|Unsupported|NOT_SUPPORTED)\b|\b\w*[sS]upported\w*\s*=\s*false\b)");
  static const std::regex leave(R"(^(?:return|break|continue|goto)\b)");
  if (std::regex_search(st, refuse) || std::regex_search(st, status) || std::regex_search(st, unset))
    return Act::Refuses;
  if (std::regex_match(st, none)) return Act::Declines;
  if (std::regex_search(st, leave)) return Act::Leaves;
  return Act::Work;
}

Act act_of_python(const std::string& statement) {
  const std::string st = collapse(trim(statement));
  if (st.empty() || st.size() > kMaxRegexLine) return Act::Work;
  static const std::regex refuse(
      R"(^(?:raise\b|assert\s+(?:False|0)\b|(?:sys\.)?exit\s*\(|os\._exit\s*\(|return\s+NotImplemented\b)|\b\w*supported\w*\s*=\s*False\b)");
  static const std::regex none(R"(^return\s*(?:None|False|\[\s*\]|\{\s*\}|\(\s*\)|""|'')?\s*$)");
  static const std::regex leave(R"(^(?:return|break|continue)\b)");
  if (std::regex_search(st, refuse)) return Act::Refuses;
  if (std::regex_match(st, none)) return Act::Declines;
  if (std::regex_search(st, leave)) return Act::Leaves;
  return Act::Work;
}

BranchAct judge(const std::vector<Statement>& statements, bool python) {
  BranchAct out;
  bool leaves = false;
  for (const Statement& s : statements) {
    const Act a = python ? act_of_python(s.text) : act_of_cpp(s.text);
    if (a == Act::Refuses) return {a, s};
    if (a == Act::Declines && out.act != Act::Declines) out = {a, s};
    leaves |= a == Act::Leaves || a == Act::Declines;
  }
  if (out.act == Act::Work && leaves) out.act = Act::Leaves;
  return out;
}

// ---- C++ ---------------------------------------------------------------------

// The top-level statements of the C++ code [b, e): split at `;` and blocks.
std::vector<Statement> cpp_statements(const std::string& code, std::size_t b, std::size_t e) {
  std::vector<Statement> out;
  std::size_t i = skip_ws(code, b);
  while (i < e && static_cast<int>(out.size()) < kBranchStatements) {
    std::size_t k = i;
    int depth = 0;
    for (; k < e; ++k) {
      const char c = code[k];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (--depth < 0) break;
        if (depth == 0 && c == '}') {
          const std::size_t n = skip_ws(code, k + 1);
          if (n < e && (code[n] == ';' || code[n] == ',' || code[n] == ')')) continue;  // an initializer: `return {};`
          ++k;
          break;  // a block ends a statement (`if (...) { ... }`)
        }
      }
      if (c == ';' && depth == 0) {
        ++k;
        break;
      }
    }
    if (k <= i) break;
    out.push_back({i, code.substr(i, std::min(k, e) - i)});
    i = skip_ws(code, k);
  }
  return out;
}

// The body after `from` (a block or one statement): [begin, end) of its
// text and the offset past it.
Span cpp_body(const std::string& code, std::size_t from) {
  const std::size_t k = skip_ws(code, from);
  if (k < code.size() && code[k] == '{') {
    const std::size_t close = match_close(code, k);
    if (close == npos) return {k, k, k};
    return {k + 1, close, close + 1};
  }
  const std::vector<Statement> one = cpp_statements(code, k, std::min(code.size(), k + kReach));
  if (one.empty()) return {k, k, k};
  return {k, k + one[0].text.size(), k + one[0].text.size()};
}

// ---- Python ------------------------------------------------------------------

int indent_of(const std::string& code, std::size_t line_begin) {
  int n = 0;
  for (std::size_t i = line_begin; i < code.size() && (code[i] == ' ' || code[i] == '\t'); ++i) ++n;
  return n;
}

bool blank_line(const std::string& code, std::size_t b, std::size_t e) {
  for (std::size_t i = b; i < e; ++i)
    if (!std::isspace(static_cast<unsigned char>(code[i]))) return false;
  return true;
}

// Bracket depth at each line start, and whether the line before ends in `\`.
const std::vector<int>& HostSource::depths() const {
  if (!depth_.empty() || code.empty()) return depth_;
  const std::vector<LineSpan> spans = lines_of(code);
  int depth = 0;
  depth_.reserve(spans.size());
  for (const LineSpan& l : spans) {
    const bool continued = l.begin >= 2 && code[l.begin - 2] == '\\';
    depth_.push_back(depth > 0 || continued ? 1 : 0);
    for (std::size_t i = l.begin; i < l.end; ++i) {
      if (code[i] == '(' || code[i] == '[' || code[i] == '{') ++depth;
      if ((code[i] == ')' || code[i] == ']' || code[i] == '}') && depth > 0) --depth;
    }
  }
  return depth_;
}

// The start of the Python logical line holding `at`.
std::size_t py_statement_begin(const HostSource& src, std::size_t at) {
  const std::vector<int>& depth = src.depths();
  std::size_t line = static_cast<std::size_t>(src.lines.at(at).first) - 1;
  for (int n = 0; n < kFollowLines && line > 0 && line < depth.size() && depth[line] != 0; ++n) --line;
  return src.lines.starts[std::min(line, src.lines.starts.size() - 1)];
}

std::size_t line_end(const std::string& code, std::size_t i) {
  const std::size_t e = code.find('\n', i);
  return e == npos ? code.size() : e;
}

// The next line start after the logical line that begins at `b`.
std::size_t py_next_statement(const HostSource& src, std::size_t b) {
  const std::vector<int>& depth = src.depths();
  std::size_t line = static_cast<std::size_t>(src.lines.at(b).first);  // the next line's index
  while (line < depth.size() && depth[line] != 0) ++line;
  return line < src.lines.starts.size() ? src.lines.starts[line] : src.code.size();
}

// The statements of the block whose lines are indented deeper than `indent`,
// from `from` on; `end` is set past the block.
std::vector<Statement> py_block(const HostSource& src, std::size_t from, int indent, std::size_t* end) {
  std::vector<Statement> out;
  const std::string& code = src.code;
  int block_indent = -1;
  std::size_t i = from;
  while (i < code.size() && i < from + kReach) {
    const std::size_t le = line_end(code, i);
    if (blank_line(code, i, le)) {
      i = le + 1;
      continue;
    }
    const int ind = indent_of(code, i);
    if (ind <= indent) break;
    if (block_indent < 0) block_indent = ind;
    const std::size_t next = py_next_statement(src, i);
    if (ind == block_indent && static_cast<int>(out.size()) < kBranchStatements)
      out.push_back({i + static_cast<std::size_t>(ind), code.substr(i, std::min(next, code.size()) - i)});
    i = next;
  }
  *end = std::min(i, code.size());
  return out;
}

// The `:` that ends the header of a compound statement from `from`, at depth 0.
std::size_t py_colon(const std::string& code, std::size_t from) {
  int depth = 0;
  for (std::size_t i = from; i < code.size() && i < from + kReach; ++i) {
    const char c = code[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (c == ':' && depth == 0) return i;
    if (c == '\n' && depth == 0 && (i == 0 || code[i - 1] != '\\')) return npos;
  }
  return npos;
}

}  // namespace fp8kit::audit::lint
