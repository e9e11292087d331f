// fp8kit lint on one source: each pattern of the bug class is a case, graded
// by what the GPU the test misses gets (docs/lint.md); range tests, family
// tests (majors), compiler versions, counts and shapes are clean. Files,
// directories and the CLI: test_lint_paths.cpp.
#include <gtest/gtest.h>

#include "audit/lint.hpp"
#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

std::vector<LintFinding> lint(const std::string& text, SourceKind kind) { return lint_source(text, kind, "x"); }

// "rule@line" per finding; with severities "rule@line:severity".
std::string rules(const std::vector<LintFinding>& fs, bool severity = false) {
  std::string s;
  for (const auto& f : fs)
    s += (s.empty() ? "" : " ") + f.rule + "@" + std::to_string(f.line) +
         (severity ? std::string(":") + severity_name(f.severity) : "");
  return s;
}

std::string graded(const std::string& text, SourceKind kind) { return rules(lint(text, kind), true); }

// An arch guard around real code whose #else traps: what the GPU a test misses compiles.
std::string stub_guard(const std::string& cond) { return "#if " + cond + "\n work();\n#else\n __trap();\n#endif\n"; }

// ---- C++ / CUDA ------------------------------------------------------------

TEST(LintCpp, ArchMacroEquality) {
  auto fs = lint(stub_guard("__CUDA_ARCH__ == 1200"), SourceKind::Cpp);
  ASSERT_EQ(rules(fs, true), "arch-macro-equality@1:error arch-guard-else@3:error");
  EXPECT_EQ(fs[0].column, 5);
  EXPECT_EQ(fs[0].text, "__CUDA_ARCH__ == 1200");
  EXPECT_EQ(fs[0].rewrite, "(__CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300)");
  EXPECT_EQ(fs[0].consequence, Consequence::Traps);
  EXPECT_EQ(fs[0].reason, "a 12.1 GPU traps: it compiles the #else at line 3, which traps");
  // An empty guarded region hands 12.1 nothing worse than another configuration.
  EXPECT_EQ(graded("#if __CUDA_ARCH__ == 1200\n#endif\n", SourceKind::Cpp), "arch-macro-equality@1:warning");
  fs = lint("#if 1200 != __CUDA_ARCH__\n#endif\n", SourceKind::Cpp);
  ASSERT_EQ(rules(fs), "arch-macro-equality@1");
  EXPECT_EQ(fs[0].rewrite, "!(__CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300)");
  EXPECT_EQ(rules(lint("#if (__CUDA_ARCH__==900)\n#endif\n", SourceKind::Cpp)), "arch-macro-equality@1");
}

TEST(LintCpp, ArchMacroComparedWithANamedConstant) {
  // ggml's style: `#define GGML_CUDA_CC_DGX_SPARK 1210`, then `__CUDA_ARCH__ == GGML_CUDA_CC_DGX_SPARK`.
  auto fs = lint("#define SM120 1200\n#define TILE 128\n#if __CUDA_ARCH__ == SM120\n#else\n __trap();\n#endif\n"
                 "#if TILE == __CUDA_ARCH__\n#endif\n#if SM120 != __CUDA_ARCH__\n __trap();\n#endif\n",
                 SourceKind::Cpp);
  ASSERT_EQ(rules(fs, true),
            "arch-macro-equality@3:error arch-guard-else@4:error arch-macro-equality@9:error");
  EXPECT_EQ(fs[0].text, "__CUDA_ARCH__ == SM120");
  EXPECT_EQ(fs[0].rewrite, "(__CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300)");
  EXPECT_NE(fs[0].message.find("SM120 (1200)"), std::string::npos) << fs[0].message;
  EXPECT_EQ(fs[2].rewrite, "!(__CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300)");
  EXPECT_EQ(fs[2].reason, "a 12.1 GPU traps: it compiles the #if at line 9, which traps");
  // Ranges on named constants stay clean.
  EXPECT_EQ(rules(lint("#define SM120 1200\n#if __CUDA_ARCH__ >= SM120\n#endif\n", SourceKind::Cpp)), "");
}

