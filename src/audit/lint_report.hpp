// fp8kit lint's report: one finding per exact architecture test, with its
// severity and the reason for it, and the errors of paths that could not be
// read. The rules (lint_rules.hpp) fill it; lint.hpp runs them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "audit/severity.hpp"

namespace fp8kit::audit {

struct LintFinding {
  std::string file;
  int line = 0;         // 1-based
  int column = 0;       // 1-based
  std::string rule;     // arch-macro-equality, arch-guard-else, capability-equality, ...
  std::string text;     // the matched source text
  std::string message;  // what is wrong
  std::string rewrite;  // suggested family-range form, or why there is none
  Severity severity = Severity::Error;
  std::string reason;  // why this severity (the family rule, docs/lint.md)
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
