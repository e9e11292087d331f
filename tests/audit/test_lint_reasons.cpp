// fp8kit lint: every reason is true of its example. Each claim a reason makes
// about the source ("`raise ValueError(...)` at line 7", "the #else at line 5,
// which traps", "the file tests 10.3 itself at line 6 (`...`)") is checked
// against the lines of the fixture it was made on, and the grade against the
// consequence; and each class of misgrading found on real code has its
// planted fixture in lint_corpus/classes/ with the grades it must get.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "audit/lint.hpp"
#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

std::string corpus() { return std::string(FP8KIT_SOURCE_DIR) + "/tests/audit/lint_corpus"; }
std::string classes() { return corpus() + "/classes"; }

std::vector<std::string> file_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string line_of(const std::vector<std::string>& lines, int n) {
  return n >= 1 && static_cast<std::size_t>(n) <= lines.size() ? lines[static_cast<std::size_t>(n) - 1] : "";
}

// "`raise ValueError(...)`" -> "raise ValueError": the part a quote shows verbatim.
std::string verbatim(std::string q) {
  for (const char* cut : {"(...)", "..."}) {
    const std::size_t p = q.find(cut);
    if (p != std::string::npos) q = q.substr(0, p);
  }
  return q;
}

// The text with runs of white space as one space, as the linter quotes code.
std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// The claims of one finding's reason, checked against its file. Returns what is false.
std::vector<std::string> false_claims(const LintFinding& f) {
  std::vector<std::string> wrong;
  const std::vector<std::string> lines = file_lines(f.file);
  const std::string& r = f.reason;
  auto check = [&](bool ok, const std::string& claim) {
    if (!ok) wrong.push_back(claim);
  };
  // "`X` at line N": X stands on line N.
  static const std::regex quoted("`([^`]+)`(?: \\(set)? at line (\\d+)");
  for (auto it = std::sregex_iterator(r.begin(), r.end(), quoted); it != std::sregex_iterator(); ++it) {
    const std::string text = verbatim((*it)[1].str());
    const int n = std::stoi((*it)[2].str());
    check(squeeze(line_of(lines, n)).find(squeeze(text)) != std::string::npos,
          "`" + text + "` is not on line " + std::to_string(n));
  }
  // "the #else at FILE:N, which traps" (a guard told of in another file's finding).
  static const std::regex other("the #(if|elif|else) at (/[^:]+):(\\d+), which traps");
  std::smatch o;
  if (std::regex_search(r, o, other)) {
    const std::vector<std::string> theirs = file_lines(o[2].str());
    const int n = std::stoi(o[3].str());
    check(squeeze(line_of(theirs, n)).rfind("#" + o[1].str(), 0) == 0, o[2].str() + ":" + o[3].str() + " is no #" + o[1].str());
    std::string text;
    for (int k = n + 1; k <= static_cast<int>(theirs.size()) && squeeze(line_of(theirs, k)).rfind("#", 0) != 0; ++k)
      text += line_of(theirs, k);
    check(text.find("trap") != std::string::npos, "the branch after " + o[2].str() + ":" + o[3].str() + " does not trap");
  }
  // "the #else at line N" and the other directives.
  static const std::regex directive("the #(if|elif|else) at line (\\d+)");
  for (auto it = std::sregex_iterator(r.begin(), r.end(), directive); it != std::sregex_iterator(); ++it) {
    const std::string l = squeeze(line_of(lines, std::stoi((*it)[2].str())));
    check(l.rfind("#" + (*it)[1].str(), 0) == 0 || l.rfind("# " + (*it)[1].str(), 0) == 0,
          "line " + (*it)[2].str() + " is no #" + (*it)[1].str());
  }
  // "the if body at line N", "the else at line N", "its own test follows at line N", ...
  static const std::regex branch("(the if body|the else|own test follows|may hold it follows|skips the if body|"
                                 "the code after the if) at line (\\d+)");
  for (auto it = std::sregex_iterator(r.begin(), r.end(), branch); it != std::sregex_iterator(); ++it) {
    const std::string l = line_of(lines, std::stoi((*it)[2].str()));
    const std::string what = (*it)[1].str();
    if (what == "the else") check(l.find("else") != std::string::npos, "line " + (*it)[2].str() + " holds no else");
    if (what == "the if body" || what == "own test follows" || what == "skips the if body")
      check(l.find("if") != std::string::npos, "line " + (*it)[2].str() + " holds no if");
    if (what == "may hold it follows")
      check(std::regex_search(l, std::regex("[<>]=?")), "line " + (*it)[2].str() + " holds no range test");
  }
  // ", which traps" / ", which does nothing" after "the #else at line N": its body.
  static const std::regex body("the #(?:if|elif|else) at line (\\d+), which (traps|does nothing|only prints)");
  std::smatch m;
  if (std::regex_search(r, m, body)) {
    std::string text;
    for (int n = std::stoi(m[1].str()) + 1; n <= static_cast<int>(lines.size()); ++n) {
      const std::string l = squeeze(line_of(lines, n));
      if (l.rfind("#", 0) == 0) break;
      text += l + " ";
    }
    const bool traps = text.find("trap") != std::string::npos;
    if (m[2] == "traps") check(traps, "the branch after line " + m[1].str() + " does not trap");
    if (m[2] == "does nothing") check(!traps && text.find("printf") == std::string::npos, "that branch does something");
  }
  // "the file tests 10.3 itself at line N (`T`)".
  static const std::regex elsewhere("the file tests ([0-9.]+) itself at line (\\d+) \\(`([^`]+)`\\)");
  if (std::regex_search(r, m, elsewhere))
    check(squeeze(line_of(lines, std::stoi(m[2].str()))).find(m[3].str()) != std::string::npos,
          "line " + m[2].str() + " does not test " + m[1].str());
  // "the guard at line N holds the whole body": an #if right after a `{`.
  static const std::regex whole("the guard at line (\\d+) holds the whole body");
  if (std::regex_search(r, m, whole)) {
    const int n = std::stoi(m[1].str());
    check(squeeze(line_of(lines, n)).rfind("#if", 0) == 0, "line " + m[1].str() + " is no #if");
    check(squeeze(line_of(lines, n - 1)).find('{') != std::string::npos, "no body opens before line " + m[1].str());
  }
  // "via `NAME`": the name is the file's.
  static const std::regex via("via `([A-Za-z_]\\w*)`");
  if (std::regex_search(r, m, via)) {
    bool named = false;
    for (const std::string& l : lines) named |= l.find(m[1].str()) != std::string::npos;
    check(named, m[1].str() + " is not in the file");
  }
  return wrong;
}

