// fp8kit lint: what the GPU that fails a host test does that the GPU it names
// does not. Read from the code around the test: the branch of an `if` it
// takes (the body, the `else` of the chain, or the code after an `if` whose
// body leaves), a check macro or `assert` that the test feeds, a predicate
// that returns it, or a flag set from it and tested later. The branch is
// judged by its own statements (lint_statements.hpp): a raise, a throw, a
// failing check or an error status refuses the GPU; a selector that returns
// nothing refuses it unless it is an optional path; anything else is another
// configuration. In a build script, a branch that adds the named GPU's target
// while the GPU's own adds none leaves it without an image.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>

#include "audit/lint_statements.hpp"

namespace fp8kit::audit::lint {

namespace {

constexpr const char* kNothingRead = "no refusal, trap or stub was read around the test";

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
  // `is_sm103`, "10.3").
  bool serves_gpu(const std::string& cond) const {
    const std::string M = std::to_string(gpu_ / 10), n = std::to_string(gpu_ % 10), mm = std::to_string(gpu_);
    const std::regex own("\\(\\s*" + M + "\\s*,\\s*" + n + "\\s*\\)|(?:\\b|sm_?)" + mm + "0?(?![0-9])|minor\\s*==\\s*" + n +
                         "\\b|\\b" + M + "\\." + n + "(?![0-9])");
    return cond.size() < kMaxRegexLine && std::regex_search(cond, own);
  }
  // Whether `cond` is a range test (`>= 100`, `cap[0] >= 10`) that may hold the GPU.
  static bool range_test(const std::string& cond) {
    static const std::regex ranged(R"((?:>=?|<=?)\s*\(?\s*\d)");
    return cond.size() < kMaxRegexLine && std::regex_search(cond, ranged);
  }
  // The GPU's own test, or a range that may hold it, in the condition of a
  // branch that follows at `at`; `what` unset when neither.
  bool followed_by(const std::string& cond, std::size_t at, Effect* what) const {
    if (serves_gpu(cond)) {
      *what = {Consequence::Passes, "its own test follows" + at_line(at), ""};
      return true;
    }
    if (range_test(cond)) {
      *what = {Consequence::Other, "a range test that may hold it follows" + at_line(at), ""};
      return true;
    }
    return false;
  }

  // Whether the condition [b, e) tests the GPU in another term than the test [at, end).
  bool condition_serves(std::size_t b, std::size_t e, std::size_t at, std::size_t end) const {
    if (e <= b || at < b || end > e) return false;
    return serves_gpu(code_.substr(b, at - b) + " " + code_.substr(end, e - end));
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
        // A directive line ends the statement before it, or holds the test.
        std::size_t e = i + 1;
        logical_line(code_, e);
        directive = e > at;
        begin = directive ? i + 1 : std::min(e, at);
        break;
      }
    }
    if (i == lo && next_is_hash(lo)) {
      std::size_t e = lo;
      logical_line(code_, e);
      directive = e > at;
      if (!directive) begin = std::min(e, at);
    }
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
      Effect next;
      if (followed_by(code_.substr(o, c - o), e, &next)) return next;
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
      Effect next;
      if (cond_end != npos && cond_end > st.at && followed_by(code_.substr(st.at, cond_end - st.at), st.at, &next))
        return next;
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
      Effect follows;
      if (kw == "elif" && followed_by(code_.substr(w, c - w), w, &follows)) return follows;
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
