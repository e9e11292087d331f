// fp8kit lint, CMake architecture lists (cmake-arch-list). A list is a
// variable (`set(V ...)` plus every later `list(APPEND V ...)` of the file) or
// one other command mentioning an arch (`-gencode arch=...`). Grades:
//   error  an `a` target of 12.0 / 10.0 without 12.1 / 10.3 or the `f` target:
//          the sibling cannot load the `a` cubin and has no image;
//   note   a plain 12.0 / 10.0 without the sibling (its cubin runs on the
//          sibling; the family target is still the better build).
// A list naming 12.0 and 12.1 as separate targets is recorded as
// cmake-arch-split; lint.cpp keeps it (as an error) only where an exact guard
// remains in the sources the file builds (cmake_sources), since then the 12.1
// cubin is the guard's #else. A cached variable's help string is no list.
#include <map>
#include <regex>
#include <set>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

namespace {

constexpr std::size_t kMaxListText = 160;

struct ArchList {
  std::size_t cmd_at = 0;
  std::string text;
  std::map<int, std::size_t> caps;  // capability -> first offset
  std::set<int> family_wide;        // `f` targets
  std::set<int> plain;              // neither `a` nor `f`
};

struct SiblingPair {
  int base, sibling;
};
constexpr SiblingPair kPairs[] = {{120, 121}, {100, 103}};

// Commands whose numbers are versions or conditions, never a target list.
bool not_a_list(const std::string& cmd) {
  static const std::set<std::string> skip = {"if",           "elseif",      "else",    "endif",
                                             "while",        "message",     "project", "string",
                                             "math",         "return",      "cmake_minimum_required",
                                             "find_package", "cmake_policy", "option",  "mark_as_advanced"};
  return skip.count(lower(cmd)) != 0;
}

void note_targets(const std::string& args, std::size_t args_at, ArchList& list) {
  static const std::regex version(R"(VERSION\w*\s+[\d.]+)");
  static const std::regex arch_token(R"((?:^|[^\w.])(?:sm_|compute_)?(\d{2,3})([af]?)(?![\w.]))");
  static const std::regex dotted(R"((?:^|[^\w.])(\d{1,2})\.(\d)([af]?)(?![\d]))");
  std::string text = args;  // version numbers blanked, offsets kept
  for (auto v = std::sregex_iterator(args.begin(), args.end(), version); v != std::sregex_iterator(); ++v)
    text.replace(static_cast<std::size_t>(v->position(0)), static_cast<std::size_t>(v->length(0)),
                 static_cast<std::size_t>(v->length(0)), ' ');
  auto note = [&](int cap, const std::string& suffix, std::size_t at) {
    if (!plausible_capability(cap)) return;
    list.caps.emplace(cap, at);
    if (suffix == "f") list.family_wide.insert(cap);
    if (suffix.empty()) list.plain.insert(cap);
  };
  for (auto t = std::sregex_iterator(text.begin(), text.end(), arch_token); t != std::sregex_iterator(); ++t)
    note(number((*t)[1].str()), (*t)[2].str(), args_at + static_cast<std::size_t>(t->position(1)));
  for (auto t = std::sregex_iterator(text.begin(), text.end(), dotted); t != std::sregex_iterator(); ++t)
    note(number((*t)[1].str()) * 10 + number((*t)[2].str()), (*t)[3].str(),
         args_at + static_cast<std::size_t>(t->position(1)));
}

// `list(REMOVE_ITEM V 100a-real)` (lmdeploy, for MSVC): the targets it names
// are taken out of a list, not built.
bool removes_from_a_list(const std::string& cmd, const std::string& args) {
  static const std::regex remove(R"(^\s*(?:REMOVE_ITEM|REMOVE_AT|REMOVE_DUPLICATES|FILTER|POP_BACK|POP_FRONT)\b)");
  return lower(cmd) == "list" && std::regex_search(args, remove);
}

// The variable a `set(V ...)` / `list(APPEND V ...)` fills, else "".
std::string list_variable(const std::string& cmd, const std::string& args) {
  static const std::regex set_var(R"(^\s*([A-Za-z_][\w]*))");
  static const std::regex append_var(R"(^\s*(?:APPEND|PREPEND|INSERT)\s+([A-Za-z_][\w]*))");
  std::smatch m;
  const std::string c = lower(cmd);
  if (c == "set" && std::regex_search(args, m, set_var)) return m[1].str();
  if (c == "list" && std::regex_search(args, m, append_var)) return m[1].str();
  return "";
}

void report(const ArchList& list, Sink& s) {
  for (const SiblingPair& p : kPairs) {
    if (!list.caps.count(p.base) || list.family_wide.count(p.base)) continue;
    const std::string b = cap_name(p.base), sib = cap_name(p.sibling);
    const std::string family = std::to_string(p.base) + "f";
    if (list.caps.count(p.sibling)) {
      if (!list.plain.count(p.base) || !list.plain.count(p.sibling)) continue;
      // The reason holds the sibling's name until lint.cpp settles the split.
      LintFinding& f = s.add(list.caps.at(p.sibling), "cmake-arch-split", {Severity::Note, Consequence::Other, sib});
      f.text = list.text;
      f.message = "architecture list builds " + b + " and " + sib + " as separate cubins";
      f.rewrite = "build the family target " + family + " (one cubin for the whole family)";
      continue;
    }
    const bool a_only = !list.plain.count(p.base);
    const Effect e = a_only ? Effect{Consequence::NoImage,
                                     "the list builds the sm_" + std::to_string(p.base) + "a cubin, which loads on " +
                                         b + " alone, and no " + sib + " or " + family + " target",
                                     ""}
                            : Effect{Consequence::Passes,
                                     "it loads this list's sm_" + std::to_string(p.base) +
                                         " cubin (same family); the family target says so",
                                     ""};
    LintFinding& f = s.add(list.caps.at(p.base), "cmake-arch-list", grade({p.base}, e));
    f.text = list.text;
    f.message = "architecture list names " + b + " without " + sib + (a_only ? " (an `a` target only)" : "");
    f.rewrite = "build the family target " + family + " (12.0 and 12.1 alike for 120f; 10.0 and 10.3 for 100f)";
  }
}

// The arguments that hold targets: a cached variable's help string
// (`set(V "90a" CACHE STRING "e.g. 100a for Blackwell")`) and type are prose.
std::string target_args(const std::string& cmd, const std::string& args) {
  static const std::regex cache(R"(\bCACHE\b)");
  std::smatch m;
  if (lower(cmd) == "set" && std::regex_search(args, m, cache))
    return args.substr(0, static_cast<std::size_t>(m.position(0)));
  if (lower(cmd) == "set_property" && args.find("HELPSTRING") != std::string::npos) return "";
  return args;
}

}  // namespace

