// fp8kit lint, host-side tests in C++ and Python (capability-equality): an
// expression that names a capability compared with == / != to a capability
// (an integer 50-139, a (major, minor) tuple, an sm enum), the pair
// `major == 12 and minor == 0`, `major * 10 + minor == 120`, and helpers that
// test one capability (`is_device_capability(120)`). Major numbers alone
// (`major == 10`, `arch // 10 == 12`) are family tests and pass.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <regex>
#include <set>
#include <string_view>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

// An operand: a name chain with one call and one subscript, `x // 10`, a
// `major * 10 + minor` sum, a `(cc_major, cc_minor)` pair of names, or a
// macro's parameter in parentheses (`(cc)`).
#define FP8KIT_LINT_NAME R"([A-Za-z_]\w*(?:(?:\.|->|::)[A-Za-z_]\w*)*(?:\([^()\n]*\))?(?:\.[A-Za-z_]\w*\(\s*\))?)"
const char* const kOperand = "((?:" FP8KIT_LINT_NAME R"(\s*\*\s*10\s*\+\s*)?)" FP8KIT_LINT_NAME
                         R"((?:\[\s*\d+\s*\])?(?:\s*//\s*\d+)?|\(\s*[A-Za-z_]\w*\s*(?:,\s*[A-Za-z_]\w*\s*)?\)))";
const char* const kLit =
    R"((\(\s*\d+\s*,\s*\d+\s*\)|\d+\b|(?:[A-Za-z_]\w*(?:\.|::))*sm_?\d+[af]?\b|"[\w.]{2,12}"|'[\w.]{2,12}'))";
#undef FP8KIT_LINT_NAME

// The capability a literal names, or -1: 120, (12, 0), Arch.sm_120a, or in
// the arch macro's units (ten times: 1200, as lmdeploy's `arch == 1200` and
// ggml's `cc == GGML_CUDA_CC_BLACKWELL` write it).
int literal_cap(const std::string& lit) {
  static const std::regex tuple(R"(\(\s*(\d+)\s*,\s*(\d+)\s*\))");
  static const std::regex smenum(R"(sm_?(\d+)[af]?$)");
  static const std::regex text(R"(^(?:sm_?|compute_)?(\d{2,4})[af]?$|^(\d{1,2})\.(\d)$)");
  std::smatch m;
  if (lit.size() >= 2 && (lit[0] == '"' || lit[0] == '\'') && lit.back() == lit[0]) {  // "120", "12.0", "sm_120a"
    const std::string inner = lit.substr(1, lit.size() - 2);
    if (!std::regex_match(inner, m, text)) return -1;
    if (m[2].matched) return literal_cap("(" + m[2].str() + ", " + m[3].str() + ")");
    return literal_cap(m[1].str());
  }
  if (std::regex_match(lit, m, tuple)) {
    const int major = number(m[1].str()), minor = number(m[2].str());
    return minor <= 9 && plausible_capability(major * 10) ? major * 10 + minor : -1;
  }
  if (std::regex_search(lit, m, smenum)) {
    const int v = number(m[1].str());
    return plausible_capability(v) ? v : -1;
  }
  const int v = number(lit.substr(0, 6));
  if (lit.size() > 4) return -1;
  if (v >= kArchUnitsFrom) return v % 10 == 0 && plausible_capability(v / 10) ? v / 10 : -1;
  return plausible_capability(v) ? v : -1;
}

Archy operand_archy(const std::string& x) {
  if (x.find('*') != std::string::npos && x.find('+') != std::string::npos) {
    const std::string low = lower(x);
    return low.find("major") != std::string::npos ? Archy::Capability : Archy::No;
  }
  if (!x.empty() && x[0] == '(' && x.find(',') == std::string::npos)  // a macro's parameter: `(cc) == 120`
    return archy(trim(x.substr(1, x.size() - 2)));
  if (!x.empty() && x[0] == '(') {
    const std::string low = lower(x);
    return low.find("major") != std::string::npos || low.find("cap") != std::string::npos ? Archy::Capability
                                                                                             : Archy::No;
  }
  return archy(x);
}

