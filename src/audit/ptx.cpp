#include "audit/ptx.hpp"

#include <cctype>

namespace fp8kit::audit {

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Comments removed, braces and labels dropped: the statements of a body.
std::vector<std::string_view> statements(std::string_view body, std::string& storage) {
  storage.clear();
  storage.reserve(body.size());
  bool line_start = true;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const bool at_line_start = line_start;
    line_start = body[i] == '\n' || (line_start && (body[i] == ' ' || body[i] == '\t'));
    if (at_line_start && (body.compare(i, 4, ".loc") == 0 || body.compare(i, 5, ".file") == 0)) {
      // Debug-line directives (-lineinfo) end at the newline, not at a semicolon.
      while (i + 1 < body.size() && body[i + 1] != '\n') ++i;
    } else if (body[i] == '/' && i + 1 < body.size() && body[i + 1] == '/') {
      while (i < body.size() && body[i] != '\n') ++i;
    } else if (body[i] == '/' && i + 1 < body.size() && body[i + 1] == '*') {
      const std::size_t end = body.find("*/", i + 2);
      i = end == std::string_view::npos ? body.size() : end + 1;
    } else if (body[i] == '{' || body[i] == '}') {
      storage.push_back(';');
    } else {
      storage.push_back(body[i]);
    }
  }
  std::vector<std::string_view> out;
  std::string_view all(storage);
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find(';', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view st = all.substr(start, end - start);
    start = end + 1;
    for (;;) {
      while (!st.empty() && std::isspace(static_cast<unsigned char>(st.front()))) st.remove_prefix(1);
      // A label "name:" prefixes the next statement.
      std::size_t k = 0;
      while (k < st.size() && ident_char(st[k])) ++k;
      if (k > 0 && k < st.size() && st[k] == ':' && st[0] != '.') {
        st.remove_prefix(k + 1);
        continue;
      }
      break;
    }
    while (!st.empty() && std::isspace(static_cast<unsigned char>(st.back()))) st.remove_suffix(1);
    if (!st.empty()) out.push_back(st);
  }
  return out;
}

std::uint32_t tensor_op(std::string_view op, std::string_view st) {
  const bool fp8 = st.find("e4m3") != std::string_view::npos || st.find("e5m2") != std::string_view::npos;
  if (starts_with(op, "mma.")) {
    if (fp8) return tc::kQmma;
    if (st.find(".s8") != std::string_view::npos || st.find(".u8") != std::string_view::npos ||
        st.find(".s4") != std::string_view::npos)
      return tc::kImma;
    return tc::kHmma;
  }
  if (starts_with(op, "wgmma.mma_async")) {
    if (fp8) return tc::kQgmma;
    return st.find(".s8") != std::string_view::npos || st.find(".u8") != std::string_view::npos ? 0 : tc::kHgmma;
  }
  if (starts_with(op, "tcgen05.mma")) {
    if (st.find("kind::f8f6f4") != std::string_view::npos || st.find("kind::mxf8f6f4") != std::string_view::npos)
      return tc::kUtcQmma;
    if (st.find("kind::i8") != std::string_view::npos) return tc::kUtcImma;
    if (st.find("kind::mxf4") != std::string_view::npos) return tc::kUtcOmma;
    return tc::kUtcHmma;
  }
  return 0;
}

bool is_work(std::string_view op) {
  if (starts_with(op, "st.")) return !starts_with(op, "st.param") && !starts_with(op, "st.local");
  return starts_with(op, "atom.") || starts_with(op, "red.") || starts_with(op, "mma.") || starts_with(op, "wgmma.") ||
         starts_with(op, "tcgen05.") || starts_with(op, "cp.async.bulk") || starts_with(op, "sust.") ||
         starts_with(op, "stmatrix");
}

void classify(PtxKernel& k, std::string_view body) {
  std::string storage;
  const auto sts = statements(body, storage);
  bool work = false, called = false, decided = false;
  for (std::string_view st : sts) {
    if (st.front() == '.') continue;  // .reg, .shared, .loc, .pragma ...
    const bool guarded = st.front() == '@';
    if (guarded) {
      std::size_t k2 = st.find_first_of(" \t");
      st = k2 == std::string_view::npos ? std::string_view() : st.substr(k2 + 1);
      while (!st.empty() && std::isspace(static_cast<unsigned char>(st.front()))) st.remove_prefix(1);
    }
    std::size_t sp = 0;
    while (sp < st.size() && !std::isspace(static_cast<unsigned char>(st[sp]))) ++sp;
    const std::string_view op = st.substr(0, sp);
    k.tensor_ops |= tensor_op(op, st);
    if (decided) continue;
    const bool control =
        op == "trap" || op == "ret" || op == "exit" || starts_with(op, "bra") || starts_with(op, "brx");
    if (guarded) {
      if (control)
        decided = true;
      else if (is_work(op))
        work = true;
      continue;
    }
    if (op == "trap") {
      if (!work) k.body = Body::TrapStub;
      decided = true;
    } else if (op == "ret" || op == "exit") {
      if (!work && !called) k.body = Body::Empty;
      decided = true;
    } else if (starts_with(op, "bra") || starts_with(op, "brx")) {
      decided = true;
    } else if (starts_with(op, "call")) {
      called = true;
    } else if (is_work(op)) {
      work = true;
    }
  }
}

}  // namespace

std::vector<PtxKernel> ptx_kernels(std::string_view text) {
  std::vector<PtxKernel> out;
  std::size_t pos = 0;
  while ((pos = text.find(".entry", pos)) != std::string_view::npos) {
    const bool word_start = pos == 0 || std::isspace(static_cast<unsigned char>(text[pos - 1]));
    pos += 6;
    if (!word_start || pos >= text.size() || !std::isspace(static_cast<unsigned char>(text[pos]))) continue;
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    const std::size_t name_begin = pos;
    while (pos < text.size() && ident_char(text[pos])) ++pos;
    if (pos == name_begin) continue;
    PtxKernel k;
    k.name = std::string(text.substr(name_begin, pos - name_begin));
    // Skip the parameter list, then take the body between matching braces.
    std::size_t brace = pos;
    int parens = 0;
    for (; brace < text.size(); ++brace) {
      const char c = text[brace];
      if (c == '(')
        ++parens;
      else if (c == ')')
        --parens;
      else if (c == '{' && parens <= 0)
        break;
      else if (c == ';' && parens <= 0)
        break;  // a declaration without body
    }
    if (brace >= text.size() || text[brace] != '{') {
      pos = brace;
      continue;
    }
    int depth = 0;
    std::size_t end = brace;
    for (; end < text.size(); ++end) {
      if (text[end] == '{')
        ++depth;
      else if (text[end] == '}' && --depth == 0)
        break;
    }
    classify(k, text.substr(brace + 1, end > brace ? end - brace - 1 : 0));
    out.push_back(std::move(k));
    pos = end;
  }
  return out;
}

}  // namespace fp8kit::audit
