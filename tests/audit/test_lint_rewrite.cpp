// fp8kit lint rewrites, checked by evaluation: for every rewrite form, the
// original test and its rewrite agree on every capability 7.0 ... 13.9, except
// on the same-family minors newer than a named one (the neighbour the rewrite
// now serves). Negations (`!= 9.0` keeps refusing everything else) and
// membership (`not in`) included; "no safe rewrite" is said, never guessed.
#include <gtest/gtest.h>

#include "audit/lint.hpp"
#include "test_lint_eval.hpp"

namespace fp8kit::audit::test {
namespace {

enum class Enc { Int, Tuple };  // how the case's capability names hold a capability

struct Case {
  const char* code;
  SourceKind kind;
  Enc enc;
  std::vector<int> named;  // the capabilities the test names
};

// What a name evaluates to on the GPU (major, minor).
Value resolve(const std::string& name, const std::vector<Value>* args, int major, int minor, Enc enc) {
  const Value cap_int{{major * 10L + minor}, {}, false};
  const Value cap_tuple{{major, minor}, {}, false};
  if (name.find("__CUDA_ARCH") != std::string::npos) return Value{{major * 100L + minor * 10}, {}, false};
  if (name.find("has_device_capability") != std::string::npos)
    return Value{{cap_int.v[0] >= args->at(0).v.at(0) ? 1L : 0L}, {}, false};
  if (name.find("is_device_capability") != std::string::npos)
    return Value{{cap_int.v[0] == args->at(0).v.at(0) ? 1L : 0L}, {}, false};
  if (name.find("to_int") != std::string::npos) return cap_int;
  if (name.find("major") != std::string::npos) return Value{{major}, {}, false};
  if (name.find("minor") != std::string::npos) return Value{{minor}, {}, false};
  return enc == Enc::Int ? cap_int : cap_tuple;
}

bool allowed_to_differ(int major, int minor, const std::vector<int>& named) {
  for (int n : named)
    if (n / 10 == major && minor > n % 10) return true;
  return false;
}

void check(const Case& c) {
  const auto fs = lint_source(c.code, c.kind, "x");
  ASSERT_FALSE(fs.empty()) << c.code;
  int evaluated = 0;
  for (const LintFinding& f : fs) {
    if (f.rewrite.rfind("no safe rewrite", 0) == 0 || f.rule == "arch-guard-else") continue;
    ++evaluated;
    for (int major = 7; major <= 13; ++major)
      for (int minor = 0; minor <= 9; ++minor) {
        auto r = [&](const std::string& n, const std::vector<Value>* a) { return resolve(n, a, major, minor, c.enc); };
        bool before = false, after = false;
        ASSERT_NO_THROW(before = Eval(f.text, r).truth()) << f.text;
        ASSERT_NO_THROW(after = Eval(f.rewrite, r).truth()) << f.rewrite;
        if (!allowed_to_differ(major, minor, c.named))
          EXPECT_EQ(before, after) << c.code << "\n  " << f.text << "  ->  " << f.rewrite << "\n  differ on "
                                   << major << "." << minor;
        else
          EXPECT_TRUE(after == (f.text.find("!=") == std::string::npos && f.text.find("not") == std::string::npos))
              << f.rewrite << " must serve " << major << "." << minor;
      }
  }
  EXPECT_GT(evaluated, 0) << c.code;
}

const Case kCpp[] = {
    {"#if __CUDA_ARCH__ == 1200\n#endif\n", SourceKind::Cpp, Enc::Int, {120}},
    {"#if __CUDA_ARCH__ != 1200\n#endif\n", SourceKind::Cpp, Enc::Int, {120}},
    {"#if 1000 == __CUDA_ARCH__\n#endif\n", SourceKind::Cpp, Enc::Int, {100}},
    {"#if __CUDA_ARCH_FAMILY_SPECIFIC__ == 1000\n#endif\n", SourceKind::Cpp, Enc::Int, {100}},
    {"if (sm_version == 120) run();\n", SourceKind::Cpp, Enc::Int, {120}},
    {"if (sm_version != 90) return;\n", SourceKind::Cpp, Enc::Int, {90}},
    {"if (getSMVersion() == 100) run();\n", SourceKind::Cpp, Enc::Int, {100}},
    {"bool ok = version_num == 120;\n", SourceKind::Cpp, Enc::Int, {120}},
    {"if (prop.major == 12 && prop.minor == 0) run();\n", SourceKind::Cpp, Enc::Int, {120}},
    {"if (major != 12 || minor != 0) return;\n", SourceKind::Cpp, Enc::Int, {120}},
    {"if (prop.major * 10 + prop.minor == 120) run();\n", SourceKind::Cpp, Enc::Int, {120}},
    {"if (major * 10 + minor != 100) return;\n", SourceKind::Cpp, Enc::Int, {100}},
    {"if (major == 10 && (minor == 0 || minor == 3)) run();\n", SourceKind::Cpp, Enc::Int, {100, 103}},
};

const Case kPython[] = {
    {"ok = cap == (12, 0)\n", SourceKind::Python, Enc::Tuple, {120}},
    {"if capability != (9, 0):\n", SourceKind::Python, Enc::Tuple, {90}},
    {"if (10, 0) == torch.cuda.get_device_capability():\n", SourceKind::Python, Enc::Tuple, {100}},
    {"ok = arch == 120\n", SourceKind::Python, Enc::Int, {120}},
    {"if sm_version != 100:\n", SourceKind::Python, Enc::Int, {100}},
    {"ok = arch in [89, 120]\n", SourceKind::Python, Enc::Int, {89, 120}},
    {"if arch not in [89, 120]:\n", SourceKind::Python, Enc::Int, {89, 120}},
    {"ok = sm not in {100, 103}\n", SourceKind::Python, Enc::Int, {100, 103}},
    {"ok = cap in [(8, 9), (12, 0)]\n", SourceKind::Python, Enc::Tuple, {89, 120}},
    {"if capability not in ((10, 0), (10, 3)):\n", SourceKind::Python, Enc::Tuple, {100, 103}},
    {"if (major, minor) not in [(10, 0), (12, 0)]:\n", SourceKind::Python, Enc::Tuple, {100, 120}},
    {"ok = (cc_major, cc_minor) == (10, 0)\n", SourceKind::Python, Enc::Tuple, {100}},
    {"ok = major == 12 and minor == 0\n", SourceKind::Python, Enc::Int, {120}},
    {"if major != 12 or minor != 0:\n", SourceKind::Python, Enc::Int, {120}},
    {"ok = major * 10 + minor == 120\n", SourceKind::Python, Enc::Int, {120}},
    {"ok = cap[0] == 12 and cap[1] == 0\n", SourceKind::Python, Enc::Tuple, {120}},
    {"if cap[0] != 10 or cap[1] != 0:\n", SourceKind::Python, Enc::Tuple, {100}},
    {"if current_platform.is_device_capability(120):\n", SourceKind::Python, Enc::Int, {120}},
    {"ok = capability.to_int() == 100\n", SourceKind::Python, Enc::Int, {100}},
};

TEST(LintRewrite, CppFormsAgreeExceptOnTheNeighbour) {
  for (const Case& c : kCpp) check(c);
}

TEST(LintRewrite, PythonFormsAgreeExceptOnTheNeighbour) {
  for (const Case& c : kPython) check(c);
}

TEST(LintRewrite, NoGuessWhereNoSafeRewriteExists) {
  const auto e = lint_source("if (arch == Arch::sm_120a) run();\n", SourceKind::Cpp, "x");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rewrite.rfind("no safe rewrite", 0), 0u) << e[0].rewrite;
  const auto t = lint_source("if (cap == (12, 0)) {}\n", SourceKind::Cpp, "x");
  EXPECT_TRUE(t.empty());  // C++ has no tuple literal compare; nothing to flag
}

TEST(LintRewrite, TheEvaluatorItself) {
  auto r = [](const std::string& n, const std::vector<Value>*) {
    return n == "x" ? Value{{12, 1}, {}, false} : Value{{121}, {}, false};
  };
  EXPECT_TRUE(Eval("(12, 0) <= x < (13, 0)", r).truth());
  EXPECT_FALSE(Eval("not ((12, 0) <= x < (13, 0))", r).truth());
  EXPECT_TRUE(Eval("x not in [(12, 0), (10, 0)]", r).truth());
  EXPECT_TRUE(Eval("(y >= 120 && y < 130)", r).truth());
  EXPECT_FALSE(Eval("!(y >= 120 && y < 130)", r).truth());
  EXPECT_TRUE(Eval("y // 10 == 12 and 1 * 10 + 2 == 12", r).truth());
  EXPECT_THROW(Eval("y ==", r).truth(), std::runtime_error);
}

}  // namespace
}  // namespace fp8kit::audit::test
