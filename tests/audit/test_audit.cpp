// End to end: each fixture plants one case of docs/audit.md.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

::testing::AssertionResult outcome_is(const AuditReport& r, const std::string& kernel, int gpu, Outcome want,
                                      const std::string& image = "") {
  const KernelRecord* k = find_record(r, kernel, gpu);
  if (!k) return ::testing::AssertionFailure() << kernel << " has no record for " << gpu;
  if (k->outcome != want)
    return ::testing::AssertionFailure() << kernel << " on " << gpu << ": " << outcome_name(k->outcome) << ", want "
                                         << outcome_name(want);
  if (!image.empty() && (!k->has_image || image_name(k->image) != image))
    return ::testing::AssertionFailure() << kernel << " on " << gpu << " loads "
                                         << (k->has_image ? image_name(k->image) : "nothing") << ", want " << image;
  return ::testing::AssertionSuccess();
}

TEST(Audit, EqualityGuardFlags121Only) {
  for (const char* f : {"eq_guard.o", "eq_guard_lz4.o", "eq_guard_zstd.o", "eq_guard.fatbin"}) {
    SCOPED_TRACE(f);
    const AuditReport r = audit_one(fixture(f), {120, 121});
    ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
    EXPECT_TRUE(outcome_is(r, "eq_guard", 120, Outcome::Sass, "sm_120"));
    EXPECT_TRUE(outcome_is(r, "eq_guard", 121, Outcome::TrapStub, "sm_121"));
    ASSERT_EQ(r.offenders.size(), 1u);
    EXPECT_EQ(r.offenders[0].demangled, "eq_guard_kernel(float*)");
    ASSERT_EQ(r.offenders[0].real_on.size(), 1u);
    EXPECT_EQ(image_name(r.offenders[0].real_on[0]), "sm_120");
    EXPECT_TRUE(r.has_findings());
    EXPECT_EQ(r.per_gpu[1].trap, 1u);
    EXPECT_EQ(r.per_gpu[0].trap, 0u);
  }
  // Only 12.0 requested: clean.
  EXPECT_FALSE(audit_one(fixture("eq_guard.o"), {120}).has_findings());
}

TEST(Audit, RangeGuardIsClean) {
  const AuditReport r = audit_one(fixture("range_guard.o"), {120, 121, 123});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_FALSE(r.has_findings());
  EXPECT_TRUE(outcome_is(r, "range_guard", 123, Outcome::Sass, "sm_121"));
}

TEST(Audit, Sm120SassRunsOn121) {
  const AuditReport r = audit_one(fixture("sm120_only.o"), {120, 121});
  EXPECT_FALSE(r.has_findings());
  EXPECT_TRUE(outcome_is(r, "range_guard", 121, Outcome::Sass, "sm_120"));
}

TEST(Audit, Sm120aDoesNotLoadOn121) {
  const AuditReport r = audit_one(fixture("sm120a_only.o"), {120, 121});
  EXPECT_TRUE(outcome_is(r, "range_guard", 120, Outcome::Sass, "sm_120a"));
  EXPECT_TRUE(outcome_is(r, "range_guard", 121, Outcome::Missing));
  EXPECT_TRUE(r.has_findings());
  // On the default survey list a missing image is reported, not a finding.
  const AuditReport survey = audit_files({fixture("sm120a_only.o")}, AuditOptions{});
  EXPECT_FALSE(survey.has_findings());
  ASSERT_EQ(survey.offenders.size(), 1u);
  EXPECT_EQ(survey.offenders[0].outcome, Outcome::Missing);
}

TEST(Audit, Sm120fCoversTheFamily) {
  const AuditReport r = audit_one(fixture("sm120f_only.o"), {120, 121, 90});
  EXPECT_FALSE(r.has_findings());
  EXPECT_TRUE(outcome_is(r, "range_guard", 121, Outcome::Sass, "sm_120f"));
  EXPECT_TRUE(outcome_is(r, "range_guard", 90, Outcome::NotBuilt));
}