// Whether the operand is a generated kernel's target (`op.arch`, `kspec.sm`,
// `target_cc`): generators enumerate the targets they build, which is no
// device test.
bool kernel_target(const std::string& x) {
  static const std::regex target(R"((?:^|[^\w])(?:op|operation|kspec|spec|kernel|cfg|config|profile|tactic)\s*\.|target|kernel_)",
                                 std::regex::icase);
  return std::regex_search(x, target);
}

namespace {

struct Compare {
  std::size_t at = 0;  // offset in the line
  std::string text, x, op, lit;
  int cap = -1;
};

// Whether some == / != of the line has a number (or an sm enum) beside it;
// std::regex is slow, and most equalities compare names, strings or None.
bool numeric_equality(const std::string& line) {
  constexpr std::size_t kEnumReach = 40;  // `Arch.sm_120a` within this many characters
  for (std::size_t p = line.find('='); p != std::string::npos; p = line.find('=', p + 1)) {
    if (p == 0 || (line[p - 1] != '=' && line[p - 1] != '!')) continue;
    std::size_t k = p + 1;
    while (k < line.size() && (line[k] == ' ' || line[k] == '(' || line[k] == '"' || line[k] == '\'')) ++k;
    if (k < line.size() && std::isdigit(static_cast<unsigned char>(line[k]))) return true;
    if (lower(line.substr(k, kEnumReach)).find("sm") != std::string::npos) return true;
    std::size_t b = p - 1;
    while (b > 0 && (line[b - 1] == ' ' || line[b - 1] == ')')) --b;
    if (b > 0 && std::isdigit(static_cast<unsigned char>(line[b - 1]))) return true;
  }
  return false;
}

// The line's capability comparisons (x OP lit and lit OP x).
std::vector<Compare> compares_of(const std::string& line, bool python) {
  const bool prefix_test = python && line.find("startswith") != std::string::npos;
  if (!numeric_equality(line) && !prefix_test) return {};
  static const std::regex fwd(std::string(kOperand) + R"(\s*(==|!=)\s*)" + kLit);
  static const std::regex rev(R"((\(\s*\d+\s*,\s*\d+\s*\)|\b\d+)\s*(==|!=)\s*)" + std::string(kOperand));
  std::vector<Compare> out;
  std::set<std::size_t> seen;
  auto keep = [&](const std::smatch& m, const std::string& x, const std::string& op, const std::string& lit) {
    Compare c{static_cast<std::size_t>(m.position(0)), m.str(0), trim(x), op, lit, literal_cap(lit)};
    if (c.cap < 0 || operand_archy(c.x) != Archy::Capability || (!python && lit[0] == '(')) return;
    if (!seen.insert(c.at).second) return;
    out.push_back(c);
  };
  for (auto it = std::sregex_iterator(line.begin(), line.end(), fwd); it != std::sregex_iterator(); ++it)
    keep(*it, (*it)[1].str(), (*it)[2].str(), (*it)[3].str());
  for (auto it = std::sregex_iterator(line.begin(), line.end(), rev); it != std::sregex_iterator(); ++it)
    keep(*it, (*it)[3].str(), (*it)[2].str(), (*it)[1].str());
  if (prefix_test) {  // `capability.startswith("10.0")`
    static const std::regex prefix(std::string(kOperand) + R"(\.startswith\(\s*("\d{1,2}\.\d"|'\d{1,2}\.\d')\s*\))");
    for (auto it = std::sregex_iterator(line.begin(), line.end(), prefix); it != std::sregex_iterator(); ++it)
      keep(*it, (*it)[1].str(), "==", (*it)[2].str());
  }
  return out;
}

const char* const kEqualityMessage =
    "architecture compared with an exact value: the next minor revision of the family (12.1 after 12.0, 10.3 "
    "after 10.0) fails the test";

// Whether `context` (the test's line and the two before) names the `a`
// target of `cap` (`case CudaArch::Sm100a:`): an `a` cubin runs on that exact
// GPU only, so the exact test is the right one.
bool beside_a_target(const std::string& context, const std::string& lit, int cap) {
  // A target token (`sm_100a`, `CudaArch::Sm100a`), not a longer name that holds
  // one (`CUTLASS_ARCH_MMA_SM100A_SUPPORTED` is a feature macro of the build).
  const std::regex a_target("(?:^|[^A-Za-z0-9_])sm_?" + std::to_string(cap) + "a(?![0-9A-Za-z_])", std::regex::icase);
  const auto count = [&](const std::string& s) {
    return std::distance(std::sregex_iterator(s.begin(), s.end(), a_target), std::sregex_iterator());
  };
  return count(context) > count(lit);  // the compared enum itself is no context
}

// Where `raw` (the text around the test, comments and strings included)
// names GPU `gpu` (`(10, 3)`, `103`, `SM103`, `10.3`, `minor == 3`): the
// author has handled it beside the test. npos if nowhere.
std::size_t names_beside(const std::string& raw, int gpu) {
  const std::string M = std::to_string(gpu / 10), n = std::to_string(gpu % 10), mm = std::to_string(gpu);
  const std::regex named("\\(\\s*" + M + "\\s*,\\s*" + n + "\\s*\\)|(?:\\b|sm_?)" + mm + "(?![0-9])|\\b" + M +
                             "\\." + n + "(?![0-9])|minor\\s*==\\s*" + n + "\\b",
                         std::regex::icase);
  std::smatch match;
  if (raw.size() < 4 * kMaxRegexLine && std::regex_search(raw, match, named)) return static_cast<std::size_t>(match.position(0));
  return std::string::npos;
}

}  // namespace

