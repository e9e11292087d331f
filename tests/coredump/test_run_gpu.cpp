// On a GPU: the seed's story end to end. `fp8kit run` on the planted seed (an
// equality-guarded "FP8 GEMM" whose sm_90 image is a trap stub, then an
// innocent rms_norm, then a sync) must name the GEMM, its trap-stub image
// and the sm_80 sibling with real code, and must not blame rms_norm. And a
// fault in real code (planted/real_fault.cu) must be shown at its instruction.
#include <gtest/gtest.h>

#include <csignal>

#include "coredump_test_util.hpp"

namespace fp8kit::coredump::test {
namespace {

TEST(CoredumpGpu, RunNamesTheTrapStubGemmNotTheInnocentKernel) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  if (cli().empty()) GTEST_SKIP() << "the CLI is not built";
  std::string out;
  const int code = run_command(quote(cli()) + " run -- " + quote(planted("seed")), &out);
  // The driver aborts the process once the dump is written (SIGABRT: 128 + 6).
  EXPECT_EQ(code, 128 + SIGABRT) << out;
  EXPECT_NE(out.find("launch rms_norm_kernel: no error"), std::string::npos) << out;
  const std::size_t diag = out.find("fp8kit run: the GPU wrote a core dump");
  ASSERT_NE(diag, std::string::npos) << out;
  const std::string d = out.substr(diag);
  EXPECT_NE(d.find("trap: the warp executed BPT.TRAP"), std::string::npos) << d;
  EXPECT_NE(d.find("kernel     fp8_scaled_gemm_kernel("), std::string::npos) << d;
  EXPECT_NE(d.find("sm_90, the image this GPU ran: a trap stub"), std::string::npos) << d;
  EXPECT_NE(d.find("real code on sm_80"), std::string::npos) << d;
  EXPECT_NE(d.find("the equality-guard signature"), std::string::npos) << d;
  EXPECT_EQ(d.find("kernel     rms_norm_kernel"), std::string::npos) << d;
}

// A fault nobody planted as a stub: a row-dot kernel with real work whose last
// block loads a float4 4 bytes past alignment. The diagnosis must name the
// kernel, say its image is real code, and show the instruction at the error
// PC with its width and what a misaligned address means for it.
TEST(CoredumpGpu, RunShowsTheFaultingInstructionOfRealCode) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  if (cli().empty()) GTEST_SKIP() << "the CLI is not built";
  std::string out;
  const int code = run_command(quote(cli()) + " run -- " + quote(planted("real_fault")), &out);
  EXPECT_EQ(code, 128 + SIGABRT) << out;
  const std::size_t diag = out.find("fp8kit run: the GPU wrote a core dump");
  ASSERT_NE(diag, std::string::npos) << out;
  const std::string d = out.substr(diag);
  EXPECT_NE(d.find("warp misaligned address"), std::string::npos) << d;
  EXPECT_NE(d.find("kernel     row_dot_kernel("), std::string::npos) << d;
  EXPECT_NE(d.find("the image this GPU ran: real code"), std::string::npos) << d;
  EXPECT_NE(d.find("!> +"), std::string::npos) << d;  // the error PC in the listing
  EXPECT_NE(d.find("insn       LDG.128 at entry+0x"), std::string::npos) << d;
  EXPECT_NE(d.find("a 16-byte global load"), std::string::npos) << d;
  EXPECT_EQ(d.find("its name is absent"), std::string::npos) << d;  // the device is named
}

// --no-abort: the program goes on and sees the error at its sync (a trap
// reports 719; docs/explain.md says which faults the driver then hides).
TEST(CoredumpGpu, NoAbortLetsTheProgramSeeTheError) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  if (cli().empty()) GTEST_SKIP() << "the CLI is not built";
  std::string out;
  EXPECT_EQ(run_command(quote(cli()) + " run --no-abort -- " + quote(planted("seed")), &out), 1) << out;
  EXPECT_NE(out.find("unspecified launch failure"), std::string::npos) << out;
  EXPECT_NE(out.find("kernel     fp8_scaled_gemm_kernel("), std::string::npos) << out;
}

}  // namespace
}  // namespace fp8kit::coredump::test