TEST(Audit, PtxOnlyIsJit) {
  const AuditReport r = audit_one(fixture("ptx_only.o"), {110, 120, 121, 130});
  EXPECT_FALSE(r.has_findings());
  EXPECT_TRUE(outcome_is(r, "range_guard", 121, Outcome::Jit, "compute_120"));
  EXPECT_TRUE(outcome_is(r, "range_guard", 130, Outcome::Jit, "compute_120"));
  EXPECT_TRUE(outcome_is(r, "range_guard", 110, Outcome::NotBuilt));
  EXPECT_EQ(r.per_gpu[2].jit, 1u);
}

TEST(Audit, EmptyBodyWithRealSiblingIsASilentNoOp) {
  const AuditReport r = audit_one(fixture("range_guard_89.o"), {89, 120});
  EXPECT_TRUE(outcome_is(r, "range_guard", 89, Outcome::Empty, "sm_89"));
  ASSERT_EQ(r.offenders.size(), 1u);
  EXPECT_EQ(image_name(r.offenders[0].real_on.at(0)), "sm_120");
  EXPECT_FALSE(r.has_findings());  // reported as a warning
}

TEST(Audit, BenignTrapAndLoneEmptyKernel) {
  const AuditReport r = audit_one(fixture("plain.o"), {120});
  EXPECT_TRUE(outcome_is(r, "plain_kernel", 120, Outcome::Sass));
  EXPECT_TRUE(outcome_is(r, "print_trap", 120, Outcome::TrapStub));
  EXPECT_TRUE(outcome_is(r, "empty_kernel", 120, Outcome::Empty));
  ASSERT_EQ(r.offenders.size(), 1u);  // the empty kernel has no real sibling: counted, not flagged
  EXPECT_EQ(r.per_gpu[0].empty, 1u);
}

TEST(Audit, RdcObject) {
  const AuditReport r = audit_one(fixture("rdc_a.o"), {120, 121});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(outcome_is(r, "rdc_kernel", 121, Outcome::Sass, "sm_120"));
  EXPECT_NE(r.records.at(0).where.find("__nv_relfatbin"), std::string::npos);
}

TEST(Audit, ArchiveMemberByMember) {
  const AuditReport r = audit_one(fixture("libfixtures.a"), {120, 121});
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].containers, 3u);
  const KernelRecord* k = find_record(r, "eq_guard", 121);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->outcome, Outcome::TrapStub);
  EXPECT_NE(k->where.find("[eq_guard.o]"), std::string::npos) << k->where;
}

TEST(Audit, SharedLibraryOfSeveralObjects) {
  const AuditReport r = audit_one(fixture("libfixshared.so"), {120, 121});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_GE(r.inputs.at(0).containers, 3u);  // and cudart's own
  EXPECT_EQ(r.per_gpu[1].trap, 2u);          // eq_guard, print_trap (from the ZSTD object)
  EXPECT_EQ(r.per_gpu[1].sass, 2u);          // range_guard, plain_kernel
  EXPECT_EQ(r.per_gpu[0].trap, 1u);          // print_trap
  EXPECT_TRUE(outcome_is(r, "eq_guard", 121, Outcome::TrapStub, "sm_121"));
}

TEST(Audit, StandaloneCubin) {
  const AuditReport r = audit_one(fixture("eq_guard_121.cubin"), {120, 121});
  EXPECT_TRUE(outcome_is(r, "eq_guard", 121, Outcome::TrapStub, "sm_121"));
  EXPECT_TRUE(outcome_is(r, "eq_guard", 120, Outcome::Missing));  // sm_121 cannot run on 12.0
}

