// fp8kit lint over files and directories: names and guard templates
// followed across files, CMake advice that follows the guards of the sources
// a list builds, what is read and set aside, errors, and the CLI's exit codes
// and JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "audit/lint.hpp"
#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

TEST(LintPaths, NamedArchConstantsAreFollowedAcrossFiles) {
  namespace fs = std::filesystem;
  const fs::path dir = temp_path("lint_named");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string header = "#pragma once\n#define CC_BLACKWELL 1200\n#define CC_SPARK 1210\n";
  const std::string kernel = "#include \"common.cuh\"\n#if __CUDA_ARCH__ == CC_BLACKWELL\n work();\n#else\n"
                             " return;\n#endif\n#if __CUDA_ARCH__ >= CC_SPARK\n#endif\n";
  std::ofstream((dir / "common.cuh").string()) << header;
  std::ofstream((dir / "mmvq.cu").string()) << kernel;
  const LintReport r = lint_paths({dir.string()});
  fs::remove_all(dir);
  ASSERT_EQ(r.findings.size(), 2u);  // the comparison with the other file's name, and its empty #else
  EXPECT_EQ(r.findings[0].file.substr(r.findings[0].file.rfind('/') + 1), "mmvq.cu");
  EXPECT_EQ(r.findings[0].line, 2);
  EXPECT_EQ(r.findings[0].rule, "arch-macro-equality");
  EXPECT_EQ(r.findings[0].severity, Severity::Error);
  EXPECT_EQ(r.findings[0].reason, "a 12.1 GPU runs an empty body: it compiles the #else at line 4, which does nothing");
}

std::string corpus_dir() { return std::string(FP8KIT_SOURCE_DIR) + "/tests/audit/lint_corpus"; }

std::string by_file(const LintReport& r) {
  std::string s;
  for (const auto& f : r.findings) {
    const std::string name = f.file.substr(f.file.rfind('/') + 1);
    s += (s.empty() ? "" : " ") + name + ":" + f.rule + "@" + std::to_string(f.line) + ":" + severity_name(f.severity);
  }
  return s;
}

// The findings of the top-level fixtures (classes/ has its own tests).
LintReport top_level(LintReport r) {
  r.findings.erase(std::remove_if(r.findings.begin(), r.findings.end(),
                                  [](const LintFinding& f) { return f.file.find("/classes/") != std::string::npos; }),
                   r.findings.end());
  return r;
}

TEST(LintPaths, GuardTemplatesAreFollowedToTheirUsesInOtherFiles) {
  const LintReport r = top_level(lint_paths({corpus_dir()}));
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.files, 5u + 13u);  // and the 13 files of classes/
  EXPECT_EQ(r.skipped, 1u);      // tests/
  EXPECT_EQ(by_file(r),
            "arch_lists.cmake:cmake-arch-list@3:error "
            "scaled_mm_sm120.cu:arch-guard-use@8:error "
            "vllm_guard.cu:arch-macro-equality@3:error vllm_guard.cu:arch-guard-else@5:error "
            "vllm_guard_template.cuh:arch-macro-equality@11:error vllm_guard_template.cuh:arch-guard-else@13:error");
  for (const auto& f : r.findings)
    if (f.rule == "arch-guard-use") {
      EXPECT_NE(f.message.find("vllm_guard_template.cuh:7"), std::string::npos) << f.message;
      EXPECT_NE(f.rewrite.find("__CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300"), std::string::npos);
    }
}

TEST(LintPaths, CMakeAdviceFollowsTheGuardsThatRemain) {
  // Alone, a 12.0;12.1 list is right; beside an exact guard it ships the trap.
  EXPECT_EQ(by_file(lint_paths({corpus_dir() + "/arch_lists.cmake"})), "");
  const LintReport r = lint_paths({corpus_dir() + "/arch_lists.cmake", corpus_dir() + "/vllm_guard.cu"});
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].rule, "cmake-arch-list");
  EXPECT_NE(r.findings[0].rewrite.find("120f"), std::string::npos);
  EXPECT_NE(r.findings[0].reason.find("vllm_guard.cu:3"), std::string::npos) << r.findings[0].reason;
  // A list told to add 12.1 is warned while the guard remains in a source it builds.
  const std::string tmp = temp_path("lint_a_only");
  std::filesystem::create_directories(tmp);
  std::ofstream(tmp + "/CMakeLists.txt") << "set(CUDA_ARCHS 90a 120a)\nadd_library(k ${CORPUS}/vllm_guard.cu)\n";
  const LintReport a = lint_paths({tmp, corpus_dir() + "/vllm_guard.cu"});
  // Findings come sorted by path, and where the checkout lies decides which file is first.
  const auto cmake = std::find_if(a.findings.begin(), a.findings.end(),
                                  [](const LintFinding& f) { return f.rule == "cmake-arch-list"; });
  ASSERT_NE(cmake, a.findings.end());
  EXPECT_NE(cmake->rewrite.find("do not add the sibling"), std::string::npos) << cmake->rewrite;
}

TEST(LintPaths, TestsExamplesAndBenchmarksOnlyWhenAsked) {
  LintOptions o;
  o.include_tests = true;
  const LintReport r = lint_paths({corpus_dir()}, o);
  EXPECT_EQ(r.files, 6u + 13u);
  EXPECT_EQ(r.skipped, 0u);
  EXPECT_NE(by_file(r).find("test_arch.py:capability-equality@3:warning"), std::string::npos) << by_file(r);
  // A file named on the command line is always read.
  EXPECT_EQ(lint_paths({corpus_dir() + "/tests/test_arch.py"}).findings.size(), 1u);
}

TEST(LintPaths, FilesDirectoriesAndErrors) {
  const std::string dir = corpus_dir();
  LintReport r = lint_paths({dir});
  EXPECT_TRUE(r.errors.empty());
  r = lint_paths({dir + "/missing.cu", std::string(FP8KIT_SOURCE_DIR) + "/.gitignore"});
  EXPECT_EQ(r.errors.size(), 2u);
}

#ifdef FP8KIT_CLI
int lint_cli(const std::string& args, std::string* out = nullptr) {
  return run_command(std::string("'") + FP8KIT_CLI + "' lint " + args + " 2>/dev/null", out);
}

TEST(LintCli, SeverityStrictAndJson) {
  const std::string warn = temp_path("lint_warning_only.cu");
  std::ofstream(warn) << "#if __CUDA_ARCH__ == 900\n work();\n#else\n __trap();\n#endif\n";  // only a future 9.x traps
  EXPECT_EQ(lint_cli(warn), 0);  // a warning alone does not fail
  EXPECT_EQ(lint_cli("--strict " + warn), 1);
  std::string out;
  EXPECT_EQ(lint_cli("--json " + warn, &out), 0);
  for (const char* key : {"\"severity\": \"warning\"", "\"consequence\": \"traps\"", "\"reason\"", "\"counts\"",
                          "\"skipped\"", "\"exit_code\": 0"})
    EXPECT_NE(out.find(key), std::string::npos) << key << "\n" << out;
  EXPECT_EQ(lint_cli(corpus_dir(), &out), 1);
  EXPECT_NE(out.find("error: arch-guard-use"), std::string::npos) << out;
  EXPECT_NE(out.find("set aside: --include-tests"), std::string::npos) << out;
}
#endif

}  // namespace
}  // namespace fp8kit::audit::test