TEST(LintCpp, SeverityByFamily) {
  // 10.3 and 12.1 exist: error. 9.0 is alone in its family: warning (only a future 9.x traps).
  EXPECT_EQ(graded(stub_guard("__CUDA_ARCH__ == 1000"), SourceKind::Cpp),
            "arch-macro-equality@1:error arch-guard-else@3:error");
  EXPECT_EQ(graded(stub_guard("__CUDA_ARCH__ == 900"), SourceKind::Cpp),
            "arch-macro-equality@1:warning arch-guard-else@3:warning");
  // 8.x minors differ: a note, unless an #else stub reaches a sibling (8.7 here).
  EXPECT_EQ(graded("#if __CUDA_ARCH__ == 860\n#endif\n", SourceKind::Cpp), "arch-macro-equality@1:note");
  EXPECT_EQ(graded(stub_guard("__CUDA_ARCH__ == 860"), SourceKind::Cpp),
            "arch-macro-equality@1:error arch-guard-else@3:error");
  // A test that names both members of the family: only a future minor is missed.
  EXPECT_EQ(graded(stub_guard("__CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030"), SourceKind::Cpp),
            "arch-macro-equality@1:warning arch-macro-equality@1:warning arch-guard-else@3:warning");
  // A file that tests the sibling itself elsewhere (one kernel per minor) says so.
  const auto fs = lint(stub_guard("__CUDA_ARCH__ == 1200") + stub_guard("__CUDA_ARCH__ == 1210"), SourceKind::Cpp);
  ASSERT_EQ(rules(fs, true), "arch-macro-equality@1:warning arch-guard-else@3:warning arch-macro-equality@6:warning "
                             "arch-guard-else@8:warning");
  EXPECT_NE(fs[0].reason.find("the file tests 12.1 itself at line 6"), std::string::npos) << fs[0].reason;
  EXPECT_EQ(fs[2].reason.find("passes"), std::string::npos) << fs[2].reason;  // 12.0 does not pass `== 1210`
  // Another family's value elsewhere in the chain does not cover this one; 8.9 is the last 8.x.
  EXPECT_EQ(graded("#if __CUDA_ARCH__ == 890\n a();\n#elif __CUDA_ARCH__ == 1200\n b();\n#else\n __trap();\n#endif\n",
                   SourceKind::Cpp),
            "arch-macro-equality@1:note arch-macro-equality@3:error arch-guard-else@5:error");
}

TEST(LintCpp, SpecificMacrosInNewClothes) {
  EXPECT_EQ(rules(lint("#if __CUDA_ARCH_FAMILY_SPECIFIC__ == 1200\n#endif\n", SourceKind::Cpp)),
            "arch-macro-equality@1");
  EXPECT_EQ(
      rules(lint("#if defined(__CUDA_ARCH_SPECIFIC__) && __CUDA_ARCH_SPECIFIC__ == 1000\n#endif\n", SourceKind::Cpp)),
      "arch-macro-equality@1");
}

TEST(LintCpp, TrappingElseOfAnEqualityGuard) {
  const auto fs = lint(test::read_file_text("vllm_guard.cu"), SourceKind::Cpp);
  EXPECT_EQ(rules(fs, true), "arch-macro-equality@3:error arch-guard-else@5:error");
}

TEST(LintCpp, ElseBranchesThatDoNothingOrTrap) {
  // Below a lower bound or outside a range, a stub is by design: a note.
  const char* empty_else = "#if __CUDA_ARCH__ >= 890\n  work();\n#else\n#endif\n";
  EXPECT_EQ(graded(empty_else, SourceKind::Cpp), "arch-guard-else@3:note");
  const char* print_trap =
      "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000\n work();\n#else\n"
      "  printf(\"not supported on this arch\\n\");\n  __trap();\n#endif\n";
  EXPECT_EQ(graded(print_trap, SourceKind::Cpp), "arch-guard-else@3:note");
  const char* void_casts =
      "#ifdef __CUDA_ARCH_FEAT_SM90_ALL\n work(a, b);\n#else\n  (void)a;\n  (void)b;\n  return;\n#endif\n";
  EXPECT_EQ(graded(void_casts, SourceKind::Cpp), "arch-guard-else@3:note");
  const char* assert_else = "#if __CUDA_ARCH__ >= 800\n work();\n#else\n  assert(false && \"sm80+\");\n#endif\n";
  EXPECT_EQ(graded(assert_else, SourceKind::Cpp), "arch-guard-else@3:note");
  // An exact guard's stub goes to the sibling: an error even on 8.x, for the test and its stub.
  EXPECT_EQ(graded("#if __CUDA_ARCH__ == 800\n work();\n#else\n  __trap();\n#endif\n", SourceKind::Cpp),
            "arch-macro-equality@1:error arch-guard-else@3:error");
}

