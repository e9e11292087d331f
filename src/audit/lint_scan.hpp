// fp8kit lint, stage 1: the text every rule reads. Comments (and, where a
// rule asks, string literals) are blanked to spaces so that offsets, lines
// and columns stay those of the file while prose never matches.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fp8kit::audit::lint {

constexpr std::size_t kMaxRegexLine = 2000;  // longer lines are data, and std::regex recurses

// A decimal number of the source, saturated: no literal can throw.
int number(std::string_view digits);

std::string blank_cpp(std::string_view in, bool blank_strings);
std::string blank_python(std::string_view in);
std::string blank_cmake(std::string_view in);
// Python: the string literals of `blanked` that hold a capability ("120",
// "12.0", "sm_120a") written back from `raw`, for the rules that read them.
std::string keep_capability_strings(std::string blanked, std::string_view raw);

// Offset -> 1-based (line, column).
struct Lines {
  std::vector<std::size_t> starts;
  explicit Lines(std::string_view s);
  std::pair<int, int> at(std::size_t off) const;
};

// One physical line [begin, end) of a text; `for (Line l : lines_of(code))`.
struct LineSpan {
  std::size_t begin = 0, end = 0;
};
std::vector<LineSpan> lines_of(const std::string& code);
// One logical line from `pos` (backslash continuations joined); `pos` moves past it.
std::string logical_line(const std::string& s, std::size_t& pos);

std::string trim(std::string s);
std::string collapse(std::string s);  // runs of white space -> one space
std::string lower(std::string s);
bool is_ident(char c);

// `getSMVersion` -> {"get", "sm", "version"}; `arch_major` -> {"arch", "major"}.
std::vector<std::string> words_of(const std::string& ident);

}  // namespace fp8kit::audit::lint
