// fp8kit lint: guard templates. vLLM's `enable_sm120_only<Kernel>` holds the
// seed's `#if __CUDA_ARCH__ == 1200 ... #else trap` and is used in other
// files; each use is a finding of its own (arch-guard-use), beside the guard.
#include <algorithm>
#include <regex>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

namespace {

constexpr std::size_t kMaxHead = 600;  // longer heads before a `{` are not declarations
constexpr std::size_t kMaxUseText = 160;

// `template <typename T> struct X : T` -> `template  struct X : T`.
std::string without_angles(const std::string& head) {
  std::string out;
  int depth = 0;
  for (char c : head) {
    if (c == '<') ++depth;
    if (depth == 0) out += c;
    if (c == '>' && depth > 0) --depth;
  }
  return out;
}

// The name a `{` opens when it is a struct, class or device function, else "".
std::string scope_name(const std::string& head) {
  if (head.size() > kMaxHead) return "";
  static const std::regex record(R"(\b(?:struct|class)\s+(?:__align__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*(?::[^{]*)?$)");
  static const std::regex function(R"(\b([A-Za-z_]\w*)\s*\([^{]*\)[^{()]*$)");
  const std::string h = without_angles(head);
  std::smatch m;
  if (std::regex_search(h, m, record)) return m[1].str();
  if (h.find("__global__") == std::string::npos && h.find("__device__") == std::string::npos &&
      h.find("CUTLASS_DEVICE") == std::string::npos)
    return "";
  if (!std::regex_search(h, m, function)) return "";
  const std::string name = m[1].str();
  static const char* const keywords[] = {"if", "for", "while", "switch", "catch", "operator", "return", "sizeof"};
  for (const char* k : keywords)
    if (name == k) return "";
  return h.find("operator") != std::string::npos ? "" : name;
}

// For each offset (ascending), the innermost named scope around it.
std::vector<std::pair<std::string, std::size_t>> enclosing_scopes(const std::string& code,
                                                                  const std::vector<std::size_t>& offsets) {
  struct Open {
    std::string name;
    std::size_t at;
  };
  std::vector<Open> stack;
  std::vector<std::pair<std::string, std::size_t>> out;
  std::size_t head_begin = 0, next = 0;
  for (std::size_t i = 0; i <= code.size() && next < offsets.size(); ++i) {
    while (next < offsets.size() && offsets[next] <= i) {
      std::pair<std::string, std::size_t> found{"", 0};
      for (auto it = stack.rbegin(); it != stack.rend(); ++it)
        if (!it->name.empty()) {
          found = {it->name, it->at};
          break;
        }
      out.push_back(found);
      ++next;
    }
    if (i == code.size()) break;
    const char c = code[i];
    if (c == '{') {
      stack.push_back({scope_name(trim(code.substr(head_begin, i - head_begin))), head_begin});
      head_begin = i + 1;
    } else if (c == '}' || c == ';') {
      if (c == '}' && !stack.empty()) stack.pop_back();
      head_begin = i + 1;
    } else if (c == '\n' && i + 1 < code.size() && code[i + 1] == '#') {
      head_begin = i + 1;  // a directive line is no part of the next head
    }
  }
  while (out.size() < offsets.size()) out.push_back({"", 0});
  return out;
}

}  // namespace

std::vector<GuardTemplate> guard_templates(const std::string& code, const std::vector<LintFinding>& found,
                                           const std::string& file, const Lines& lines) {
  std::vector<const LintFinding*> guards;
  std::vector<std::size_t> offsets;
  for (const LintFinding& f : found)
    if (f.severity == Severity::Error && f.rule == "arch-guard-else" &&
        f.line >= 1 && static_cast<std::size_t>(f.line) <= lines.starts.size()) {
      guards.push_back(&f);
      offsets.push_back(lines.starts[static_cast<std::size_t>(f.line) - 1] + static_cast<std::size_t>(f.column) - 1);
    }
  std::vector<std::size_t> order(offsets.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return offsets[a] < offsets[b]; });
  std::vector<std::size_t> sorted;
  for (std::size_t i : order) sorted.push_back(offsets[i]);
  const auto scopes = enclosing_scopes(code, sorted);
  std::vector<GuardTemplate> out;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::string& name = scopes[k].first;
    const std::size_t at = scopes[k].second;
    if (name.empty()) continue;
    if (std::any_of(out.begin(), out.end(), [&](const GuardTemplate& g) { return g.name == name; })) continue;
    const LintFinding& g = *guards[order[k]];
    const LintFinding* eq = nullptr;  // the exact test the #else belongs to: the last one before it
    for (const LintFinding& f : found)
      if (f.rule == "arch-macro-equality" && f.line <= g.line && (!eq || f.line >= eq->line)) eq = &f;
    out.push_back({name, file, lines.at(code.find(name, at)).first, eq ? eq->text : g.text,
                   eq ? eq->rewrite : g.rewrite, Verdict{g.severity, g.consequence, g.reason}});
  }
  return out;
}

void rule_guard_uses(const std::string& code, const std::vector<GuardTemplate>& guards, Sink& s) {
  for (const GuardTemplate& g : guards) {
    int last_line = 0;
    for (std::size_t p = code.find(g.name); p != std::string::npos; p = code.find(g.name, p + 1)) {
      const std::size_t e = p + g.name.size();
      if ((p > 0 && is_ident(code[p - 1])) || (e < code.size() && is_ident(code[e]))) continue;
      std::size_t k = e;
      while (k < code.size() && (code[k] == ' ' || code[k] == '\t')) ++k;
      if (k >= code.size() || (code[k] != '<' && code[k] != '(')) continue;
      const int line = s.lines.at(p).first;
      if ((s.file == g.file && line == g.line) || line == last_line) continue;
      const std::size_t bol = code.rfind('\n', p) == std::string::npos ? 0 : code.rfind('\n', p) + 1;
      const std::string before = trim(code.substr(bol, p - bol));
      if (before.size() >= 6 && (before.compare(before.size() - 6, 6, "struct") == 0 ||
                                 before.compare(before.size() - 5, 5, "class") == 0))
        continue;  // a declaration or specialisation, not a use
      last_line = line;
      LintFinding& f = s.add(p, "arch-guard-use",
                             {g.verdict.severity, g.verdict.consequence,
                              reason_elsewhere(g.verdict.reason,
                                               " through the guard inside " + g.name + " (" + g.file + ":" +
                                                   std::to_string(g.line) + ")",
                                               g.file)});
      const std::size_t eol = std::min(code.find('\n', p), code.size());
      f.text = collapse(trim(code.substr(bol, std::min(eol - bol, kMaxUseText))));
      f.message = "uses " + g.name + " (" + g.file + ":" + std::to_string(g.line) + "), whose guard `" + g.guard +
                  "` sends the family's other GPUs to its #else";
      f.rewrite = "fix the guard in " + g.name + " to " + g.rewrite + " (or use the family variant)";
    }
  }
}

}  // namespace fp8kit::audit::lint