TEST(LintCpp, WholeBodyExactGuardWithoutElse) {
  const char* src =
      "template <typename K> struct enable_sm120_only : K {\n"
      "  __device__ void operator()() {\n"
      "#if defined __CUDA_ARCH__ && __CUDA_ARCH__ == 1200\n"
      "    K::operator()();\n"
      "#endif\n"
      "  }\n"
      "};\n";
  EXPECT_EQ(graded(src, SourceKind::Cpp), "arch-guard-else@3:error arch-macro-equality@3:error");
  // A range around a body is the ordinary way to stub other families.
  EXPECT_EQ(graded("__global__ void k() {\n#if __CUDA_ARCH__ >= 900\n work();\n#endif\n}\n", SourceKind::Cpp), "");
}

TEST(LintCpp, FeatureMacrosWithoutTheirSibling) {
  const char* fast_path = "#if defined(__CUDA_ARCH_FEAT_SM100_ALL)\n fast();\n#endif\n slow();\n";
  EXPECT_EQ(graded(fast_path, SourceKind::Cpp), "arch-feature-macro@1:warning");
  const char* stub = "#if defined(__CUDA_ARCH_FEAT_SM120_ALL)\n work();\n#else\n __trap();\n#endif\n";
  const auto fs = lint(stub, SourceKind::Cpp);
  EXPECT_EQ(rules(fs, true), "arch-feature-macro@1:error arch-guard-else@3:error");
  EXPECT_EQ(fs[0].reason, "a 12.1 GPU traps: it compiles the #else at line 3, which traps");
  EXPECT_EQ(fs[0].rewrite, "defined(__CUDA_ARCH_FEAT_SM120_ALL) || defined(__CUDA_ARCH_FEAT_SM121_ALL)");
  EXPECT_EQ(graded("#if defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL)\n#endif\n",
                   SourceKind::Cpp),
            "");
  EXPECT_EQ(graded("#if 0 && defined(__CUDA_ARCH_FEAT_SM100_ALL)\n#endif\n", SourceKind::Cpp), "");
}

TEST(LintCpp, GuardTemplateUsesInTheSameFile) {
  const std::string src = test::read_file_text("vllm_guard_template.cuh") +
                          "using K = enable_sm120_only<Gemm>;\n"
                          "struct enable_sm120_only;\n";
  const auto fs = lint(src, SourceKind::Cpp);
  ASSERT_FALSE(fs.empty());
  const LintFinding& use = fs.back();
  EXPECT_EQ(use.rule, "arch-guard-use");
  EXPECT_EQ(use.severity, Severity::Error);
  EXPECT_NE(use.rewrite.find("(__CUDA_ARCH__ >= 1200 && __CUDA_ARCH__ < 1300)"), std::string::npos) << use.rewrite;
}

TEST(LintCpp, CleanCode) {
  EXPECT_EQ(rules(lint(test::read_file_text("clean.cu"), SourceKind::Cpp)), "");
  EXPECT_EQ(rules(lint("#if __CUDA_ARCH__ >= 800\n cp_async();\n#else\n  plain_copy();\n#endif\n", SourceKind::Cpp)),
            "");
  EXPECT_EQ(rules(lint("#if defined(__CUDA_ARCH__)\n#else\n#endif\n", SourceKind::Cpp)), "");
  EXPECT_EQ(rules(lint("#if __CUDA_ARCH__ >= 800\n#define X 1\n#else\n#define X 0\n#endif\n", SourceKind::Cpp)), "");
  EXPECT_EQ(rules(lint("if (kind == 2 && version == 8 && n != 120) {}\n", SourceKind::Cpp)), "");
  // Compiler versions, SM counts, tag dispatch, family (major) tests.
  EXPECT_EQ(rules(lint("#if __CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ == 8\n#endif\n", SourceKind::Cpp)), "");
  EXPECT_EQ(rules(lint("if (CUDA_VERSION == 12080) {}\n", SourceKind::Cpp)), "");
  EXPECT_EQ(rules(lint("if (sm_count == 148 || num_sms == 132) {}\n", SourceKind::Cpp)), "");
  EXPECT_EQ(rules(lint("if constexpr (ArchTag::kMinComputeCapability == 90) {}\n", SourceKind::Cpp)), "");
  EXPECT_EQ(rules(lint("if (prop.major == 10 || arch_major == 9 || get_arch_major() != 10) {}\n", SourceKind::Cpp)),
            "");
}

