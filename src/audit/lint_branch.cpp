// fp8kit lint: what the GPU that fails a host test does that the GPU it names
// does not. Read from the code around the test: the branch of an `if` it
// takes (the body, the `else` of the chain, or the code after an `if` whose
// body leaves), a check macro or `assert` that the test feeds, a predicate
// that returns it, or a flag set from it and tested later. The branch is
// judged by its own statements: a raise, a throw, a failing check or an error
// status refuses the GPU; a selector that returns nothing refuses it unless it
// is an optional path; anything else is another configuration.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

namespace {

constexpr std::size_t kReach = 6000;       // how far a statement, branch or flag is followed
constexpr std::size_t kEvidenceText = 48;  // characters of a statement quoted as evidence
constexpr int kBranchStatements = 8;       // top-level statements of a branch that are read
constexpr int kFollowLines = 60;           // lines after a flag in which its tests are looked for
constexpr std::size_t npos = std::string::npos;
constexpr const char* kNothingRead = "no refusal, trap or stub was read around the test";

enum class Act { Work, Refuses, Declines, Leaves };

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

bool any_word(const std::string& name, std::initializer_list<const char*> words) {
  for (const std::string& w : words_of(name))
    for (const char* x : words)
      if (w == x) return true;
  return false;
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

struct Statement {
  std::size_t at = 0;
  std::string text;
};

// What a branch's own statements do (nested ones are conditional and not read).
struct BranchAct {
  Act act = Act::Work;
  Statement where;
};

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
struct Span {
  std::size_t begin = 0, end = 0, after = 0;
};
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

}  // namespace

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

namespace {

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

}  // namespace

// ---- The reader ------------------------------------------------------------------

namespace {

class Reader {
 public:
  Reader(const HostSource& src, int gpu) : s_(src), code_(src.code), gpu_(gpu) {}

  Effect effect(std::size_t at, std::size_t end, bool value, int follow) {
    follow_ = follow;
    return s_.python ? python(at, end, value) : cpp(at, end, value);
  }

 private:
  int line(std::size_t at) const { return s_.lines.at(at).first; }
  std::string at_line(std::size_t at) const { return " at line " + std::to_string(line(at)); }

  // Whether `cond` tests the GPU's own capability (`== 103`, `(10, 3)`,
  // `is_sm103`), or with `range` a range that may hold it.
  bool serves_gpu(const std::string& cond, bool range) const {
    const std::string M = std::to_string(gpu_ / 10), n = std::to_string(gpu_ % 10), mm = std::to_string(gpu_);
    const std::regex own("\\(\\s*" + M + "\\s*,\\s*" + n + "\\s*\\)|(?:\\b|sm_?)" + mm + "0?(?![0-9])|minor\\s*==\\s*" + n +
                         "\\b|\\b" + M + "\\." + n + "(?![0-9])");
    static const std::regex ranged(R"((?:>=?|<=?)\s*\(?\s*\d)");
    return cond.size() < kMaxRegexLine && (std::regex_search(cond, own) || (range && std::regex_search(cond, ranged)));
  }

  // Whether the condition [b, e) tests the GPU in another term than the test [at, end).
  bool condition_serves(std::size_t b, std::size_t e, std::size_t at, std::size_t end) const {
    if (e <= b || at < b || end > e) return false;
    return serves_gpu(code_.substr(b, at - b) + " " + code_.substr(end, e - end), false);
  }

  Effect from_branch(const BranchAct& b, const std::string& where, std::size_t fn_at) {
    switch (b.act) {
      case Act::Refuses:
        return {Consequence::Refused, quote(b.where.text) + at_line(b.where.at) + " (" + where + ")", ""};
      case Act::Declines: {
        const std::string fn = function_name(fn_at);
        const std::string said = (fn.empty() ? std::string("the function") : "`" + fn + "`") + " declines it (" +
                                 quote(b.where.text) + at_line(b.where.at) + ", " + where + ")";
        if (!fn.empty() && optional_path(fn)) return {Consequence::Other, said + ", an optional path", ""};
        return {Consequence::Refused, said, ""};
      }
      case Act::Leaves:
      case Act::Work: break;
    }
    return {Consequence::Other, "it runs " + where, ""};
  }

  // ---- C++ ----

