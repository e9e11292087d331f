// fp8kit lint internals: the family model every rule grades with, the
// classifier of what a comparison compares, the rewrites, and the rules of
// each language (lint_cpp.cpp, lint_host.cpp, lint_python.cpp,
// lint_cmake.cpp). The driver is lint.cpp.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "audit/lint_report.hpp"
#include "audit/lint_scan.hpp"

namespace fp8kit::audit::lint {

// A capability literal from this value up is in the arch macro's units (ten
// times the capability: 1200 for 12.0); capabilities themselves end at 139.
constexpr int kArchUnitsFrom = 500;

// ---- Family model (lint_family.cpp) -----------------------------------------
// A capability is major * 10 + minor (12.1 -> 121).

// Whether `cap` can be a capability at all (majors 5-13, any minor).
bool plausible_capability(int cap);
std::string cap_name(int cap);  // 121 -> "12.1"

struct Verdict {
  Severity severity = Severity::Note;
  std::string reason;
};
// The grade of one exact test that lets through exactly `named` (an `==`, an
// `||` chain of them, a literal list): error when a GPU of the same family that
// exists today, newer than a named one, fails it; warning when only a future
// minor would (one-member families, lists naming every member); note for the
// 7.x/8.x minors, whose differences (shared memory, FP8) make an exact test a
// tuning choice.
Verdict exact_test_verdict(const std::vector<int>& named);
// The existing same-family GPUs newer than a named capability that `named` misses.
std::vector<int> missed_siblings(const std::vector<int>& named);

// ---- What an expression names (lint_family.cpp) -----------------------------
enum class Archy { No, Major, Capability };
Archy archy(const std::string& expr);

// ---- Operands and literals of host tests (lint_host.cpp) -----------------------
// Regex of an operand: a name chain with one call and one subscript, `x // 10`,
// a `major * 10 + minor` sum, or a `(cc_major, cc_minor)` pair; one group.
extern const char* const kOperand;
// The capability a literal names (120, (12, 0), Arch.sm_120a), or -1.
int literal_cap(const std::string& lit);
Archy operand_archy(const std::string& x);
// Whether an operand is a generated kernel's target (`op.arch`, `kspec.sm`).
bool kernel_target(const std::string& x);

// What a host test's surroundings say: the line, the lines around it with
// comments and strings blanked, and the same lines as written.
struct HostContext {
  std::string line, next, code, raw;  // the line; it and the next; the lines around, blanked and as written
  std::vector<std::pair<std::string, int>> folded;  // names folded to a family base (`sm = 120`)
};
// `if (sm > 120 && sm < 130) sm = 120;`: {"sm", 120}.
std::vector<std::pair<std::string, int>> folded_to_family_base(const std::string& code);
// The family grade of a host test, then its surroundings: an `a` target beside
// it, a generated kernel's target, an SM count (note); the sibling named
// beside it, "exact" said beside it, a toolkit requirement (warning).
Verdict grade_host_test(const std::string& x, const std::string& lit, int cap, const std::vector<int>& named,
                        const HostContext& c);

// ---- Rewrites (lint_rewrite.cpp) ---------------------------------------------
// Each keeps the test's meaning on every capability except the same-family
// minors newer than the one named, which it now lets through.
std::string cxx_range(const std::string& x, int lo, int hi, bool negate);
std::string py_range(const std::string& x, int lo, int hi, bool negate);
std::string py_tuple_range(const std::string& x, int major, int minor, bool negate);
// Rewrite of `x == lit` / `x != lit`, lit a capability integer, tuple or sm enum.
std::string equality_rewrite(const std::string& x, const std::string& lit, bool negate, bool python);
// Rewrite of `x in items` (capability integers or tuples), `not in` when negate.
std::string membership_rewrite(const std::string& x, const std::vector<int>& caps, bool tuples, bool negate);
// `major == M and minor == m` -> a test of the family from m on.
std::string major_minor_rewrite(const std::string& major, const std::string& minor, int cap, bool python,
                                bool negate);

// ---- Rules --------------------------------------------------------------------
struct Sink {
  const std::string& file;
  const Lines& lines;
  std::vector<LintFinding>& out;
  LintFinding& add(std::size_t at, const char* rule, const Verdict& v);
};

// A struct, class or kernel whose body holds an error-grade guard: its uses in
// any file are findings too (lint.cpp follows them).
struct GuardTemplate {
  std::string name;
  std::string file;
  int line = 0;
  std::string guard;    // the guard text
  std::string rewrite;  // the guard's rewrite
};

// `#define GGML_CUDA_CC_DGX_SPARK 1210`: a file's names for arch-macro values.
using ArchDefines = std::map<std::string, long>;
ArchDefines arch_defines(const std::string& code);
// The arch macros compared with numbers; with `named`, only those compared
// with a name it defines (the file's own or another file's constants).
void rule_macro_equality(const std::string& code, Sink& s, const ArchDefines* named = nullptr);
void rule_guard_else(const std::string& nocomment, Sink& s);
void rule_feature_macros(const std::string& code, Sink& s);
std::vector<GuardTemplate> guard_templates(const std::string& code, const std::vector<LintFinding>& found,
                                           const std::string& file, const Lines& lines);
void rule_guard_uses(const std::string& code, const std::vector<GuardTemplate>& guards, Sink& s);
void rule_host_equality(const std::string& code, std::string_view raw, bool python, Sink& s);
void rule_python_membership(const std::string& code, std::string_view raw, Sink& s);
void rule_cmake_lists(const std::string& code, Sink& s);

}  // namespace fp8kit::audit::lint
