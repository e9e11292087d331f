// fp8kit lint: architecture checks written as equalities in sources.
//
// An equality on an architecture (`__CUDA_ARCH__ == 1200`, `cap == (12, 0)`,
// `arch in [89, 120]`) silently excludes the next minor revision of the same
// family (12.1 after 12.0, 10.3 after 10.0). The rewrite is a family range.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "audit/lint_report.hpp"

namespace fp8kit::audit {

enum class SourceKind { Unknown, Cpp, Python, CMake };
SourceKind source_kind(const std::string& path);

// Lints one source text (guard templates are followed within it).
std::vector<LintFinding> lint_source(std::string_view text, SourceKind kind, const std::string& file);

// Lints files and directories (recursively: .cu .cuh .h .hpp .cpp .cc .c .cxx
// .py, CMakeLists.txt, *.cmake; hidden directories are skipped, and so are
// tests, examples and benchmarks unless options.include_tests). A guard
// template defined in one file is followed to its uses in all of them. A named
// file of another kind, or a path that cannot be read, is an error.
LintReport lint_paths(const std::vector<std::string>& paths, const LintOptions& options = {});

}  // namespace fp8kit::audit