TEST(LintCpp, HostSideCapabilityEquality) {
  EXPECT_EQ(graded("if (getSMVersion() != 120) throw std::runtime_error(\"sm120 only\");\n", SourceKind::Cpp),
            "capability-equality@1:error");
  // Another path for the sibling: a warning; a flag whose name says nothing: another configuration.
  EXPECT_EQ(graded("if (getSMVersion() == 120) {}\n", SourceKind::Cpp), "capability-equality@1:warning");
  auto fs = lint("bool ok = sm_version != 90;\n", SourceKind::Cpp);
  ASSERT_EQ(rules(fs, true), "capability-equality@1:note");  // no other 9.x GPU exists; a future one is not refused
  EXPECT_EQ(fs[0].rewrite, "!(sm_version >= 90 && sm_version < 100)");
  EXPECT_EQ(rules(lint("bool ok = prop.major >= 9;\n", SourceKind::Cpp)), "");
  EXPECT_EQ(graded("bool supported = version_num == 120;\n", SourceKind::Cpp), "capability-equality@1:error");
  EXPECT_EQ(graded("TORCH_CHECK(prop.major == 12 && prop.minor == 0, \"12.0 only\");\n", SourceKind::Cpp),
            "capability-equality@1:error");
  EXPECT_EQ(graded("TORCH_CHECK(major == 10 && (minor == 0 || minor == 3));\n", SourceKind::Cpp),
            "capability-equality@1:warning");
  // Beside an `a` target, whose cubin runs on that exact GPU only; a feature macro of the build is none.
  EXPECT_EQ(graded("switch (a) {\n  case CudaArch::Sm100a:\n    return smVersion == 100;\n}\n", SourceKind::Cpp),
            "capability-equality@3:note");
  EXPECT_EQ(graded("#ifdef CUTLASS_ARCH_MMA_SM100A_SUPPORTED\n#endif\nif (smVersion != 100) throw 1;\n", SourceKind::Cpp),
            "capability-equality@3:error");
}

TEST(LintCpp, HostTestsInArchMacroUnits) {
  // lmdeploy's `arch == 1200`: ten times the capability, as __CUDA_ARCH__ counts.
  auto fs = lint("std::string_view pick(int arch) {\n  if (arch == 1200) {\n    return kSm120;\n  }\n  return {};\n}\n",
                 SourceKind::Cpp);
  ASSERT_EQ(rules(fs, true), "capability-equality@2:error");
  EXPECT_EQ(fs[0].rewrite, "(arch >= 1200 && arch < 1300)");
  EXPECT_EQ(fs[0].reason, "a 12.1 GPU is refused: `pick` declines it (`return {};` at line 5, the code after the if)");
  fs = lint("if (problem.arch != 1200) throw 1;\n", SourceKind::Cpp);
  ASSERT_EQ(rules(fs, true), "capability-equality@1:error");
  EXPECT_EQ(fs[0].rewrite, "!(problem.arch >= 1200 && problem.arch < 1300)");
  EXPECT_EQ(graded("if (arch != 900) throw 1;\n", SourceKind::Cpp), "capability-equality@1:warning");
  // Not a capability: a name that is no arch, a value no arch has, a range.
  EXPECT_EQ(graded("if (n == 1200 || arch == 1205 || arch >= 1200) {}\n", SourceKind::Cpp), "");
}

// ---- Python ---------------------------------------------------------------

// A function whose exact test lets the GPUs it names run and refuses the
// rest: `accept` true when the test is true for the named GPUs.
std::string refusing(const std::string& cond, bool accept) {
  return accept ? "def pick():\n    if " + cond + ":\n        return run()\n    raise RuntimeError('unsupported')\n"
                : "def pick():\n    if " + cond + ":\n        raise RuntimeError('unsupported')\n    return run()\n";
}

