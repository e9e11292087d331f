// The family rule (grade.hpp), on records and on the fixtures end to end.
#include <gtest/gtest.h>

#include "audit/grade.hpp"
#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

arch::Image sass(int a, arch::Variant v = arch::Variant::Plain) { return {arch::ImageKind::Sass, a, v}; }

KernelRecord stub(Outcome o, int gpu, std::vector<arch::Image> real_on) {
  KernelRecord r;
  r.outcome = o;
  r.gpu = gpu;
  r.has_image = true;
  r.real_on = std::move(real_on);
  return r;
}

Severity graded(KernelRecord r, bool requested = true) {
  grade(r, requested);
  EXPECT_FALSE(r.reason.empty());
  return r.severity;
}

TEST(Grade, TheFamilyRule) {
  const auto a = arch::Variant::ArchSpecific, f = arch::Variant::FamilySpecific;
  // Same family, loadable there, real on an earlier minor: the seed bug (sm_120 real, sm_121 trap).
  EXPECT_EQ(graded(stub(Outcome::TrapStub, 121, {sass(120)})), Severity::Error);
  // Real only on a later minor (a lower bound, or a kernel for that part: cuSPARSELt's
  // sm_87-only kernels are empty on 8.0 and 8.6): a warning, which --strict counts.
  EXPECT_EQ(graded(stub(Outcome::TrapStub, 120, {sass(121)})), Severity::Warning);
  EXPECT_EQ(graded(stub(Outcome::Empty, 80, {sass(87)})), Severity::Warning);
  EXPECT_EQ(graded(stub(Outcome::Empty, 86, {sass(80), sass(87)})), Severity::Error);
  EXPECT_EQ(graded(stub(Outcome::Empty, 103, {sass(100, f)})), Severity::Error);
  // Same family, only an `a` image of another capability: a build gap.
  EXPECT_EQ(graded(stub(Outcome::TrapStub, 121, {sass(120, a)})), Severity::Warning);
  EXPECT_EQ(graded(stub(Outcome::TrapStub, 103, {sass(100, a), sass(90, a)})), Severity::Warning);
  // Only other families: arch-specific by design.
  EXPECT_EQ(graded(stub(Outcome::TrapStub, 120, {sass(90, a)})), Severity::Note);
  EXPECT_EQ(graded(stub(Outcome::Empty, 90, {sass(80), sass(86)})), Severity::Note);
  // Traps in every image (cuDNN's persistent RNN kernels).
  EXPECT_EQ(graded(stub(Outcome::TrapStub, 90, {})), Severity::Note);
  // Missing: an error for a GPU the caller named, a warning on the survey list.
  EXPECT_EQ(graded(stub(Outcome::Missing, 121, {sass(120, a)}), true), Severity::Error);
  EXPECT_EQ(graded(stub(Outcome::Missing, 121, {sass(120, a)}), false), Severity::Warning);
}

const KernelRecord* offender(const AuditReport& r, const std::string& kernel, int gpu) {
  for (const KernelRecord& o : r.offenders)
    if (o.gpu == gpu && o.kernel.find(kernel) != std::string::npos) return &o;
  return nullptr;
}

TEST(Grade, Fixtures) {
  const AuditReport eq = audit_one(fixture("eq_guard.o"), {120, 121});
  ASSERT_NE(offender(eq, "eq_guard", 121), nullptr);
  EXPECT_EQ(offender(eq, "eq_guard", 121)->severity, Severity::Error);
  EXPECT_NE(offender(eq, "eq_guard", 121)->reason.find("same family"), std::string::npos);
  EXPECT_TRUE(eq.has_findings());
  EXPECT_EQ(eq.count(Severity::Error), 1u);

  // CUTLASS-style sm90a kernels: a note on 12.x, real on 9.0; no finding even with --strict.
  const AuditReport n = audit_one(fixture("feat_90a.o"), {90, 120, 121});
  ASSERT_NE(offender(n, "feat_guard", 121), nullptr);
  EXPECT_EQ(offender(n, "feat_guard", 121)->severity, Severity::Note);
  EXPECT_EQ(offender(n, "feat_guard", 90), nullptr);
  EXPECT_FALSE(n.has_findings(true));

  // sm_120a real but no sm_121a: a warning on 12.1, which --strict counts.
  const AuditReport w = audit_one(fixture("feat_90a_120a.o"), {90, 120, 121});
  ASSERT_NE(offender(w, "feat_guard", 121), nullptr);
  EXPECT_EQ(offender(w, "feat_guard", 121)->severity, Severity::Warning);
  EXPECT_FALSE(w.has_findings());
  EXPECT_TRUE(w.has_findings(true));

  // Empty on sm_89 where only sm_120 (another family) has real code: a note.
  const AuditReport e = audit_one(fixture("range_guard_89.o"), {89, 120});
  ASSERT_EQ(e.offenders.size(), 1u);
  EXPECT_EQ(e.offenders[0].severity, Severity::Note);

  // A print-and-trap kernel with one image traps everywhere: a note.
  const AuditReport p = audit_one(fixture("plain.o"), {120});
  ASSERT_NE(offender(p, "print_trap", 120), nullptr);
  EXPECT_EQ(offender(p, "print_trap", 120)->severity, Severity::Note);
  EXPECT_FALSE(p.has_findings());
}

}  // namespace
}  // namespace fp8kit::audit::test