// The grade follows the consequence: an error breaks a GPU of today and says
// nothing is meant; a warning that breaks says why it is no error.
std::vector<std::string> false_grade(const LintFinding& f) {
  std::vector<std::string> wrong;
  const std::string& r = f.reason;
  const bool meant = r.find("so the choice looks meant") != std::string::npos ||
                     r.find("so the exact match is meant") != std::string::npos ||
                     r.find("toolkit requirement") != std::string::npos;
  const bool future = r.find("a future ") != std::string::npos;
  if (f.severity == Severity::Error) {
    if (!breaks(f.consequence)) wrong.push_back("an error whose GPU does not break");
    if (meant || future) wrong.push_back("an error that says it is meant or only future");
    static const std::regex today(R"((?:^|: )an? (?:8\.[6-9]|10\.3|12\.1) GPU )");
    if (!std::regex_search(r, today)) wrong.push_back("an error that names no GPU of today");
  }
  if (f.severity == Severity::Warning && breaks(f.consequence) && !meant && !future)
    wrong.push_back("a warning that breaks a GPU of today without saying it is meant");
  return wrong;
}

TEST(LintReasons, EveryReasonIsTrueOfItsExample) {
  LintOptions o;
  o.include_tests = true;
  const LintReport r = lint_paths({corpus()}, o);
  ASSERT_GT(r.findings.size(), 30u);
  for (const LintFinding& f : r.findings) {
    for (const std::string& w : false_claims(f))
      ADD_FAILURE() << f.file << ":" << f.line << " " << f.rule << ": " << w << "\n  reason: " << f.reason;
    for (const std::string& w : false_grade(f))
      ADD_FAILURE() << f.file << ":" << f.line << " " << f.rule << " (" << severity_name(f.severity) << ", "
                    << consequence_name(f.consequence) << "): " << w << "\n  reason: " << f.reason;
  }
}

// "rule@line:severity:consequence" of the findings of one fixture.
std::string grades(const std::vector<LintFinding>& fs, const std::string& file) {
  std::string s;
  for (const LintFinding& f : fs)
    if (f.file.size() >= file.size() && f.file.compare(f.file.size() - file.size(), file.size(), file) == 0)
      s += (s.empty() ? "" : " ") + f.rule + "@" + std::to_string(f.line) + ":" + severity_name(f.severity) + ":" +
           consequence_name(f.consequence);
  return s;
}

std::vector<LintFinding> lint_class(const std::string& name) { return lint_paths({classes() + "/" + name}).findings; }

const LintFinding* at_line(const std::vector<LintFinding>& fs, int line) {
  for (const LintFinding& f : fs)
    if (f.line == line) return &f;
  return nullptr;
}

// 1. A cached variable's help string and an option's text are no target lists.
TEST(LintClasses, HelpStringsAreNoArchLists) { EXPECT_EQ(grades(lint_class("help_string.cmake"), ""), ""); }