TEST(LintPython, PatternsFromTheWild) {
  struct Case {
    std::string code;
    const char* graded;
  } cases[] = {
      {refusing("arch in [89, 120]", true), "capability-membership@2:error"},
      {refusing("arch == 120", true), "capability-equality@2:error"},
      {refusing("torch.cuda.get_device_capability() not in [(8, 9), (12, 0)]", false), "capability-membership@2:error"},
      {refusing("getSMVersion() == 120", true), "capability-equality@2:error"},
      {refusing("not arch == Arch.sm_120a", false), "capability-equality@2:error"},
      {refusing("sm_version not in {100, 103}", false), "capability-membership@2:warning"},
      {refusing("torch.cuda.get_device_capability() == (12, 0)", true), "capability-equality@2:error"},
      {refusing("capability != (9, 0)", false), "capability-equality@2:warning"},
      {refusing("(12, 0) == cap", true), "capability-equality@2:error"},
      {"supported = device in [(8, 9), (12, 0)]\n", "capability-membership@1:error"},
      {refusing("current_platform.is_device_capability(120)", true), "capability-equality@2:error"},
      {refusing("not is_sm_version(10, 0)", false), "capability-equality@2:error"},
      {"def is_supported(cap):\n    return cap is not None and cap.to_int() == 100\n", "capability-equality@2:error"},
      {refusing("(cc_major, cc_minor) == (10, 0)", true), "capability-equality@2:error"},
      {refusing("major == 12 and minor == 0", true), "capability-equality@2:error"},
      {refusing("major * 10 + minor == 120", true), "capability-equality@2:error"},
      {refusing("torch.cuda.get_device_capability()[0] == 12 and torch.cuda.get_device_capability()[1] == 0", true),
       "capability-equality@2:error"},
      {refusing("cap in ((10, 0), (10, 3))", true), "capability-membership@2:warning"},
      {refusing("(major, minor) not in [(10, 0), (12, 0)]", false), "capability-membership@2:error"},
      {refusing("sm in [\"120\", \"121\"]", true), "capability-membership@2:warning"},
      {refusing("arch == \"100\"", true), "capability-equality@2:error"},
      {refusing("capability.startswith(\"10.0\")", true), "capability-equality@2:error"},
  };
  for (const Case& c : cases) {
    const auto fs = lint(c.code, SourceKind::Python);
    EXPECT_EQ(rules(fs, true), c.graded) << c.code;
    for (const auto& f : fs) EXPECT_FALSE(f.rewrite.empty()) << c.code;
  }
  // The same tests with another path for the GPUs they miss: warnings.
  EXPECT_EQ(graded("def pick(arch):\n    if arch == 120:\n        return fast()\n    return generic()\n", SourceKind::Python),
            "capability-equality@2:warning");
}

TEST(LintPython, Rewrites) {
  EXPECT_EQ(lint("ok = cap == (12, 0)\n", SourceKind::Python).at(0).rewrite, "(12, 0) <= cap < (13, 0)");
  EXPECT_EQ(lint("ok = arch in [89, 120]\n", SourceKind::Python).at(0).rewrite, "89 <= arch < 90 or 120 <= arch < 130");
  EXPECT_EQ(lint("ok = sm not in {100, 103}\n", SourceKind::Python).at(0).rewrite, "not (100 <= sm < 110)");
  EXPECT_EQ(lint("ok = major == 12 and minor == 0\n", SourceKind::Python).at(0).rewrite, "major == 12");
  EXPECT_EQ(lint("ok = p.is_device_capability(120)\n", SourceKind::Python).at(0).rewrite,
            "(p.has_device_capability(120) and not p.has_device_capability(130))");
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
      "    pass\n"
      // Family tests, loops, shapes, counts, toolkit versions.
      "if major == 10 or cap[0] in [9, 10, 11] or arch // 10 == 12:\n"
      "    pass\n"
      "for cc in [(8, 0), (9, 0)]:\n"
      "    pass\n"
      "xs = [f(c) for c in [(8, 9), (12, 0)]]\n"
      "if BN in [(128, 128), (128, 256)]:\n"
      "    pass\n"
      "if sm_count == 148 or torch_cuda_version.major == 12:\n"
      "    pass\n"
      "if p.is_device_capability_family(100):\n"
      "    pass\n";
  EXPECT_EQ(rules(lint(clean, SourceKind::Python)), "");
}

