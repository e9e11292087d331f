// fp8kit lint: each pattern of docs/audit.md ("The bug class") is a case; range tests are clean.
#include <gtest/gtest.h>

#include "audit/lint.hpp"
#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

std::vector<LintFinding> lint(const std::string& text, SourceKind kind) { return lint_source(text, kind, "x"); }

std::string rules(const std::vector<LintFinding>& fs) {
  std::string s;
  for (const auto& f : fs) s += (s.empty() ? "" : " ") + f.rule + "@" + std::to_string(f.line);
  return s;
}

// ---- C++ / CUDA ------------------------------------------------------------

TEST(LintCpp, ArchMacroEquality) {
  auto fs = lint("#if __CUDA_ARCH__ == 1200\n#endif\n", SourceKind::Cpp);
  ASSERT_EQ(rules(fs), "arch-macro-equality@1");
  EXPECT_EQ(fs[0].column, 5);
  EXPECT_EQ(fs[0].text, "__CUDA_ARCH__ == 1200");
  EXPECT_EQ(fs[0].rewrite, "(__CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300)");
  fs = lint("#if 1200 != __CUDA_ARCH__\n#endif\n", SourceKind::Cpp);
  ASSERT_EQ(rules(fs), "arch-macro-equality@1");
  EXPECT_EQ(fs[0].rewrite, "!(__CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300)");
  EXPECT_EQ(rules(lint("#if (__CUDA_ARCH__==900)\n#endif\n", SourceKind::Cpp)), "arch-macro-equality@1");
}

TEST(LintCpp, SpecificMacrosInNewClothes) {
  EXPECT_EQ(rules(lint("#if __CUDA_ARCH_FAMILY_SPECIFIC__ == 1200\n#endif\n", SourceKind::Cpp)),
            "arch-macro-equality@1");
  EXPECT_EQ(
      rules(lint("#if defined(__CUDA_ARCH_SPECIFIC__) && __CUDA_ARCH_SPECIFIC__ == 1000\n#endif\n", SourceKind::Cpp)),
      "arch-macro-equality@1");
}

TEST(LintCpp, TrappingElseOfAnEqualityGuard) {
  const std::string src = test::read_file_text("vllm_guard.cu");
  EXPECT_EQ(rules(lint(src, SourceKind::Cpp)), "arch-macro-equality@3 arch-guard-else@5");
}

TEST(LintCpp, ElseBranchesThatDoNothingOrTrap) {
  const char* empty_else = "#if __CUDA_ARCH__ >= 890\n  work();\n#else\n#endif\n";
  EXPECT_EQ(rules(lint(empty_else, SourceKind::Cpp)), "arch-guard-else@3");
  const char* print_trap =
      "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000\n work();\n#else\n"
      "  printf(\"not supported on this arch\\n\");\n  __trap();\n#endif\n";
  EXPECT_EQ(rules(lint(print_trap, SourceKind::Cpp)), "arch-guard-else@3");
  const char* void_casts =
      "#ifdef __CUDA_ARCH_FEAT_SM90_ALL\n work(a, b);\n#else\n  (void)a;\n  (void)b;\n  return;\n#endif\n";
  EXPECT_EQ(rules(lint(void_casts, SourceKind::Cpp)), "arch-guard-else@3");
  const char* assert_else = "#if __CUDA_ARCH__ >= 800\n work();\n#else\n  assert(false && \"sm80+\");\n#endif\n";
  EXPECT_EQ(rules(lint(assert_else, SourceKind::Cpp)), "arch-guard-else@3");
}

TEST(LintCpp, CleanCode) {
  EXPECT_EQ(rules(lint(test::read_file_text("clean.cu"), SourceKind::Cpp)), "");
  // A portable #else, a host/device split, a define in the #else.
  EXPECT_EQ(rules(lint("#if __CUDA_ARCH__ >= 800\n cp_async();\n#else\n  plain_copy();\n#endif\n", SourceKind::Cpp)),
            "");
  EXPECT_EQ(rules(lint("#if defined(__CUDA_ARCH__)\n#else\n#endif\n", SourceKind::Cpp)), "");
  EXPECT_EQ(rules(lint("#if __CUDA_ARCH__ >= 800\n#define X 1\n#else\n#define X 0\n#endif\n", SourceKind::Cpp)), "");
  // Equality on things that are not architectures.
  EXPECT_EQ(rules(lint("if (kind == 2 && version == 8 && n != 120) {}\n", SourceKind::Cpp)), "");
}

TEST(LintCpp, HostSideCapabilityEquality) {
  EXPECT_EQ(rules(lint("if (getSMVersion() == 120) {}\n", SourceKind::Cpp)), "capability-equality@1");
  EXPECT_EQ(rules(lint("if (prop.major == 10) {}\n", SourceKind::Cpp)), "capability-equality@1");
  auto fs = lint("bool ok = sm_version != 90;\n", SourceKind::Cpp);
  ASSERT_EQ(rules(fs), "capability-equality@1");
  EXPECT_EQ(fs[0].rewrite, "!(sm_version >= 90 && sm_version < 100)");
  EXPECT_EQ(rules(lint("bool ok = prop.major >= 9;\n", SourceKind::Cpp)), "");
}

