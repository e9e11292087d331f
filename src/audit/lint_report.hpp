// fp8kit lint's report: one finding per exact architecture test, with its
// severity and the reason for it, and the errors of paths that could not be
// read. The rules (lint_rules.hpp) fill it; lint.hpp runs them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "audit/severity.hpp"

namespace fp8kit::audit {

// What the GPU that fails an exact test gets (docs/lint.md "Severity"). The
// first five break it: an error where a GPU of today gets one of them.
enum class Consequence : std::uint8_t {
  Refused,      // a raise, throw, failing check or error status; a selector that returns nothing
  Traps,        // the #else it compiles traps
  Empty,        // the #else it compiles does nothing, or only prints
  CompiledOut,  // the whole body is compiled out for it
  NoImage,      // the build makes no image it can load
  Other,        // another configuration: other real code, a table's default, a path not taken
  Passes,       // it passes the test: folded to the family, its own test beside, a check that refuses the other GPU
  NotAGpu,      // the test picks a generated kernel's target or a part, not the GPU
};
const char* consequence_name(Consequence c);  // "refused", "traps", ..., "another configuration"
constexpr bool breaks(Consequence c) { return c <= Consequence::NoImage; }

struct LintFinding {
  std::string file;
  int line = 0;         // 1-based
  int column = 0;       // 1-based
  std::string rule;     // arch-macro-equality, arch-guard-else, capability-equality, ...
  std::string text;     // the matched source text
  std::string message;  // what is wrong
  std::string rewrite;  // suggested family-range form, or why there is none
  Severity severity = Severity::Error;
  Consequence consequence = Consequence::Other;  // for the GPU the reason names
  std::string reason;  // why this severity: the GPU, its consequence and the evidence read for it
};

struct LintError {
  std::string path;
  std::string message;
};

struct LintReport {
  std::vector<LintFinding> findings;
  std::vector<LintError> errors;
  std::size_t files = 0;    // files read
  std::size_t skipped = 0;  // tests, examples and benchmarks set aside
};

struct LintOptions {
  bool include_tests = false;  // read tests/, examples/, benchmarks/ and test_*.py too
};

}  // namespace fp8kit::audit
