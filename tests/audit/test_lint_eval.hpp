// A small evaluator of the tests fp8kit lint flags and rewrites, so that a
// property test can check each rewrite against the original on every
// capability. It knows the subset both languages share there: integers,
// (a, b) tuples, lists, == != < <= > >= (Python chains them), in / not in,
// + * //, and / or / not, && || !, and names that the caller resolves.
#pragma once

#include <cctype>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fp8kit::audit::test {

struct Value {
  std::vector<long> v;               // an int (1 element) or a tuple
  std::vector<Value> list;           // a list literal (v empty)
  bool is_list = false;
};

// Resolves a name (`cap`, `prop.major`, `torch.cuda.get_device_capability()`)
// or, with args, a call of a helper the evaluator does not know.
using Resolver = std::function<Value(const std::string& name, const std::vector<Value>* args)>;

class Eval {
 public:
  Eval(std::string text, Resolver r) : s_(std::move(text)), r_(std::move(r)) {}
  bool truth() {
    const Value v = disj();
    skip();
    if (p_ != s_.size()) throw std::runtime_error("trailing text at " + std::to_string(p_) + ": " + s_);
    return as_bool(v);
  }

 private:
  std::string s_;
  std::size_t p_ = 0;
  Resolver r_;

  static Value num(long x) { return Value{{x}, {}, false}; }
  static bool as_bool(const Value& v) { return !v.v.empty() && v.v[0] != 0; }
  static int cmp(const Value& a, const Value& b) {
    for (std::size_t i = 0; i < a.v.size() && i < b.v.size(); ++i)
      if (a.v[i] != b.v[i]) return a.v[i] < b.v[i] ? -1 : 1;
    return a.v.size() == b.v.size() ? 0 : (a.v.size() < b.v.size() ? -1 : 1);
  }
  void skip() {
    while (p_ < s_.size() && s_[p_] == ' ') ++p_;
  }
  bool word(const char* w) {
    skip();
    const std::string k(w);
    const bool alpha = std::isalpha(static_cast<unsigned char>(k[0])) != 0;
    if (s_.compare(p_, k.size(), k) != 0) return false;
    if (alpha && p_ + k.size() < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_ + k.size()])) ||
                                               s_[p_ + k.size()] == '_'))
      return false;
    if (!alpha && (k == "<" || k == ">" || k == "!") && p_ + 1 < s_.size() && s_[p_ + 1] == '=') return false;
    if (k == "/" && p_ + 1 < s_.size() && s_[p_ + 1] == '/') return false;
    p_ += k.size();
    return true;
  }
  Value disj() {
    Value a = conj();
    while (word("or") || word("||")) {
      const Value b = conj();
      a = num(as_bool(a) || as_bool(b));
    }
    return a;
  }
  Value conj() {
    Value a = neg();
    while (word("and") || word("&&")) {
      const Value b = neg();
      a = num(as_bool(a) && as_bool(b));
    }
    return a;
  }
  Value neg() {
    if (word("not") || word("!")) return num(!as_bool(neg()));
    return chain();
  }
  Value chain() {
    Value a = sum();
    bool result = true, any = false;
    for (;;) {
      std::string op;
      for (const char* o : {"==", "!=", "<=", ">=", "<", ">"})
        if (word(o)) {
          op = o;
          break;
        }
      bool in = false, not_in = false;
      if (op.empty()) {
        const std::size_t save = p_;
        if (word("not") && word("in"))
          not_in = true;
        else {
          p_ = save;
          in = word("in");
        }
      }
      if (op.empty() && !in && !not_in) break;
      const Value b = sum();
      bool r;
      if (in || not_in) {
        r = false;
        for (const Value& e : b.list) r |= cmp(a, e) == 0;
        r = in ? r : !r;
      } else {
        const int c = cmp(a, b);
        r = op == "==" ? c == 0 : op == "!=" ? c != 0 : op == "<" ? c < 0 : op == "<=" ? c <= 0 : op == ">" ? c > 0 : c >= 0;
      }
      result = result && r;
      any = true;
      a = b;
    }
    return any ? num(result) : a;
  }
  Value sum() {
    Value a = product();
    while (word("+")) a = num(a.v.at(0) + product().v.at(0));
    return a;
  }
  Value product() {
    Value a = primary();
    for (;;) {
      if (word("*"))
        a = num(a.v.at(0) * primary().v.at(0));
      else if (word("//"))
        a = num(a.v.at(0) / primary().v.at(0));
      else
        return a;
    }
  }
  std::vector<Value> items(char close) {
    std::vector<Value> out;
    skip();
    if (p_ < s_.size() && s_[p_] == close) {
      ++p_;
      return out;
    }
    for (;;) {
      out.push_back(disj());
      skip();
      if (p_ < s_.size() && s_[p_] == ',') {
        ++p_;
        skip();
        if (p_ < s_.size() && s_[p_] == close) {
          ++p_;
          return out;
        }
        continue;
      }
      if (p_ < s_.size() && s_[p_] == close) {
        ++p_;
        return out;
      }
      throw std::runtime_error("bad list in " + s_);
    }
  }
  Value primary() {
    skip();
    if (p_ >= s_.size()) throw std::runtime_error("unexpected end: " + s_);
    const char c = s_[p_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      long x = 0;
      while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) x = x * 10 + (s_[p_++] - '0');
      return num(x);
    }
    if (c == '(' || c == '[' || c == '{') {
      ++p_;
      const std::vector<Value> xs = items(c == '(' ? ')' : c == '[' ? ']' : '}');
      if (c == '(' && xs.size() == 1) return xs[0];
      if (c == '(') {
        bool ints = true;
        for (const Value& x : xs) ints &= x.v.size() == 1;
        if (ints) {
          Value t;
          for (const Value& x : xs) t.v.push_back(x.v[0]);
          return t;
        }
      }
      Value l;
      l.is_list = true;
      l.list = xs;
      return l;
    }
    std::string name;
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_' || s_[p_] == '.' ||
                              s_.compare(p_, 2, "->") == 0 || s_.compare(p_, 2, "::") == 0)) {
      const std::size_t n = (s_.compare(p_, 2, "->") == 0 || s_.compare(p_, 2, "::") == 0) ? 2 : 1;
      name += s_.substr(p_, n);
      p_ += n;
    }
    if (name.empty()) throw std::runtime_error("unexpected '" + std::string(1, c) + "' in " + s_);
    skip();
    Value v;
    if (p_ < s_.size() && s_[p_] == '(') {
      ++p_;
      const std::vector<Value> args = items(')');
      v = args.empty() ? r_(name + "()", nullptr) : r_(name, &args);
    } else {
      v = r_(name, nullptr);
    }
    skip();
    if (p_ < s_.size() && s_[p_] == '[') {
      ++p_;
      const Value i = disj();
      skip();
      ++p_;  // ']'
      v = num(v.v.at(static_cast<std::size_t>(i.v.at(0))));
    }
    return v;
  }
};

}  // namespace fp8kit::audit::test
