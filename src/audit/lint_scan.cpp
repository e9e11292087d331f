#include "audit/lint_scan.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace fp8kit::audit::lint {

int number(std::string_view digits) {
  long v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') break;
    v = std::min(v * 10 + (c - '0'), 1000000000L);
  }
  return static_cast<int>(v);
}

std::string blank_cpp(std::string_view in, bool blank_strings) {
  std::string out(in);
  std::size_t i = 0;
  auto blank = [&](std::size_t a, std::size_t b) {
    for (std::size_t k = a; k < b && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < in.size()) {
    const char c = in[i];
    if (c == '/' && i + 1 < in.size() && in[i + 1] == '/') {
      std::size_t e = in.find('\n', i);
      if (e == std::string_view::npos) e = in.size();
      blank(i, e);
      i = e;
    } else if (c == '/' && i + 1 < in.size() && in[i + 1] == '*') {
      std::size_t e = in.find("*/", i + 2);
      e = e == std::string_view::npos ? in.size() : e + 2;
      blank(i, e);
      i = e;
    } else if (c == 'R' && i + 1 < in.size() && in[i + 1] == '"' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(in[i - 1])) || in[i - 1] == '_'))) {
      const std::size_t open = in.find('(', i + 2);
      if (open == std::string_view::npos) break;
      const std::string close = ")" + std::string(in.substr(i + 2, open - i - 2)) + "\"";
      std::size_t e = in.find(close, open + 1);
      e = e == std::string_view::npos ? in.size() : e + close.size();
      if (blank_strings) blank(i + 2, e - 1);
      i = e;
    } else if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(in[i - 1]))))) {
      // A ' after a hex digit is a digit separator (1'000), not a char literal.
      std::size_t e = i + 1;
      while (e < in.size() && in[e] != c && in[e] != '\n') e += in[e] == '\\' ? 2 : 1;
      e = std::min(e, in.size());
      if (blank_strings) blank(i + 1, e);
      i = e + 1;
    } else {
      ++i;
    }
  }
  return out;
}

std::string blank_python(std::string_view in) {
  std::string out(in);
  auto blank = [&](std::size_t a, std::size_t b) {
    for (std::size_t k = a; k < b && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  std::size_t i = 0;
  while (i < in.size()) {
    const char c = in[i];
    if (c == '#') {
      std::size_t e = in.find('\n', i);
      if (e == std::string_view::npos) e = in.size();
      blank(i, e);
      i = e;
    } else if (c == '"' || c == '\'') {
      const bool triple = i + 2 < in.size() && in[i + 1] == c && in[i + 2] == c;
      const std::string delim = triple ? std::string(3, c) : std::string(1, c);
      std::size_t e = i + delim.size();
      while (e < in.size()) {
        if (in[e] == '\\') {
          e += 2;
          continue;
        }
        if (in.compare(e, delim.size(), delim) == 0) break;
        if (!triple && in[e] == '\n') break;
        ++e;
      }
      e = std::min(e, in.size());
      blank(i + delim.size(), e);
      i = e + delim.size();
    } else {
      ++i;
    }
  }
  return out;
}

std::string keep_capability_strings(std::string blanked, std::string_view raw) {
  constexpr std::size_t kLongest = 12;  // "compute_120a"
  static const std::regex cap(R"(^(?:sm_?|compute_)?\d{2,4}[af]?$|^\d{1,2}\.\d$)");
  for (std::size_t i = 0; i + 1 < blanked.size() && i < raw.size(); ++i) {
    const char q = blanked[i];
    if ((q != '"' && q != '\'') || raw[i] != q) continue;
    std::size_t e = i + 1;
    while (e < blanked.size() && blanked[e] == ' ' && e - i <= kLongest) ++e;
    if (e >= blanked.size() || blanked[e] != q || e == i + 1) continue;
    const std::string inner(raw.substr(i + 1, e - i - 1));
    if (std::regex_match(inner, cap)) blanked.replace(i + 1, inner.size(), inner);
    i = e;
  }
  return blanked;
}

std::string blank_cmake(std::string_view in) {
  std::string out(in);
  bool quoted = false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\\') {
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == '#' && !quoted) {
      std::size_t e;
      if (in.compare(i, 3, "#[[") == 0) {
        e = in.find("]]", i + 3);
        e = e == std::string_view::npos ? in.size() : e + 2;
      } else {
        e = in.find('\n', i);
        if (e == std::string_view::npos) e = in.size();
      }
      for (std::size_t k = i; k < e; ++k)
        if (out[k] != '\n') out[k] = ' ';
      i = e - 1;
    }
  }
  return out;
}

std::string logical_line(const std::string& s, std::size_t& pos) {
  std::size_t end = pos;
  for (;;) {
    end = s.find('\n', end);
    if (end == std::string::npos) {
      end = s.size();
      break;
    }
    std::size_t k = end;
    while (k > pos && (s[k - 1] == ' ' || s[k - 1] == '\r' || s[k - 1] == '\t')) --k;
    if (k > pos && s[k - 1] == '\\') {
      ++end;
      continue;
    }
    break;
  }
  std::string line = s.substr(pos, end - pos);
  pos = end + 1;
  return line;
}

Lines::Lines(std::string_view s) {
  starts.push_back(0);
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n') starts.push_back(i + 1);
}

std::pair<int, int> Lines::at(std::size_t off) const {
  const auto it = std::upper_bound(starts.begin(), starts.end(), off);
  const std::size_t line = static_cast<std::size_t>(it - starts.begin());
  return {static_cast<int>(line), static_cast<int>(off - starts[line - 1] + 1)};
}

std::vector<LineSpan> lines_of(const std::string& code) {
  std::vector<LineSpan> out;
  for (std::size_t b = 0; b < code.size();) {
    std::size_t e = code.find('\n', b);
    if (e == std::string::npos) e = code.size();
    out.push_back({b, e});
    b = e + 1;
  }
  return out;
}

std::string trim(std::string s) {
  const auto ws = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!s.empty() && ws(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t k = 0;
  while (k < s.size() && ws(static_cast<unsigned char>(s[k]))) ++k;
  return s.substr(k);
}

std::string collapse(std::string s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> words_of(const std::string& ident) {
  std::vector<std::string> words;
  std::string cur;
  for (std::size_t i = 0; i < ident.size(); ++i) {
    const char c = ident[i];
    if (c == '_' || !std::isalnum(static_cast<unsigned char>(c))) {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
      continue;
    }
    const bool upper = std::isupper(static_cast<unsigned char>(c));
    const bool prev_lower = i > 0 && std::islower(static_cast<unsigned char>(ident[i - 1]));
    if (upper && prev_lower && !cur.empty()) {
      words.push_back(cur);
      cur.clear();
    }
    cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!cur.empty()) words.push_back(cur);
  return words;
}

}  // namespace fp8kit::audit::lint