std::vector<std::pair<std::string, int>> folded_to_family_base(const std::string& code) {
  // `if (sm > 120 && sm < 130) sm = 120;` (and >=): later `sm == 120` tests the family.
  static const std::regex fold(
      R"(\(\s*([A-Za-z_]\w*)\s*>=?\s*\d+\s*&&\s*\1\s*<\s*\d+\s*\)\s*\{?\s*\1\s*=\s*(\d+)\s*;)");
  std::vector<std::pair<std::string, int>> out;
  if (code.find("&&") == std::string::npos) return out;
  for (const LineSpan& l : lines_of(code)) {
    if (l.end - l.begin > kMaxRegexLine) continue;
    const std::size_t to = std::min(code.size(), l.end + kMaxRegexLine / 4);
    const std::string window = code.substr(l.begin, to - l.begin);
    if (window.find("&&") == std::string::npos || window.find('<') == std::string::npos) continue;
    std::smatch m;
    if (std::regex_search(window, m, fold) && static_cast<std::size_t>(m.position(0)) < l.end - l.begin)
      out.emplace_back(m[1].str(), number(m[2].str()));
  }
  return out;
}

std::string deliberate_in(std::string_view text) {
  static const std::regex meant(
      R"(\bexact(?:ly)?\s+(?:compute|capability|cc|sm|match|arch)\w*|\bintentional(?:ly)?\b|\b(?:only|not|never)\s+(?:been\s+)?(?:validated|tested|verified)\b|\bvalidated\b)",
      std::regex::icase);
  if (text.size() > 4 * kMaxRegexLine) text = text.substr(0, 4 * kMaxRegexLine);
  const std::string t(text);
  std::smatch m;
  if (!std::regex_search(t, m, meant)) return "";
  return "the text beside says \"" + collapse(m.str(0)) + "\", so the exact match is meant";
}