// 2. A feature macro of the build (CUTLASS_ARCH_MMA_SM100A_SUPPORTED) is no `a`
// target beside the host test that refuses a 10.3 GPU.
TEST(LintClasses, FeatureMacrosAreNoATargets) {
  const auto fs = lint_class("feature_macro_host.cpp");
  EXPECT_EQ(grades(fs, "feature_macro_host.cpp"), "capability-equality@12:error:refused");
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].reason, "a 10.3 GPU is refused: `throw std::runtime_error(...)` at line 15 (the code after the if)");
}

// 3. A sibling tested elsewhere in the file is said to be, and never said to pass.
TEST(LintClasses, SiblingsTestedElsewhereAreNamedWhereTheyAre) {
  const auto fs = lint_class("sibling_elsewhere.cu");
  EXPECT_EQ(grades(fs, "sibling_elsewhere.cu"),
            "arch-macro-equality@3:warning:another configuration arch-macro-equality@6:note:another configuration "
            "arch-macro-equality@12:warning:traps arch-guard-else@14:warning:traps "
            "arch-macro-equality@19:warning:traps arch-guard-else@21:warning:traps");
  const LintFinding* define = at_line(fs, 3);
  ASSERT_NE(define, nullptr);
  EXPECT_EQ(define->reason,
            "a 10.3 GPU gets another configuration: it compiles without lines 3-5; the file tests 10.3 itself at line "
            "6 (`__CUDA_ARCH__ == 1030`)");
  // 10.0 fails `== 1030` (it has its own test): no reason may say every 10.x GPU passes.
  for (const LintFinding& f : fs) EXPECT_EQ(f.reason.find("passes"), std::string::npos) << f.line << ": " << f.reason;
  const LintFinding* stub = at_line(fs, 14);
  ASSERT_NE(stub, nullptr);
  EXPECT_NE(stub->reason.find("a 10.3 GPU traps: it compiles the #else at line 14, which traps; the file tests 10.3 "
                              "itself at line 6"),
            std::string::npos)
      << stub->reason;
}

// 4. Tuning tables and default configurations keyed by an exact capability:
// the GPU they miss gets another configuration, a warning.
TEST(LintClasses, TuningTablesAreWarnings) {
  EXPECT_EQ(grades(lint_class("tuning_tables.py"), "tuning_tables.py"),
            "capability-equality@6:warning:another configuration capability-equality@14:warning:another configuration");
  EXPECT_EQ(grades(lint_class("tuning_tables.cpp"), "tuning_tables.cpp"),
            "capability-equality@7:warning:another configuration");
}

// 5. A two-cubin list is related to the exact guards of the sources its
// target builds, not to every guard of the directory.
TEST(LintClasses, ListsRelateToTheSourcesTheyBuild) {
  const auto fs = lint_paths({classes() + "/targets_guarded", classes() + "/targets_clean"}).findings;
  EXPECT_EQ(grades(fs, "targets_guarded/CMakeLists.txt"), "cmake-arch-list@3:error:traps");
  EXPECT_EQ(grades(fs, "targets_clean/CMakeLists.txt"), "");
  for (const LintFinding& f : fs)
    if (f.rule == "cmake-arch-list")
      EXPECT_NE(f.reason.find("guarded_gemm.cu:3"), std::string::npos) << f.reason;
}

// 6. The forms that were not read: a capability table used as a lookup, a
// comparison inside a #define body, capabilities as strings, helper calls
// split over lines with a trailing comma or a keyword.
TEST(LintClasses, FormsThatWereNotRead) {
  EXPECT_EQ(grades(lint_class("capability_tables.py"), "capability_tables.py"),
            "capability-table@6:error:refused capability-table@12:error:refused "
            "capability-table@16:warning:another configuration");
  const auto define = lint_class("define_body.cu");
  EXPECT_EQ(grades(define, "define_body.cu"),
            "arch-macro-equality@2:error:traps capability-equality@3:warning:another configuration "
            "arch-guard-else@8:error:traps");
  ASSERT_FALSE(define.empty());
  EXPECT_EQ(define[0].reason, "a 12.1 GPU traps: via `GEMM_IS_SM120`, it compiles the #else at line 8, which traps");
  EXPECT_EQ(grades(lint_class("string_caps.py"), "string_caps.py"),
            "capability-membership@5:warning:refused capability-equality@11:error:refused "
            "capability-equality@17:error:refused capability-equality@19:warning:refused");
  EXPECT_EQ(grades(lint_class("split_helpers.py"), "split_helpers.py"),
            "capability-equality@6:error:refused capability-equality@14:error:refused");
}

}  // namespace
}  // namespace fp8kit::audit::test
