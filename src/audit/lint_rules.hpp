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
std::string a_gpu(int cap);     // 121 -> "a 12.1 GPU", 86 -> "an 8.6 GPU"

struct Verdict {
  Severity severity = Severity::Note;
  Consequence consequence = Consequence::Other;
  std::string reason;
};

// What the GPU that fails an exact test gets, and the evidence read for it.
struct Effect {
  Consequence what = Consequence::Other;
  std::string evidence;    // "`raise ValueError(...)` at line 12", "the #else at line 30, real code"
  std::string deliberate;  // why the exact test looks meant ("the text beside says \"exact compute\""), or ""
};
std::string consequence_phrase(Consequence c);  // "is refused", "traps", "gets another configuration", ...

// The grade of an exact test that lets through exactly `named` (an `==`, an
// `||` chain of them, a literal list), from what `e` says the first GPU it
// misses gets (`missed_siblings`, else the family's next minor):
//   error    a GPU of today in the family breaks (is refused, traps, runs an
//            empty or compiled-out body, has no image) and nothing says so is meant;
//   warning  it gets another configuration, or the break is documented as
//            meant; or every GPU of today passes and a future minor would break;
//   note     the rest: a future minor would get another configuration, the GPU
//            passes, or the family is 7.x/8.x, whose minors differ in shared
//            memory and FP8 (a tuning choice), unless a device stub reaches one.
Verdict grade(const std::vector<int>& named, const Effect& e);
// Whether `context` (the code around a test) serves a unit that GPU `gpu`'s
// family does not have (tensor memory on 12.x), so refusing it there refuses
// nothing it runs; `why` says so.
bool family_lacks(const std::string& context, int gpu, std::string* why);
// The GPU a grade speaks of: the first of today that `named` misses, or the
// family's next minor after the newest named (a future GPU).
int first_missed(const std::vector<int>& named);
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

// ---- What the GPU that fails a host test does (lint_branch.cpp) -----------------
// A source as the host rules read it: blanked (comments and strings), as
// written, its lines, and its language.
class HostSource {
 public:
  HostSource(const std::string& blanked, std::string_view written, const Lines& l, bool py)
      : code(blanked), raw(written), lines(l), python(py) {}
  const std::string& code;
  std::string_view raw;
  const Lines& lines;
  bool python;
  // Python: per line, nonzero where it continues a statement (an open bracket or `\`).
  const std::vector<int>& depths() const;

 private:
  mutable std::vector<int> depth_;
};
// What GPU `gpu` does when the test at [at, end) of src.code is `value` for
// it, read from the code around the test (the branch it takes, the check it
// feeds, the predicate or flag it sets and their tests); `what` is Other with
// the evidence read where nothing refuses it.
Effect host_effect(const HostSource& src, std::size_t at, std::size_t end, bool value, int gpu);
// Why the text says an exact test is meant ("exact compute capability",
// "intentionally", "validated"), quoted, or "".
std::string deliberate_in(std::string_view text);

// What a host test's surroundings say: the line, the lines around it with
// comments and strings blanked, and the same lines as written.
struct HostContext {
  std::string line, next, code, raw;  // the line; it and the next; the lines around, blanked and as written
  std::vector<std::pair<std::string, int>> folded;  // names folded to a family base (`sm = 120`)
  int first_line = 0;                               // the line number where `code` and `raw` begin
};
// `if (sm > 120 && sm < 130) sm = 120;`: {"sm", 120}.
std::vector<std::pair<std::string, int>> folded_to_family_base(const std::string& code);
// The grade of a host test (grade() of what `e` says the GPU it misses gets),
// after its surroundings: an `a` target beside it, a generated kernel's
// target, an SM count (note: not a GPU test); a name folded to the family
// (note: the GPU passes); the sibling named beside it, "exact" said there or
// in the branch, a toolkit requirement (a break documented as meant).
Verdict grade_host_test(const std::string& x, const std::string& lit, int cap, const std::vector<int>& named,
                        const HostContext& c, Effect e);

// A reason made on `file`, told of in another finding: "a 12.1 GPU traps" +
// `how` + ": it compiles the #else at FILE:5, which traps" (line references
// name the file).
std::string reason_elsewhere(const std::string& reason, const std::string& how, const std::string& file);

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
  Verdict verdict;      // the guard's grade and reason
};