Verdict grade_host_test(const std::string& x, const std::string& lit, int cap, const std::vector<int>& named,
                        const HostContext& c, Effect e) {
  static const std::regex counts(R"(sm_count|num_sms|multiprocessor)", std::regex::icase);
  static const std::regex toolkit(R"(cuda_version|version_at_least|CUDA_VERSION|cuda_major)", std::regex::icase);
  if (beside_a_target(c.code, lit, cap))
    return {Severity::Note, Consequence::NotAGpu,
            "beside the `a` target sm_" + std::to_string(cap) +
                "a, whose cubin runs on this exact GPU only: the test matches a GPU to that image"};
  if (kernel_target(x))
    return {Severity::Note, Consequence::NotAGpu,
            "the target of a generated kernel, not the GPU: generators list the targets they build"};
  if (std::regex_search(c.line, counts))
    return {Severity::Note, Consequence::NotAGpu, "tied to an SM count on the same line: it picks one part"};
  for (const auto& [var, base] : c.folded)
    if (var == x && base == cap)
      return grade(named, {Consequence::Passes, x + " is folded to " + std::to_string(base) + " for its whole family", ""});
  std::string lacks;
  if (breaks(e.what) && family_lacks(c.code, first_missed(named), &lacks))
    return grade(named, {Consequence::NotAGpu, lacks, ""});
  if (e.deliberate.empty() && breaks(e.what)) e.deliberate = deliberate_in(c.raw);
  const int gpu = first_missed(named);
  const std::size_t beside = e.deliberate.empty() && breaks(e.what) ? names_beside(c.raw, gpu) : std::string::npos;
  if (beside != std::string::npos) {
    const int line = c.first_line + static_cast<int>(std::count(c.raw.begin(), c.raw.begin() + static_cast<long>(beside), '\n'));
    e.deliberate = cap_name(gpu) + " is named beside the test (line " + std::to_string(line) + "), so the choice looks meant";
  }
  if (e.deliberate.empty() && breaks(e.what) && std::regex_search(c.next, toolkit))
    e.deliberate = "a toolkit requirement for it stands on the test's line or the next";
  return grade(named, e);
}

namespace {

// One (possibly joined) line of a source and where it sits.
struct LineScan {
  const std::string& line;  // newlines of a joined statement turned to spaces: offsets are those of the code
  const HostContext& context;
  std::size_t line_at;
  const HostSource& src;
  Sink& s;

  // What the first GPU `named` misses does when the test [at, at + n) of the line is `value` for it.
  Effect effect(std::size_t at, std::size_t n, bool value, const std::vector<int>& named) const {
    return host_effect(src, line_at + at, line_at + at + n, value, first_missed(named));
  }
};

void plain_equalities(const LineScan& l) {
  const bool python = l.src.python;
  const std::vector<Compare> cs = compares_of(l.line, python);
  for (const Compare& c : cs) {
    std::vector<int> named;  // the line's equalities on the operand and family: `cap == 100 or cap == 103`
    for (const Compare& o : cs)
      if (o.x == c.x && o.op == c.op && o.cap / 10 == c.cap / 10) named.push_back(o.cap);
    const Effect e = l.effect(c.at, c.text.size(), c.op == "!=", named);
    LintFinding& f = l.s.add(l.line_at + c.at, "capability-equality", grade_host_test(c.x, c.lit, c.cap, named, l.context, e));
    f.text = c.text;
    f.message = kEqualityMessage;
    f.rewrite = equality_rewrite(c.x, c.lit, c.op == "!=", python);
  }
}

// `prop.major == 12 && prop.minor == 0`, `major != 12 or minor != 0`,
// `cap[0] == 12 and cap[1] == 0`;
// `major == 10 && (minor == 0 || minor == 3)` names both members and is graded so.
void major_minor_pairs(const LineScan& l) {
  static const std::regex pair(
      R"(([\w.>-]*major\w*|[\w.>-]+(?:\(\s*\))?\[0\])\s*(==|!=)\s*(\d+)\s*(and|or|&&|\|\|)\s*(\(?)\s*)"
      R"(([\w.>-]*minor\w*|[\w.>-]+(?:\(\s*\))?\[1\])\s*(==|!=)\s*(\d+))");
  static const std::regex more(R"(^\s*(?:or|\|\|)\s*(?:[\w.>-]*minor\w*|[\w.>-]+(?:\(\s*\))?\[1\])\s*==\s*(\d+))");
  const std::string& line = l.line;
  const bool python = l.src.python;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), pair); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const int major = number(m[3].str()), minor = number(m[8].str());
    const bool eq = m[2].str() == "==" && m[7].str() == "==" && (m[4] == "and" || m[4] == "&&");
    const bool ne = m[2].str() == "!=" && m[7].str() == "!=" && (m[4] == "or" || m[4] == "||");
    if ((!eq && !ne) || minor > 9 || !plausible_capability(major * 10)) continue;
    const int cap = major * 10 + minor;
    std::vector<int> named = {cap};
    const std::string after = line.substr(static_cast<std::size_t>(m.position(0) + m.length(0)));
    std::string rest = after;
    std::smatch o;
    while (eq && m[5].length() > 0 && std::regex_search(rest, o, more)) {
      named.push_back(major * 10 + std::min(number(o[1].str()), 9));
      rest = o.suffix().str();
    }
    const std::size_t at = static_cast<std::size_t>(m.position(0));
    if (named.size() > 1) {
      const std::string tail = trim(rest);
      const std::string text =
          m.str(0) + after.substr(0, after.size() - rest.size()) + (!tail.empty() && tail[0] == ')' ? ")" : "");
      LintFinding& f = l.s.add(l.line_at + at, "capability-equality",
                               grade_host_test(m[1].str(), "", cap, named, l.context, l.effect(at, text.size(), false, named)));
      f.text = text;
      f.message = "architecture tested for a list of minors: a future minor of the family fails the test";
      f.rewrite = major_minor_rewrite(m[1].str(), m[6].str(), *std::min_element(named.begin(), named.end()),
                                      python, false);
      continue;
    }
    const Effect e = l.effect(at, static_cast<std::size_t>(m.length(0)), ne, named);
    LintFinding& f = l.s.add(l.line_at + at, "capability-equality", grade_host_test(m[1].str(), "", cap, {cap}, l.context, e));
    f.text = m.str(0);
    f.message = kEqualityMessage;
    f.rewrite = major_minor_rewrite(m[1].str(), m[6].str(), cap, python, ne);
  }
}