  // A build script's test: the branch the named GPU takes adds a target of
  // the family (`-gencode=arch=compute_100a,code=sm_100a`, "100a") and the
  // GPU's own branch [sb, se) adds none, so the build makes no image for it.
  Effect with_targets(Effect e, std::size_t nb, std::size_t ne, std::size_t sb, std::size_t se) const {
    if (breaks(e.what) || e.what == Consequence::Passes || ne <= nb || ne > s_.raw.size()) return e;
    static const std::regex target(R"((?:\b(?:sm|compute)_|["'])(\d{2,3})(?:[af]|(?=-real)|(?=["'])))");
    const std::string named(s_.raw.substr(nb, ne - nb));
    std::smatch m;
    if (named.size() > 4 * kMaxRegexLine || !std::regex_search(named, m, target) ||
        number(m[1].str()) / 10 != gpu_ / 10 || number(m[1].str()) == gpu_)
      return e;
    if (se > sb && se <= s_.raw.size()) {
      const std::string own(s_.raw.substr(sb, se - sb));
      if (own.size() > 4 * kMaxRegexLine || std::regex_search(own, target)) return e;
    }
    return {Consequence::NoImage,
            e.evidence + ", which adds no build target, while the branch for " + cap_name(number(m[1].str())) +
                " adds `" + trim_quotes(m.str(0)) + "`" + at_line(nb + static_cast<std::size_t>(m.position(0))),
            ""};
  }

  // The `=` of an assignment in [b, at) at bracket depth 0 (not `==`, `<=`,
  // `+=`, ...) with a name before it, or npos.
  std::size_t assignment(std::size_t b, std::size_t at) const {
    int depth = 0;
    for (std::size_t i = b; i < at; ++i) {
      const char c = code_[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (c != '=' || depth != 0) continue;
      const char before = i > 0 ? code_[i - 1] : ' ', after = i + 1 < code_.size() ? code_[i + 1] : ' ';
      if (after == '=' || std::strchr("=!<>+-*/%&|^", before) != nullptr) {
        if (after == '=') ++i;
        continue;
      }
      return word_before(code_, i).empty() ? npos : i;
    }
    return npos;
  }

  // Whether the line from `b` is a preprocessor directive.
  bool next_is_hash(std::size_t b) const {
    while (b < code_.size() && (code_[b] == ' ' || code_[b] == '\t')) ++b;
    return b < code_.size() && code_[b] == '#';
  }

  Effect cpp(std::size_t at, std::size_t end, bool value) {
    const std::size_t lo = at > kReach ? at - kReach : 0;
    std::vector<std::size_t> opens;
    std::size_t begin = lo, i = at;
    int depth = 0;
    bool directive = false;
    while (i > lo) {
      const char c = code_[--i];
      if (c == ')' || c == ']') ++depth;
      else if (c == '(' || c == '[') {
        if (depth > 0) --depth;
        else if (c == '(') opens.push_back(i);
      } else if (depth == 0 && (c == ';' || c == '{' || c == '}')) {
        begin = i + 1;
        break;
      } else if (c == '\n' && next_is_hash(i + 1)) {
        begin = i + 1;
        directive = true;
        break;
      }
    }
    if (i == lo && next_is_hash(lo)) begin = lo, directive = true;
    if (directive) {
      const std::size_t hash = code_.find('#', begin);
      const std::size_t name = skip_ws(code_, hash + 1);
      if (word_at(code_, name) == "define") {
        const std::string macro = word_at(code_, skip_ws(code_, name + 6));
        return {Consequence::Other, "in the body of `#define " + macro + "`" + at_line(hash) + ": its uses decide", ""};
      }
      return {Consequence::Other, "in a preprocessor condition" + at_line(hash), ""};
    }
    auto negated_before = [&](std::size_t p) {
      const std::size_t k = skip_ws_back(code_, p);
      return k > 0 && code_[k - 1] == '!' && (k >= code_.size() || code_[k] != '=');
    };
    if (negated_before(at)) value = !value;
    for (std::size_t o : opens)
      if (negated_before(o)) value = !value;
    const std::size_t stmt_end = std::min(code_.size(), end + kReach);
    if (!opens.empty()) {
      const std::size_t open = opens.back();
      const std::size_t close = match_close(code_, open);
      const std::string head = word_before(code_, open);
      const bool condition = head == "if" || head == "while" || check_macro(head);
      if (condition && close != npos && condition_serves(open + 1, close, at, end))
        return {Consequence::Passes, "the same condition tests it" + at_line(open), ""};
      if (head == "if" || head == "while") return cpp_if(open, value);
      if (check_macro(head)) {
        if (value) return {Consequence::Passes, "`" + head + "`" + at_line(open) + " lets it through", ""};
        return {Consequence::Refused, "`" + head + "`" + at_line(open) + " fails for it", ""};
      }
    }
    // A value: returned, assigned, or chosen between by `?:`.
    int d = 0;
    for (std::size_t k = end; k < stmt_end; ++k) {
      const char c = code_[k];
      if (c == '(' || c == '[' || c == '{') ++d;
      if (c == ')' || c == ']' || c == '}') --d;
      if (d < 0 || c == ';') break;
      if (c == '?' && d <= 0) return {Consequence::Other, "a `?:` at line " + std::to_string(line(k)) + " picks a value", ""};
    }
    const std::string first = word_at(code_, skip_ws(code_, begin));
    if (first == "return") return predicate(function_name(at), value, at);
    const std::size_t eq = assignment(begin, at);
    if (eq != npos) return flag(word_before(code_, eq), value, eq, at);
    if (!opens.empty() && !word_before(code_, opens.back()).empty())
      return {Consequence::Other, "passed to `" + word_before(code_, opens.back()) + "`" + at_line(opens.back()), ""};
    return {Consequence::Other, kNothingRead, ""};
  }

  Effect cpp_if(std::size_t open, bool value) {
    const std::size_t close = match_close(code_, open);
    if (close == npos) return {Consequence::Other, kNothingRead, ""};
    const Span body = cpp_body(code_, close + 1);
    if (value)
      return from_branch(judge(cpp_statements(code_, body.begin, body.end), false), "the if body" + at_line(open), open);
    std::size_t k = skip_ws(code_, body.after);
    bool maybe = false;
    while (word_at(code_, k) == "else") {
      const std::size_t e = skip_ws(code_, k + 4);
      if (word_at(code_, e) != "if") {
        const Span b = cpp_body(code_, e);
        return with_targets(
            from_branch(judge(cpp_statements(code_, b.begin, b.end), false), "the else" + at_line(k), open),
            body.begin, body.end, b.begin, b.end);
      }
      const std::size_t o = code_.find('(', e);
      const std::size_t c = o == npos ? npos : match_close(code_, o);
      if (c == npos) return {Consequence::Other, kNothingRead, ""};
      if (serves_gpu(code_.substr(o, c - o), true))
        return {Consequence::Passes, "its own test follows, the else-if" + at_line(e), ""};
      maybe = true;
      const Span b = cpp_body(code_, c + 1);
      k = skip_ws(code_, b.after);
    }
    const BranchAct taken = judge(cpp_statements(code_, body.begin, body.end), false);
    if (taken.act == Act::Work)
      return with_targets({Consequence::Other, "it skips the if body" + at_line(open), ""}, body.begin, body.end, 0, 0);
    // The body leaves: the GPU runs the code after the if.
    return after_if(cpp_statements(code_, k, enclosing_end(k)), k, maybe, open);
  }

  // What the GPU does in the statements after an if whose body the named GPU
  // leaves by: its own test among them (`if (sm == 103)`), a refusal, or the rest.
  Effect after_if(const std::vector<Statement>& rest, std::size_t k, bool maybe, std::size_t fn_at) {
    for (const Statement& st : rest) {
      const Act a = s_.python ? act_of_python(st.text) : act_of_cpp(st.text);
      if (a == Act::Refuses || a == Act::Declines || a == Act::Leaves) break;
      if (word_at(code_, st.at) != "if") continue;
      const std::size_t cond_end = s_.python ? py_colon(code_, st.at) : match_close(code_, code_.find('(', st.at));
      if (cond_end != npos && cond_end > st.at && serves_gpu(code_.substr(st.at, cond_end - st.at), true))
        return {Consequence::Passes, "its own test follows" + at_line(st.at), ""};
    }
    const BranchAct a = judge(rest, s_.python);
    if (a.act == Act::Work || a.act == Act::Leaves)
      return {Consequence::Other, "it runs the code after the if" + at_line(k), ""};
    return from_branch(a, "the code after the if" + std::string(maybe ? " and its else-ifs" : ""), fn_at);
  }

  // The end of the block that holds offset `k` (its closing `}`).
  std::size_t enclosing_end(std::size_t k) const {
    int depth = 0;
    for (std::size_t i = k; i < code_.size() && i < k + kReach; ++i) {
      if (code_[i] == '{') ++depth;
      if (code_[i] == '}' && --depth < 0) return i;
    }
    return std::min(code_.size(), k + kReach);
  }

  // ---- Python ----

  Effect python(std::size_t at, std::size_t end, bool value) {
    const std::size_t begin = py_statement_begin(s_, at);
    const int indent = indent_of(code_, begin);
    const std::size_t first_at = begin + static_cast<std::size_t>(indent);
    const std::string first = word_at(code_, first_at);
    // `not` before the test, or before a bracket that holds it.
    auto not_before = [&](std::size_t p) {
      const std::size_t k = skip_ws_back(code_, p);
      return k >= 3 && code_.compare(k - 3, 3, "not") == 0 && (k == 3 || !is_ident(code_[k - 4]));
    };
    if (not_before(at)) value = !value;
    int depth = 0;
    for (std::size_t i = at; i > first_at;) {
      const char c = code_[--i];
      if (c == ')' || c == ']' || c == '}') ++depth;
      if (c == '(' || c == '[' || c == '{') {
        if (depth > 0) --depth;
        else if (c == '(' && not_before(i)) value = !value;
      }
    }
    const std::string head = code_.substr(first_at, at - first_at);
    const std::size_t stmt_end = py_next_statement(s_, begin);
    const std::string tail = code_.substr(end, stmt_end > end ? stmt_end - end : 0);
    static const std::regex inline_if(R"(\bif\b)");
    if ((first != "if" && first != "elif" && first != "while" && first != "assert") &&
        head.size() < kMaxRegexLine && std::regex_search(head, inline_if) && tail.find(" else ") != npos)
      return {Consequence::Other, "an `... if ... else ...`" + at_line(at) + " picks a value", ""};
    const bool condition = first == "if" || first == "elif" || first == "while" || first == "assert";
    const std::size_t cond_end = first == "assert" ? stmt_end : py_colon(code_, begin);
    if (condition && cond_end != npos && condition_serves(first_at + first.size(), cond_end, at, end))
      return {Consequence::Passes, "the same condition tests it" + at_line(first_at), ""};
    if (first == "if" || first == "elif" || first == "while") return python_if(begin, indent, value);
    if (first == "assert") {
      if (value) return {Consequence::Passes, "the assert" + at_line(at) + " lets it through", ""};
      return {Consequence::Refused, "`assert`" + at_line(at) + " fails for it", ""};
    }
    if (first == "return") return predicate(python_function(begin), value, at);
    static const std::regex assign(R"(^([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=])");
    std::smatch m;
    if (head.size() < kMaxRegexLine && std::regex_search(head, m, assign)) return flag(m[1].str(), value, first_at, at);
    return {Consequence::Other, kNothingRead, ""};
  }

  Effect python_if(std::size_t begin, int indent, bool value) {
    const std::size_t colon = py_colon(code_, begin);
    if (colon == npos) return {Consequence::Other, kNothingRead, ""};
    std::size_t after = 0;
    std::vector<Statement> body;
    const std::size_t le = line_end(code_, colon);
    if (!blank_line(code_, colon + 1, le)) {
      body.push_back({colon + 1, code_.substr(colon + 1, le - colon - 1)});
      after = le + 1;
    } else {
      body = py_block(s_, le + 1, indent, &after);
    }
    if (value) return from_branch(judge(body, true), "the if body" + at_line(begin), begin);
    bool maybe = false;
    std::size_t i = after;
    for (;;) {
      while (i < code_.size() && blank_line(code_, i, line_end(code_, i))) i = line_end(code_, i) + 1;
      if (i >= code_.size() || indent_of(code_, i) != indent) break;
      const std::size_t w = i + static_cast<std::size_t>(indent);
      const std::string kw = word_at(code_, w);
      if (kw != "elif" && kw != "else") break;
      const std::size_t c = py_colon(code_, w);
      if (c == npos) break;
      if (kw == "elif" && serves_gpu(code_.substr(w, c - w), true))
        return {Consequence::Passes, "its own test follows, the elif" + at_line(w), ""};
      std::size_t next = 0;
      std::vector<Statement> b;
      const std::size_t e = line_end(code_, c);
      if (!blank_line(code_, c + 1, e)) {
        b.push_back({c + 1, code_.substr(c + 1, e - c - 1)});
        next = e + 1;
      } else {
        b = py_block(s_, e + 1, indent, &next);
      }
      if (kw == "else")
        return with_targets(from_branch(judge(b, true), "the else" + at_line(w), begin), colon + 1, after, c + 1, next);
      maybe = true;
      i = next;
    }
    const BranchAct taken = judge(body, true);
    if (taken.act == Act::Work)
      return with_targets({Consequence::Other, "it skips the if body" + at_line(begin), ""}, colon + 1, after, 0, 0);
    std::size_t block_end = 0;
    return after_if(py_block(s_, i, indent - 1, &block_end), i, maybe, begin);
  }

  std::string python_function(std::size_t begin) const {
    const int indent = indent_of(code_, begin);
    static const std::regex def(R"(^\s*(?:async\s+)?def\s+([A-Za-z_]\w*))");
    const std::vector<int>& depth = s_.depths();
    std::size_t line = static_cast<std::size_t>(s_.lines.at(begin).first) - 1;
    for (int n = 0; n < 4 * kFollowLines && line > 0; ++n) {
      --line;
      const std::size_t b = s_.lines.starts[line];
      const std::size_t e = line_end(code_, b);
      if (blank_line(code_, b, e) || indent_of(code_, b) >= indent || (line < depth.size() && depth[line] != 0))
        continue;  // deeper, or a continuation line (a signature's closing `) -> T:`)
      std::smatch m;
      const std::string l = code_.substr(b, std::min(e - b, kMaxRegexLine));
      if (std::regex_search(l, m, def)) return m[1].str();
      if (indent_of(code_, b) == 0) break;
    }
    return "";
  }

  // ---- Shared ----

  // The function around a C++ offset: the head before the innermost `{` that
  // opens a function (not a control statement or an initializer).
  std::string function_name(std::size_t at) const {
    if (s_.python) return python_function(py_statement_begin(s_, at));
    static const std::regex fn(R"(([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const|noexcept|override|final|->[^{;]*|\s)*$)");
    int depth = 0;
    const std::size_t lo = at > kReach ? at - kReach : 0;
    for (std::size_t i = at; i > lo;) {
      const char c = code_[--i];
      if (c == '}') ++depth;
      if (c != '{') continue;
      if (depth > 0) {
        --depth;
        continue;
      }
      std::size_t h = i;
      while (h > lo && code_[h - 1] != ';' && code_[h - 1] != '{' && code_[h - 1] != '}') --h;
      const std::string head = code_.substr(h, i - h);
      std::smatch m;
      if (head.size() < kMaxRegexLine && std::regex_search(head, m, fn)) {
        const std::string name = m[1].str();
        if (name != "if" && name != "for" && name != "while" && name != "switch" && name != "catch") return name;
      }
    }
    return "";
  }

  Effect predicate(const std::string& fn, bool value, std::size_t at) {
    const std::string who = fn.empty() ? "the function" : "`" + fn + "`";
    if (!value && !fn.empty() && support_name(fn) && !optional_path(fn))
      return {Consequence::Refused, who + " returns false for it" + at_line(at), ""};
    return {Consequence::Other, who + " returns " + (value ? "true" : "false") + " for it" + at_line(at) +
                                    ": its callers pick the path",
            ""};
  }

  // A flag set from the test: the tests of it that follow, or its own name.
  Effect flag(const std::string& var, bool value, std::size_t set_at, std::size_t at) {
    Effect best{Consequence::Other, "`" + var + "` (set" + at_line(set_at) + ") is " + (value ? "true" : "false") +
                                        " for it",
                ""};
    const std::size_t from = s_.python ? py_next_statement(s_, py_statement_begin(s_, at)) : code_.find(';', at);
    if (follow_ > 0 && from != npos) {
      const std::size_t last = std::min(s_.lines.starts.size(), static_cast<std::size_t>(line(from) + kFollowLines));
      const std::size_t to = last < s_.lines.starts.size() ? s_.lines.starts[last] : code_.size();
      for (std::size_t p = code_.find(var, from); p != npos && p < to; p = code_.find(var, p + 1)) {
        const std::size_t e = p + var.size();
        if ((p > 0 && (is_ident(code_[p - 1]) || code_[p - 1] == '.')) || (e < code_.size() && is_ident(code_[e])))
          continue;
        const std::size_t n = skip_ws(code_, e);
        if (n < code_.size() && code_[n] == '=' && (n + 1 >= code_.size() || code_[n + 1] != '=')) break;  // set again
        Reader inner(s_, gpu_);
        const Effect use = inner.effect(p, e, value, follow_ - 1);
        if (breaks(use.what) || (use.what == Consequence::Passes && !breaks(best.what))) {
          best = {use.what, "via `" + var + "` (set" + at_line(set_at) + "), " + use.evidence, use.deliberate};
          if (breaks(use.what)) return best;
        }
      }
    }
    if (best.what == Consequence::Other && !value && support_name(var) && !optional_path(var))
      return {Consequence::Refused, "`" + var + "` is false for it" + at_line(set_at), ""};
    return best;
  }

  const HostSource& s_;
  const std::string& code_;
  int gpu_;
  int follow_ = 1;
};

}  // namespace

Effect host_effect(const HostSource& src, std::size_t at, std::size_t end, bool value, int gpu) {
  if (at >= src.code.size() || gpu <= 0) return {Consequence::Other, kNothingRead, ""};
  Reader r(src, gpu);
  return r.effect(at, std::min(end, src.code.size()), value, 1);
}

}  // namespace fp8kit::audit::lint