// ---- The arch macros (lint_macro.cpp) ---------------------------------------------
// `#define GGML_CUDA_CC_DGX_SPARK 1210`: a file's names for arch-macro values.
using ArchDefines = std::map<std::string, long>;
ArchDefines arch_defines(const std::string& code);
// `#define IS_SM120 (defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 1200)`:
// object-like macros whose body tests an arch macro (name -> body, and where).
struct ArchExpr {
  std::string body;
  std::size_t at = 0, end = 0;  // the #define's logical line
};
using ArchExprs = std::map<std::string, ArchExpr>;
ArchExprs arch_exprs(const std::string& code);

// An arch macro compared with an operator.
struct MacroCompare {
  std::size_t at = 0;  // start of the whole comparison
  std::size_t end = 0;
  std::string macro, op;
  long value = -1;   // the number compared with, or -1
  std::string name;  // the named constant it came from (`GGML_CUDA_CC_DGX_SPARK`), if any
};
// With `named`, a name it defines stands for its value.
std::vector<MacroCompare> macro_compares(const std::string& code, const ArchDefines* named = nullptr);
int macro_cap(long value);  // 1200 -> 120, or -1 when the value names no capability
// The capabilities a condition admits by equality (`== 1000 || == 1030` -> {100, 103}).
std::vector<int> equality_caps(const std::vector<MacroCompare>& compares);

// ---- The preprocessor's chains (lint_cpp.cpp) -------------------------------------
struct PpBranch {
  std::size_t at = 0;     // the directive's `#`
  std::string directive;  // if, ifdef, ifndef, elif, else
  std::string cond;       // its condition (`defined(X)` for `#ifdef X`)
  std::string text;       // the directive line, collapsed
  std::string body;       // the lines it holds, nested directives included
  std::size_t body_begin = 0, body_end = 0;
};
struct PpChain {
  std::vector<PpBranch> branches;  // #if, #elif..., #else
  std::size_t endif_end = 0;       // past the #endif line
  bool whole_body = false;         // it is the whole body of a function (`{ #if ... #endif }`)
  bool arch = false;               // a condition tests an arch or feature macro
};
// The #if chains of a C++ text (comments blanked, strings kept: `asm("trap;")`).
class Preprocessor {
 public:
  Preprocessor(const std::string& kept, const ArchDefines& defines, const ArchExprs& exprs);
  const std::vector<PpChain>& chains() const { return chains_; }
  const ArchExprs& exprs() const { return exprs_; }
  const ArchDefines& defines() const { return defines_; }
  // The chain whose directive lines hold offset `at`, or null.
  const PpChain* chain_at(std::size_t at) const;
  // Chains whose conditions name the macro `name`.
  std::vector<const PpChain*> chains_using(const std::string& name) const;
  // What GPU `gpu` compiles in `chain`: the branch it takes and what it does.
  Effect effect(const PpChain& chain, int gpu, const Lines& lines) const;

 private:
  const std::string& kept_;
  const ArchDefines& defines_;
  const ArchExprs& exprs_;
  std::vector<PpChain> chains_;
};
// The file tests `gpu` itself outside [skip_begin, skip_end): "the file tests
// 10.3 itself at line N (`__CUDA_ARCH__ == 1030`)", or "".
std::string tested_elsewhere(const std::vector<MacroCompare>& all, int gpu, std::size_t skip_begin,
                             std::size_t skip_end, const Lines& lines, const std::string& code);

// The C++ source of one file as the device rules read it.
struct CppFile {
  const std::string& code;  // comments and strings blanked
  const std::string& kept;  // comments blanked, strings kept
  std::string_view raw;
  const Preprocessor& pp;
};
// The arch macros compared with numbers; with `named`, only those compared
// with a name it defines (the file's own or another file's constants).
void rule_macro_equality(const CppFile& f, Sink& s, const ArchDefines* named = nullptr);
void rule_guard_else(const CppFile& f, Sink& s);
void rule_feature_macros(const CppFile& f, Sink& s);
std::vector<GuardTemplate> guard_templates(const std::string& code, const std::vector<LintFinding>& found,
                                           const std::string& file, const Lines& lines);
void rule_guard_uses(const std::string& code, const std::vector<GuardTemplate>& guards, Sink& s);
void rule_host_equality(const std::string& code, std::string_view raw, bool python, Sink& s);
void rule_python_membership(const std::string& code, std::string_view raw, Sink& s);
void rule_python_tables(const std::string& code, std::string_view raw, Sink& s);
void rule_cmake_lists(const std::string& code, Sink& s);
// The source files a CMake file names (`add_library(k a.cu)`, `${DIR}/b.cu`,
// globs such as `csrc/*.cu`), as written there less a leading `${...}/`.
std::vector<std::string> cmake_sources(const std::string& code);

}  // namespace fp8kit::audit::lint