// `current_platform.is_device_capability(120)`, `is_sm_version(10, 0)`,
// `is_device_capability(capability=100)`: a helper that tests one capability.
void helper_calls(const LineScan& l) {
  static const std::regex call(
      R"(((?:[A-Za-z_]\w*\.)*)(is_\w*(?:capability|arch|sm)\w*)\(\s*(?:[A-Za-z_]\w*\s*=\s*)?(\d+|\(\s*\d+\s*,\s*\d+\s*\)|\d+\s*,\s*\d+)\s*,?\s*\))");
  const std::string& line = l.line;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), call); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const std::string name = m[2].str();
    if (name.find("family") != std::string::npos || name.find("least") != std::string::npos ||
        name.find("later") != std::string::npos || name.find("newer") != std::string::npos)
      continue;
    const std::string arg = m[3].str();  // 120, (12, 0), or the pair as two arguments: 12, 0
    const int cap = literal_cap(arg.find(',') != std::string::npos && arg[0] != '(' ? "(" + arg + ")" : arg);
    if (cap < 0) continue;
    const std::size_t at = static_cast<std::size_t>(m.position(0));
    const Effect e = l.effect(at, static_cast<std::size_t>(m.length(0)), false, {cap});
    LintFinding& f = l.s.add(l.line_at + at, "capability-equality", grade_host_test(name, "", cap, {cap}, l.context, e));
    f.text = m.str(0);
    f.message = "helper tests one exact capability: the next minor revision of the family fails it";
    const std::string cap_text = std::to_string(cap), end = std::to_string((cap / 10 + 1) * 10);
    f.rewrite = name == "is_device_capability"
                    ? "(" + m[1].str() + "has_device_capability(" + cap_text + ") and not " + m[1].str() +
                          "has_device_capability(" + end + "))"
                    : "no safe rewrite of " + name + ": test the capability against [" + cap_text + ", " + end + ")";
  }
}

}  // namespace