// ---- Python ---------------------------------------------------------------

TEST(LintPython, PatternsFromTheWild) {
  struct Case {
    const char* code;
    const char* rule;
  } cases[] = {
      {"if arch in [89, 120]:\n", "capability-membership"},
      {"if arch == 120:\n", "capability-equality"},
      {"if torch.cuda.get_device_capability() not in [89, 120]:\n", "capability-membership"},
      {"if major == 10:\n", "capability-equality"},
      {"if getSMVersion() == 120:\n", "capability-equality"},
      {"if cap[0] in [9, 10, 11]:\n", "capability-membership"},
      {"if not arch == Arch.sm_120a:\n", "capability-equality"},
      {"if sm_version not in {100, 103}:\n", "capability-membership"},
      {"if arch // 10 == 10:\n", "capability-equality"},
      {"if torch.cuda.get_device_capability() == (12, 0):\n", "capability-equality"},
      {"if capability != (9, 0):\n", "capability-equality"},
      {"if (12, 0) == cap:\n", "capability-equality"},
      {"supported = device in [(8, 9), (12, 0)]\n", "capability-membership"},
  };
  for (const Case& c : cases) {
    const auto fs = lint(c.code, SourceKind::Python);
    ASSERT_EQ(fs.size(), 1u) << c.code << " -> " << rules(fs);
    EXPECT_EQ(fs[0].rule, c.rule) << c.code;
    EXPECT_FALSE(fs[0].rewrite.empty()) << c.code;
  }
}

TEST(LintPython, Rewrites) {
  EXPECT_EQ(lint("ok = cap == (12, 0)\n", SourceKind::Python).at(0).rewrite, "(12, 0) <= cap < (13, 0)");
  EXPECT_EQ(lint("ok = arch in [89, 120]\n", SourceKind::Python).at(0).rewrite, "89 <= arch < 90 or 120 <= arch < 130");
  EXPECT_EQ(lint("ok = sm not in {100, 103}\n", SourceKind::Python).at(0).rewrite, "not (100 <= sm < 110)");
}

TEST(LintPython, CleanCode) {
  const char* clean =
      "# arch == 120 in a comment\n"
      "msg = 'arch == 120 in a string'\n"
      "if (12, 0) <= torch.cuda.get_device_capability() < (13, 0):\n"
      "    pass\n"
      "if capability >= 89:\n"
      "    pass\n"
      "if sys.version_info.major == 3:\n"
      "    pass\n"
      "if x in [1, 2, 3]:\n"
      "    pass\n"
      "if n == 120:\n"
      "    pass\n"
      "if len(shape) == 2 and dtype in [torch.float8_e4m3fn]:\n"
      "    pass\n";
  EXPECT_EQ(rules(lint(clean, SourceKind::Python)), "");
}

// ---- CMake ------------------------------------------------------------------

TEST(LintCMake, ArchListsMissingTheSiblingMinor) {
  EXPECT_EQ(rules(lint("set(CMAKE_CUDA_ARCHITECTURES 89 90 120)\n", SourceKind::CMake)), "cmake-arch-list@1");
  EXPECT_EQ(rules(lint("set(TORCH_CUDA_ARCH_LIST \"8.9;9.0a;10.0a;12.0a\")\n", SourceKind::CMake)),
            "cmake-arch-list@1 cmake-arch-list@1");
  EXPECT_EQ(
      rules(lint("target_compile_options(k PRIVATE\n  -gencode=arch=compute_120a,code=sm_120a)\n", SourceKind::CMake)),
      "cmake-arch-list@2");
  EXPECT_EQ(rules(lint("set(CUDA_ARCHS 100 103 120 121)\n", SourceKind::CMake)), "");
  EXPECT_EQ(rules(lint("set(CUDA_ARCHS 100f 120f)\n", SourceKind::CMake)), "");
  EXPECT_EQ(rules(lint("cmake_minimum_required(VERSION 3.24)\n# CUDA_ARCHITECTURES 120\n", SourceKind::CMake)), "");
}

TEST(LintPaths, FilesDirectoriesAndErrors) {
  const std::string dir = std::string(FP8KIT_SOURCE_DIR) + "/tests/audit/lint_corpus";
  LintReport r = lint_paths({dir});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.files, 2u);
  EXPECT_EQ(r.findings.size(), 2u);
  r = lint_paths({dir + "/missing.cu", std::string(FP8KIT_SOURCE_DIR) + "/.gitignore"});
  EXPECT_EQ(r.errors.size(), 2u);
}

}  // namespace
}  // namespace fp8kit::audit::test