void rule_cmake_lists(const std::string& code, Sink& s) {
  static const std::regex cmd(R"(([A-Za-z_]\w*)\s*\()");
  std::map<std::string, ArchList> lists;  // by variable, or "#offset" for another command
  std::vector<std::string> order;
  for (const LineSpan& l : lines_of(code)) {
    if (l.end - l.begin > kMaxRegexLine) continue;
    const std::string line = code.substr(l.begin, l.end - l.begin);
    if (line.find('(') == std::string::npos) continue;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), cmd); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1].str();
      const std::size_t cmd_at = l.begin + static_cast<std::size_t>(it->position(0));
      const std::size_t open = l.begin + static_cast<std::size_t>(it->position(0) + it->length(0) - 1);
      int depth = 0;
      std::size_t end = open;
      for (; end < code.size(); ++end) {
        if (code[end] == '(') ++depth;
        if (code[end] == ')' && --depth == 0) break;
      }
      if (end >= code.size() || not_a_list(name)) continue;
      const std::string args = target_args(name, code.substr(open + 1, end - open - 1));
      if (removes_from_a_list(name, args)) continue;
      const std::string low = lower(args);
      const std::string var = list_variable(name, args);
      const bool archy_list = low.find("arch") != std::string::npos || low.find("gencode") != std::string::npos ||
                              (!var.empty() && lists.count(var));
      if (!archy_list) continue;
      const std::string key = var.empty() ? "#" + std::to_string(cmd_at) : var;
      if (!lists.count(key)) order.push_back(key);
      ArchList& list = lists[key];
      if (list.text.empty()) {
        list.cmd_at = cmd_at;
        list.text = collapse(code.substr(cmd_at, std::min<std::size_t>(end + 1 - cmd_at, kMaxListText)));
      }
      note_targets(args, open + 1, list);
    }
  }
  for (const std::string& key : order) report(lists[key], s);
}

std::vector<std::string> cmake_sources(const std::string& code) {
  static const std::regex source(R"([^\s"'()]+\.(?:cu|cuh|cpp|cc|cxx|c|h|hpp|hh|inl)(?![\w.]))");
  std::vector<std::string> out;
  for (const LineSpan& l : lines_of(code)) {
    if (l.end - l.begin > kMaxRegexLine) continue;
    const std::string line = code.substr(l.begin, l.end - l.begin);
    if (line.find('.') == std::string::npos) continue;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), source); it != std::sregex_iterator(); ++it) {
      std::string t = it->str();
      while (t.rfind("${", 0) == 0 && t.find("}/") != std::string::npos) t = t.substr(t.find("}/") + 2);
      if (t.find("${") == std::string::npos) out.push_back(t);
    }
  }
  return out;
}

}  // namespace fp8kit::audit::lint