TEST(Audit, FatbinsAndCubinsEmbeddedElsewhere) {
  // A host ELF with a fatbin and a cubin appended after its sections, as
  // vendor libraries keep some in .rodata.
  auto host = read_file(fixture("range_guard.o"));
  host.resize((host.size() + 7) & ~std::size_t{7}, 0);
  const auto fat = read_file(fixture("eq_guard.fatbin"));
  host.insert(host.end(), fat.begin(), fat.end());
  host.resize((host.size() + 127) & ~std::size_t{127}, 0);
  const auto cubin = read_file(fixture("eq_guard_121.cubin"));
  host.insert(host.end(), cubin.begin(), cubin.end());
  const std::string path = temp_path("embedded.o");
  write_file(path, host);
  const AuditReport r = audit_one(path, {121});
  std::remove(path.c_str());
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.per_gpu[0].kernels, 3u);  // range_guard + eq_guard twice
  EXPECT_EQ(r.per_gpu[0].trap, 2u);
}

TEST(Audit, KernelFilterAndDefaults) {
  AuditOptions o;
  o.kernel_regex = "plain_";
  const AuditReport r = audit_files({fixture("plain.o")}, o);
  EXPECT_EQ(r.gpus, default_gpus());
  for (const GpuSummary& g : r.per_gpu) EXPECT_EQ(g.kernels, 1u);
  EXPECT_FALSE(r.has_findings());
  o.kernel_regex = "(";
  EXPECT_FALSE(audit_files({fixture("plain.o")}, o).errors.empty());
}

TEST(Audit, GpuNames) {
  int cap = 0;
  std::string why;
  for (const char* s : {"sm_121", "12.1", "121", "sm_121a", "compute_121"}) {
    EXPECT_TRUE(parse_gpu(s, &cap, &why)) << s;
    EXPECT_EQ(cap, 121);
  }
  EXPECT_TRUE(parse_gpu("9.0", &cap, &why));
  EXPECT_EQ(cap, 90);
  for (const char* s : {"", "sm_", "12.10", "abc", "5", "1000"}) EXPECT_FALSE(parse_gpu(s, &cap, &why)) << s;
}

#ifdef FP8KIT_CLI
int cli(const std::string& args, std::string* out = nullptr) {
  return run_command(std::string("'") + FP8KIT_CLI + "' " + args + " 2>/dev/null", out);
}

TEST(AuditCli, ExitCodes) {
  EXPECT_EQ(cli("audit " + fixture("eq_guard.o") + " --gpu 12.1"), 1);
  EXPECT_EQ(cli("audit " + fixture("eq_guard.o") + " --gpu sm_120"), 0);
  EXPECT_EQ(cli("audit " + fixture("range_guard.o")), 0);
  EXPECT_EQ(cli("audit " + fixture("sm120a_only.o") + " --gpu 121"), 1);
  EXPECT_EQ(cli("audit /nonexistent/file.so"), 2);
  EXPECT_EQ(cli("audit " + std::string(FP8KIT_SOURCE_DIR) + "/CMakeLists.txt"), 2);
  EXPECT_EQ(cli("audit " + fixture("eq_guard.o") + " --gpu 12.x"), 2);
}

TEST(AuditCli, Json) {
  std::string out;
  EXPECT_EQ(cli("audit --json --gpu 12.0 --gpu 12.1 " + fixture("eq_guard.o"), &out), 1);
  for (const char* key : {"\"offenders\"", "\"summary\"", "\"real_on\"", "\"sm_120\"", "\"trap\"", "\"exit_code\": 1"})
    EXPECT_NE(out.find(key), std::string::npos) << key << "\n" << out;
}

TEST(LintCli, ExitCodes) {
  const std::string dir = std::string(FP8KIT_SOURCE_DIR) + "/tests/audit/lint_corpus";
  EXPECT_EQ(cli("lint " + dir + "/clean.cu"), 0);
  EXPECT_EQ(cli("lint " + dir + "/vllm_guard.cu"), 1);
  EXPECT_EQ(cli("lint /nonexistent"), 2);
  std::string out;
  EXPECT_EQ(cli("lint --json " + dir + "/vllm_guard.cu", &out), 1);
  EXPECT_NE(out.find("\"rewrite\""), std::string::npos);
}
#endif

}  // namespace
}  // namespace fp8kit::audit::test