TEST(LintPython, TestsSplitOverLines) {
  // Each statement is reported once, at its first line, with its text on one line.
  const char* split =
      "# Capability tests written over several lines (fp8kit lint reads a statement\n"
      "# whose parentheses stay open, or that ends in a `\\`, as one line).\n"
      "import torch\n"
      "from vllm.platforms import current_platform\n"
      "\n"
      "\n"
      "def pick(device, cap, use_cutlass):\n"
      "    if current_platform.is_device_capability(\n"
      "            120):\n"
      "        return \"sm120\"\n"
      "    if torch.cuda.get_device_capability(\n"
      "            device) == (12, 0):\n"
      "        return \"sm120 again\"\n"
      "    if (torch.cuda.get_device_capability()\n"
      "            == (10, 0)):\n"
      "        return \"sm100\"\n"
      "    if is_sm_version(10,\n"
      "                     0):\n"
      "        return \"sm100 again\"\n"
      "    if cap == \\\n"
      "            (9, 0):\n"
      "        return \"sm90\"\n"
      "    # Family tests over lines stay clean.\n"
      "    if torch.cuda.get_device_capability(\n"
      "            device)[0] == 12:\n"
      "        return \"sm12x\"\n"
      "    if current_platform.has_device_capability(\n"
      "            100):\n"
      "        return \"sm100+\"\n"
      "    return foo(device,\n"
      "               use_cutlass)\n";
  const auto fs = lint(split, SourceKind::Python);
  EXPECT_EQ(rules(fs), "capability-equality@8 capability-equality@11 capability-equality@14 capability-equality@17 "
                       "capability-equality@20");
  ASSERT_GE(fs.size(), 2u);
  EXPECT_EQ(fs[1].text, "torch.cuda.get_device_capability( device) == (12, 0)");
  EXPECT_EQ(fs[1].rewrite, "(12, 0) <= torch.cuda.get_device_capability( device) < (13, 0)");
}

TEST(LintCpp, TestsSplitOverLines) {
  EXPECT_EQ(graded("if (prop.major != 12 ||\n    prop.minor != 0) throw 1;\n", SourceKind::Cpp),
            "capability-equality@1:error");
  EXPECT_EQ(graded("bool supported(int dev) {\n  return getSMVersion(\n    dev) == 120;\n}\n", SourceKind::Cpp),
            "capability-equality@2:error");
  // A call left open for more than a few lines is not joined (data, not a test).
  EXPECT_EQ(graded("f(a,\n b,\n c,\n d,\n e,\n g,\n h) == 120;\n", SourceKind::Cpp), "");
}

// ---- CMake ------------------------------------------------------------------

TEST(LintCMake, RemovalsAreNoTargets) {
  // lmdeploy: `a` targets appended, then taken out again for MSVC.
  EXPECT_EQ(graded("list(APPEND CMAKE_CUDA_ARCHITECTURES 90a-real 100a-real)\n"
                   "if (MSVC)\n  list(REMOVE_ITEM CMAKE_CUDA_ARCHITECTURES 90a-real 100a-real)\nendif()\n",
                   SourceKind::CMake),
            "cmake-arch-list@1:error");
}

TEST(LintCMake, ArchLists) {
  // An `a` target alone: the sibling cannot load it.
  EXPECT_EQ(graded("set(TORCH_CUDA_ARCH_LIST \"8.9;9.0a;10.0a;12.0a\")\n", SourceKind::CMake),
            "cmake-arch-list@1:error cmake-arch-list@1:error");
  EXPECT_EQ(graded("target_compile_options(k PRIVATE\n  -gencode=arch=compute_120a,code=sm_120a)\n", SourceKind::CMake),
            "cmake-arch-list@2:error");
  // A plain 12.0 cubin runs on 12.1: a note, advising the family target.
  const auto fs = lint("set(CMAKE_CUDA_ARCHITECTURES 89 90 120)\n", SourceKind::CMake);
  ASSERT_EQ(rules(fs, true), "cmake-arch-list@1:note");
  EXPECT_NE(fs[0].rewrite.find("120f"), std::string::npos);
  EXPECT_EQ(rules(lint("set(CUDA_ARCHS 100a 103a 120a 121a)\n", SourceKind::CMake)), "");
  EXPECT_EQ(rules(lint("set(CUDA_ARCHS 100f 120f)\n", SourceKind::CMake)), "");
  EXPECT_EQ(rules(lint("cmake_minimum_required(VERSION 3.24)\n# CUDA_ARCHITECTURES 120\n", SourceKind::CMake)), "");
  // Completed by a later list(APPEND); versions are no targets.
  EXPECT_EQ(rules(lint("set(ARCHS 90a 100a)\nif(CUDA_VERSION VERSION_GREATER_EQUAL 12.9)\n"
                       "  list(APPEND ARCHS 103a)\nendif()\n",
                       SourceKind::CMake)),
            "");
  EXPECT_EQ(rules(lint("if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0 AND CUDA_ARCHS)\nendif()\n",
                       SourceKind::CMake)),
            "");
}

}  // namespace
}  // namespace fp8kit::audit::test
