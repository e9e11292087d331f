// fp8kit lint, the statements of a branch and what they do: split C++ code
// at `;` and blocks, Python code by indentation, and tell a refusal (raise,
// throw, a failing check, an error status), a selector that returns nothing
// and a statement that leaves apart from other work. Internal to the host
// rules (lint_branch.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "audit/lint_rules.hpp"

namespace fp8kit::audit::lint {

constexpr std::size_t kReach = 6000;  // how far a statement, branch or flag is followed
constexpr int kFollowLines = 60;      // lines after a flag in which its tests are looked for
constexpr std::size_t npos = std::string::npos;

enum class Act { Work, Refuses, Declines, Leaves };

struct Statement {
  std::size_t at = 0;
  std::string text;
};

// What a branch's own statements do (nested ones are conditional and not read).
struct BranchAct {
  Act act = Act::Work;
  Statement where;
};

std::size_t skip_ws(const std::string& s, std::size_t i);
std::size_t skip_ws_back(const std::string& s, std::size_t i);
std::string word_at(const std::string& s, std::size_t i);
// The identifier that ends at `end` (white space before `end` skipped).
std::string word_before(const std::string& s, std::size_t end);
// The bracket closing the one at `open`, or npos.
std::size_t match_close(const std::string& s, std::size_t open);
std::string trim_quotes(std::string t);
// "`raise ValueError(...)`": a statement as evidence.
std::string quote(const std::string& statement);

// A predicate or flag whose false means "not supported here".
bool support_name(const std::string& name);
// A function that may decline without refusing: an optional, faster or tuned path.
bool optional_path(const std::string& name);
// TORCH_CHECK, NVTE_CHECK, TVM_FFI_ICHECK, assert, static_assert, ...
bool check_macro(const std::string& name);

Act act_of_cpp(const std::string& statement);
Act act_of_python(const std::string& statement);
BranchAct judge(const std::vector<Statement>& statements, bool python);

// The top-level statements of the C++ code [b, e): split at `;` and blocks.
std::vector<Statement> cpp_statements(const std::string& code, std::size_t b, std::size_t e);
// The body after `from` (a block or one statement): [begin, end) of its
// text and the offset past it.
struct Span {
  std::size_t begin = 0, end = 0, after = 0;
};
Span cpp_body(const std::string& code, std::size_t from);

int indent_of(const std::string& code, std::size_t line_begin);
bool blank_line(const std::string& code, std::size_t b, std::size_t e);
std::size_t line_end(const std::string& code, std::size_t i);
// The start of the Python logical line holding `at`, and the start of the next.
std::size_t py_statement_begin(const HostSource& src, std::size_t at);
std::size_t py_next_statement(const HostSource& src, std::size_t b);
// The statements of the block whose lines are indented deeper than `indent`,
// from `from` on; `end` is set past the block.
std::vector<Statement> py_block(const HostSource& src, std::size_t from, int indent, std::size_t* end);
// The `:` that ends the header of a compound statement from `from`, at depth 0.
std::size_t py_colon(const std::string& code, std::size_t from);

}  // namespace fp8kit::audit::lint