namespace {

// Whether a statement goes on past the end of this line: an open ( or [, or a
// trailing `\`, comparison or boolean operator.
bool continues(const std::string& line, int& depth) {
  for (char c : line) {
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
  }
  std::size_t n = line.size();
  while (n > 0 && std::isspace(static_cast<unsigned char>(line[n - 1]))) --n;
  const std::string_view end(line.data(), n);
  const auto ends_with = [&](std::string_view w, bool word) {
    if (end.size() < w.size() || end.substr(end.size() - w.size()) != w) return false;
    const std::size_t before = end.size() - w.size();
    return !word || before == 0 || !(std::isalnum(static_cast<unsigned char>(end[before - 1])) || end[before - 1] == '_');
  };
  return depth > 0 || ends_with("\\", false) || ends_with("==", false) || ends_with("!=", false) ||
         ends_with("&&", false) || ends_with("||", false) || ends_with("and", true) || ends_with("or", true);
}

// The last line of the statement that starts on line i, when it closes within
// kJoinLines lines and kMaxRegexLine characters; i itself otherwise.
std::size_t statement_end(const std::string& code, const std::vector<LineSpan>& spans, std::size_t i) {
  constexpr std::size_t kJoinLines = 6;
  int depth = 0;
  for (std::size_t j = i; j < spans.size() && j < i + kJoinLines; ++j) {
    if (spans[j].end - spans[i].begin > kMaxRegexLine) return i;
    if (!continues(code.substr(spans[j].begin, spans[j].end - spans[j].begin), depth)) return j;
  }
  return i;
}

// "f(   x   )" -> "f( x )": a joined statement's indentation.
std::string collapse_spaces(const std::string& t) {
  std::string out;
  for (char c : t)
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  return out;
}

}  // namespace

void rule_host_equality(const std::string& code, std::string_view raw, bool python, Sink& s) {
  constexpr std::size_t kContextLines = 3;
  const std::vector<LineSpan> spans = lines_of(code);
  const auto folded = python ? std::vector<std::pair<std::string, int>>{} : folded_to_family_base(code);
  const HostSource src(code, raw, s.lines, python);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const LineSpan& l = spans[i];
    if (l.end - l.begin > kMaxRegexLine) continue;
    // A call or test split over lines (`is_device_capability(\n 120)`) is read
    // as one line: newlines become spaces, so offsets stay those of `code`.
    const std::size_t last = statement_end(code, spans, i);
    std::string line = code.substr(l.begin, spans[last].end - l.begin);
    for (std::size_t k = 0; k < line.size(); ++k) {
      if (line[k] != '\n') continue;
      line[k] = ' ';
      std::size_t b = k;
      while (b > 0 && line[b - 1] == ' ') --b;
      if (b > 0 && line[b - 1] == '\\') line[b - 1] = ' ';  // a Python line continuation
    }
    const bool equality = line.find("==") != std::string::npos || line.find("!=") != std::string::npos ||
                          (python && line.find("startswith") != std::string::npos);
    const bool helper = line.find("is_") != std::string::npos;
    const std::size_t first = i;
    i = last;  // the joined lines are read with this one
    if (!equality && !helper) continue;
    const std::size_t from_line = first >= kContextLines ? first - kContextLines : 0;
    const std::size_t from = spans[from_line].begin;
    const std::size_t to = spans[std::min(last + kContextLines, spans.size() - 1)].end;
    const bool small = to - from <= kMaxRegexLine;
    const std::size_t next_end = spans[std::min(last + 1, spans.size() - 1)].end;
    const std::string next = next_end - l.begin <= kMaxRegexLine ? code.substr(l.begin, next_end - l.begin) : line;
    const HostContext context{line, next, small ? code.substr(from, to - from) : line,
                              small ? std::string(raw.substr(from, to - from)) : line, folded,
                              small ? static_cast<int>(from_line) + 1 : static_cast<int>(first) + 1};
    const std::size_t before = s.out.size();
    const LineScan scan{line, context, l.begin, src, s};
    if (equality) {
      plain_equalities(scan);
      major_minor_pairs(scan);
    }
    if (helper) helper_calls(scan);
    if (last == first) continue;
    for (std::size_t k = before; k < s.out.size(); ++k) {  // the text as one line
      s.out[k].text = collapse_spaces(s.out[k].text);
      s.out[k].rewrite = collapse_spaces(s.out[k].rewrite);
    }
  }
}

}  // namespace fp8kit::audit::lint
