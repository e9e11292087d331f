// fp8kit lint, the C++/CUDA preprocessor: its #if chains, what a GPU
// compiles in each (a small evaluator of the conditions over the arch macros,
// feature macros and the file's named constants), the #else of an arch guard
// that traps or does nothing (arch-guard-else), and feature macros without
// their family sibling (arch-feature-macro).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

namespace {

constexpr int kMaxExpansion = 4;  // nested #define names followed in a condition

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

// Feature macros whose family has a sibling today: __CUDA_ARCH_FEAT_SM100_ALL
// is defined for sm_100a only, so a 10.3 GPU (sm_103a) takes the other branch.
struct FeatureSibling {
  const char* base;
  const char* sibling;
  int base_cap, sibling_cap;
};
constexpr FeatureSibling kFeatureSiblings[] = {
    {"__CUDA_ARCH_FEAT_SM100_ALL", "__CUDA_ARCH_FEAT_SM103_ALL", 100, 103},
    {"__CUDA_ARCH_FEAT_SM120_ALL", "__CUDA_ARCH_FEAT_SM121_ALL", 120, 121},
};

bool has_token(const std::string& s, const std::string& token) {
  for (std::size_t p = s.find(token); p != std::string::npos; p = s.find(token, p + 1)) {
    const std::size_t e = p + token.size();
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

bool cond_is_arch(const std::string& cond) {
  const std::string c = trim(cond);
  if (c == "0" || c.rfind("0 ", 0) == 0 || c.rfind("0&&", 0) == 0) return false;  // dead code
  if (cond.find("__CUDA_ARCH_FEAT_SM") != std::string::npos ||
      cond.find("__CUDA_ARCH_SPECIFIC__") != std::string::npos ||
      cond.find("__CUDA_ARCH_FAMILY_SPECIFIC__") != std::string::npos)
    return true;
  return !macro_compares(cond).empty();
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

// The nearest character before `at` / from `at` on that is not white space.
char prev_char(const std::string& s, std::size_t at) {
  while (at > 0 && std::isspace(static_cast<unsigned char>(s[at - 1]))) --at;
  return at > 0 ? s[at - 1] : '\0';
}
char next_char(const std::string& s, std::size_t at) {
  while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
  return at < s.size() ? s[at] : '\0';
}

// ---- Conditions, evaluated for one GPU ----------------------------------------
// Three-valued: a name the file does not define is unknown, and so is what
// depends on it (`unknown && false` is false, `unknown || true` is true).

struct Val {
  bool known = false;
  long n = 0;
};

class Eval {
 public:
  Eval(const std::string& cond, int gpu, const ArchDefines& d, const ArchExprs& x, int depth)
      : gpu_(gpu), defines_(d), exprs_(x), depth_(depth) {
    tokenize(cond);
  }
  Val run() {
    const Val v = or_();
    return ok_ && pos_ == toks_.size() ? v : Val{};
  }

 private:
  void tokenize(const std::string& s) {
    static const char* const ops[] = {"&&", "||", "==", "!=", ">=", "<=", ">", "<", "!", "(", ")"};
    for (std::size_t i = 0; i < s.size();) {
      const char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c)) || c == '\\') {
        ++i;
        continue;
      }
      if (is_ident(c)) {
        std::size_t e = i;
        while (e < s.size() && is_ident(s[e])) ++e;
        toks_.push_back(s.substr(i, e - i));
        i = e;
        continue;
      }
      bool matched = false;
      for (const char* op : ops)
        if (s.compare(i, std::strlen(op), op) == 0) {
          toks_.emplace_back(op);
          i += std::strlen(op);
          matched = true;
          break;
        }
      if (!matched) {
        ok_ = false;  // arithmetic, ?:, ...: not read
        return;
      }
    }
  }
  bool at(const char* t) const { return pos_ < toks_.size() && toks_[pos_] == t; }
  static Val known(long n) { return {true, n}; }

  Val or_() {
    Val v = and_();
    while (at("||")) {
      ++pos_;
      const Val w = and_();
      if ((v.known && v.n) || (w.known && w.n)) v = known(1);
      else if (v.known && w.known) v = known(0);
      else v = {};
    }
    return v;
  }
  Val and_() {
    Val v = eq();
    while (at("&&")) {
      ++pos_;
      const Val w = eq();
      if ((v.known && !v.n) || (w.known && !w.n)) v = known(0);
      else if (v.known && w.known) v = known(1);
      else v = {};
    }
    return v;
  }
  Val eq() {
    Val v = rel();
    while (at("==") || at("!=")) {
      const bool is_eq = at("==");
      ++pos_;
      const Val w = rel();
      v = v.known && w.known ? known((v.n == w.n) == is_eq) : Val{};
    }
    return v;
  }
  Val rel() {
    Val v = unary();
    while (at(">=") || at("<=") || at(">") || at("<")) {
      const std::string op = toks_[pos_++];
      const Val w = unary();
      if (!v.known || !w.known) {
        v = {};
        continue;
      }
      v = known(op == ">=" ? v.n >= w.n : op == "<=" ? v.n <= w.n : op == ">" ? v.n > w.n : v.n < w.n);
    }
    return v;
  }
  Val unary() {
    if (at("!")) {
      ++pos_;
      const Val v = unary();
      return v.known ? known(!v.n) : Val{};
    }
    return primary();
  }
  Val primary() {
    if (pos_ >= toks_.size()) {
      ok_ = false;
      return {};
    }
    const std::string t = toks_[pos_++];
    if (t == "(") {
      const Val v = or_();
      if (!at(")")) ok_ = false;
      ++pos_;
      return v;
    }
    if (t == "defined") {
      const bool paren = at("(");
      if (paren) ++pos_;
      if (pos_ >= toks_.size()) {
        ok_ = false;
        return {};
      }
      const std::string name = toks_[pos_++];
      if (paren) {
        if (!at(")")) ok_ = false;
        ++pos_;
      }
      return defined(name);
    }
    if (std::isdigit(static_cast<unsigned char>(t[0]))) {
      if (t.size() > 1 && (t[1] == 'x' || t[1] == 'X')) return {};
      return known(number(t));
    }
    return value(t);
  }
  Val defined(const std::string& name) const {
    static const std::regex feat(R"(^__CUDA_ARCH_FEAT_SM(\d+)_ALL$)");
    std::smatch m;
    if (name == "__CUDA_ARCH__") return known(1);
    if (std::regex_match(name, m, feat)) return known(number(m[1].str()) == gpu_);
    if (defines_.count(name) || exprs_.count(name)) return known(1);
    return {};
  }
  Val value(const std::string& name) const {
    if (name == "__CUDA_ARCH__" || name == "__CUDA_ARCH_SPECIFIC__" || name == "__CUDA_ARCH_FAMILY_SPECIFIC__")
      return known(gpu_ * 10L);
    const auto d = defines_.find(name);
    if (d != defines_.end()) return known(d->second);
    const auto x = exprs_.find(name);
    if (x != exprs_.end() && depth_ < kMaxExpansion) return Eval(x->second.body, gpu_, defines_, exprs_, depth_ + 1).run();
    return {};
  }

  int gpu_;
  const ArchDefines& defines_;
  const ArchExprs& exprs_;
  int depth_;
  std::vector<std::string> toks_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace

// ---- The chains ------------------------------------------------------------------

Preprocessor::Preprocessor(const std::string& kept, const ArchDefines& defines, const ArchExprs& exprs)
    : kept_(kept), defines_(defines), exprs_(exprs) {
  std::vector<std::size_t> open;  // indices into chains_
  std::size_t pos = 0;
  auto close_branch = [&](PpChain& c, std::size_t at) {
    PpBranch& b = c.branches.back();
    b.body_end = at;
    b.body = kept_.substr(b.body_begin, at > b.body_begin ? at - b.body_begin : 0);
  };
  auto uses_expr = [&](const std::string& cond) {
    for (const auto& x : exprs_)
      if (has_token(cond, x.first)) return true;
    return false;
  };
  while (pos < kept_.size()) {
    const std::size_t line_at = pos;
    const std::string line = logical_line(kept_, pos);
    const std::string t = trim(line);
    if (t.empty() || t[0] != '#') continue;
    const auto [directive, rest] = directive_of(t);
    const std::size_t hash = line_at + line.find('#');
    const std::size_t body = std::min(pos, kept_.size());
    std::string cond = rest;
    if (directive == "ifdef") cond = "defined(" + trim(rest) + ")";
    if (directive == "ifndef") cond = "!defined(" + trim(rest) + ")";
    if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
      PpChain c;
      c.arch = cond_is_arch(cond) || uses_expr(cond);
      c.branches.push_back({hash, directive, cond, collapse(t), "", body, body});
      open.push_back(chains_.size());
      chains_.push_back(std::move(c));
    } else if ((directive == "elif" || directive == "else") && !open.empty()) {
      PpChain& c = chains_[open.back()];
      close_branch(c, line_at);
      c.arch |= directive == "elif" && (cond_is_arch(cond) || uses_expr(cond));
      c.branches.push_back({hash, directive, directive == "else" ? "" : cond, collapse(t), "", body, body});
    } else if (directive == "endif" && !open.empty()) {
      PpChain& c = chains_[open.back()];
      open.pop_back();
      close_branch(c, line_at);
      c.endif_end = body;
      c.whole_body = prev_char(kept_, c.branches.front().at) == '{' && next_char(kept_, body) == '}';
    }
  }
  for (std::size_t i : open) close_branch(chains_[i], kept_.size());  // unterminated
}

const PpChain* Preprocessor::chain_at(std::size_t at) const {
  for (const PpChain& c : chains_)
    for (const PpBranch& b : c.branches)
      if (at >= b.at && at < b.body_begin) return &c;
  return nullptr;
}

std::vector<const PpChain*> Preprocessor::chains_using(const std::string& name) const {
  std::vector<const PpChain*> out;
  for (const PpChain& c : chains_)
    for (const PpBranch& b : c.branches)
      if (has_token(b.cond, name)) {
        out.push_back(&c);
        break;
      }
  return out;
}

Effect Preprocessor::effect(const PpChain& chain, int gpu, const Lines& lines) const {
  auto line = [&](std::size_t at) { return std::to_string(lines.at(at).first); };
  const PpBranch* taken = nullptr;
  for (const PpBranch& b : chain.branches) {
    const Val v = b.directive == "else" ? Val{true, 1} : Eval(b.cond, gpu, defines_, exprs_, 0).run();
    if (!v.known)
      return {Consequence::Other, "the #" + b.directive + " at line " + line(b.at) + " may take it (a condition not read)",
              ""};
    if (v.n) {
      taken = &b;
      break;
    }
  }
  const PpBranch& first = chain.branches.front();
  if (taken == nullptr) {
    if (chain.whole_body)
      return {Consequence::CompiledOut,
              "the guard at line " + line(first.at) + " holds the whole body and has no #else", ""};
    return {Consequence::Other, "it compiles without lines " + line(first.at) + "-" + line(chain.endif_end > 0 ? chain.endif_end - 1 : first.at), ""};
  }
  const std::string where = "it compiles the #" + taken->directive + " at line " + line(taken->at);
  const std::string kind = else_body_kind(taken->body);
  if (kind == "trap") return {Consequence::Traps, where + ", which traps", ""};
  if (kind == "print") return {Consequence::Empty, where + ", which only prints", ""};
  if (kind == "empty") return {Consequence::Empty, where + ", which does nothing", ""};
  for (const MacroCompare& c : macro_compares(taken->cond, &defines_))
    if (c.op == "==" && macro_cap(c.value) == gpu)
      return {Consequence::Passes, "its own branch, the #" + taken->directive + " at line " + line(taken->at), ""};
  return {Consequence::Other, where + " (real code)", ""};
}

// ---- Rules -----------------------------------------------------------------------

namespace {

std::string else_kind_message(const std::string& kind) {
  if (kind == "trap")
    return "the #else branch of an architecture guard traps: every target outside the guard gets a trap stub, "
           "which the driver loads on a GPU the guard missed";
  return std::string("the #else branch of an architecture guard ") + (kind == "print" ? "only prints" : "is empty") +
         ": every target outside the guard gets a kernel that silently does nothing";
}

// The exact capabilities a chain's conditions name (its #define names expanded once).
std::vector<int> chain_caps(const PpChain& chain, const ArchExprs& exprs, const ArchDefines& defines) {
  std::string conds;
  for (const PpBranch& b : chain.branches) {
    conds += b.cond + " ";
    for (const auto& x : exprs)
      if (has_token(b.cond, x.first)) conds += x.second.body + " ";
  }
  return equality_caps(macro_compares(conds, &defines));
}

// The grade of a chain's stub (an #else that traps or does nothing, or a whole
// body with no #else), from what the GPUs its exact tests miss compile.
Verdict stub_verdict(const PpChain& chain, const CppFile& f, const Lines& lines) {
  const std::vector<int> caps = chain_caps(chain, f.pp.exprs(), f.pp.defines());
  std::string conds;
  for (const PpBranch& b : chain.branches) conds += b.cond + " ";
  const FeatureSibling* lone = caps.empty() ? lone_feature_macro(conds, f.code) : nullptr;
  if (caps.empty() && lone == nullptr)
    return {Severity::Note, Consequence::Other,
            "a lower bound, range or feature guard stubs other families by design; fp8kit audit shows whether a "
            "shipped image is a stub"};
  const std::vector<int> named = lone ? std::vector<int>{lone->base_cap} : caps;
  const int gpu = lone ? lone->sibling_cap : first_missed(named);
  Effect e = f.pp.effect(chain, gpu, lines);
  if (!breaks(e.what))
    return {Severity::Note, e.what,
            "the stub goes to targets outside the family (" + a_gpu(gpu) + " " + consequence_phrase(e.what) + ": " +
                e.evidence + ")"};
  const std::string other = tested_elsewhere(macro_compares(f.code), gpu, chain.branches.front().at, chain.endif_end,
                                             lines, f.code);
  if (!other.empty()) e.deliberate = other + ", so the choice looks meant";
  return grade(named, e);
}

}  // namespace

void rule_guard_else(const CppFile& f, Sink& s) {
  for (const PpChain& chain : f.pp.chains()) {
    if (!chain.arch) continue;
    const PpBranch& last = chain.branches.back();
    if (last.directive == "else") {
      const std::string kind = else_body_kind(last.body);
      if (kind.empty()) continue;
      LintFinding& x = s.add(last.at, "arch-guard-else", stub_verdict(chain, f, s.lines));
      x.text = last.text;
      x.message = else_kind_message(kind);
      x.rewrite = "guard with a family range, build only targets inside it, and give the #else a portable path or a "
                  "static_assert";
    } else if (chain.whole_body) {
      const Verdict v = stub_verdict(chain, f, s.lines);
      if (v.severity == Severity::Note) continue;  // lower bounds and ranges around a body stub other families
      LintFinding& x = s.add(chain.branches.front().at, "arch-guard-else", v);
      x.text = chain.branches.front().text;
      x.message = "an exact architecture guard covers the whole body and has no #else: every other target gets a "
                  "kernel that silently does nothing";
      x.rewrite = "guard with a family range and build only targets inside it";
    }
  }
}

void rule_feature_macros(const CppFile& f, Sink& s) {
  for (const PpChain& chain : f.pp.chains())
    for (const PpBranch& b : chain.branches) {
      if (b.directive == "else" || !cond_is_arch(b.cond)) continue;
      const FeatureSibling* lone = lone_feature_macro(b.cond, f.code);
      if (lone == nullptr) continue;
      LintFinding& x = s.add(f.kept.find(lone->base, b.at), "arch-feature-macro",
                             grade({lone->base_cap}, f.pp.effect(chain, lone->sibling_cap, s.lines)));
      x.text = b.text;
      x.message = std::string(lone->base) + " without " + lone->sibling +
                  ": the sibling of the family compiles the other branch";
      x.rewrite = std::string("defined(") + lone->base + ") || defined(" + lone->sibling + ")";
    }
}

}  // namespace fp8kit::audit::lint
