// fp8kit explain and fp8kit run as a user runs them: exit codes, output, and
// run's environment and pass-through. `run` is exercised without a GPU by a
// child that writes a fixture where the driver would write its dump.
#include <gtest/gtest.h>

#include <filesystem>

#include "coredump_test_util.hpp"

namespace fp8kit::coredump::test {
namespace {

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cli().empty()) GTEST_SKIP() << "the CLI is not built";
  }
  static std::string fp8kit() { return quote(cli()); }
  // A plain dump file made from a fixture, for children to "write".
  static std::string plain_dump(const std::string& name) {
    const std::string path = temp_path(name + ".nvcudmp");
    write_file(path, fixture_dump(name));
    return path;
  }
  // A child that writes `dump` where the driver would, prints, exits `code`.
  static std::string fake_crash(const std::string& dump, int code) {
    return "sh -c " + quote("cp " + quote(dump) + " \"$(dirname \"$CUDA_COREDUMP_FILE\")/gpu.host.42.0.nvcudmp\"; " +
                            "echo child-output; exit " + std::to_string(code));
  }
};

TEST_F(Cli, ExplainExitCodes) {
  std::string out;
  EXPECT_EQ(run_command(fp8kit() + " explain " + quote(fixture_path("seed_noabort")), &out), 1) << out;
  EXPECT_NE(out.find("kernel     fp8_scaled_gemm_kernel("), std::string::npos) << out;
  EXPECT_NE(out.find("a trap stub"), std::string::npos) << out;
  const std::string trunc = temp_path("truncated.nvcudmp");
  std::vector<std::uint8_t> b = fixture_dump("misaligned");
  b.resize(b.size() / 3);
  write_file(trunc, b);
  EXPECT_EQ(run_command(fp8kit() + " explain " + quote(trunc), &out), 2) << out;
  EXPECT_NE(out.find("not a readable GPU core dump"), std::string::npos) << out;
  EXPECT_EQ(run_command(fp8kit() + " explain /nonexistent.nvcudmp", &out), 2) << out;
}

TEST_F(Cli, ExplainWithTheBinaryAndJson) {
  std::string out;
  EXPECT_EQ(run_command(fp8kit() + " explain --json --binary " + quote(planted("seed")) + " " +
                            quote(fixture_path("seed")),
                        &out),
            1);
  EXPECT_NE(out.find("\"kernel\": \"_Z22fp8_scaled_gemm_kernelPKhS0_Pfiii\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"body\": \"trap stub\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"sibling\": \"real_sibling\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"real_on\": [\n        \"sm_80\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"exit_code\": 1"), std::string::npos) << out;
}

// Every exception shows the instruction it blames and what it means; a
// device the dump does not name is said to be unnamed, not printed empty.
TEST_F(Cli, ExplainShowsTheInstructionOfEveryException) {
  const struct {
    const char* fixture;
    const char* insn;
  } cases[] = {{"seed", "insn       BPT.TRAP at entry+0x10"},
               {"misaligned", "insn       LDG.64 at entry+0x70, address 0x"},
               {"oob_store", "insn       STG.32 at entry+0xd0"},
               {"device_assert", "insn       CALL at entry+0x1d0"}};
  for (const auto& c : cases) {
    std::string out;
    EXPECT_EQ(run_command(fp8kit() + " explain " + quote(fixture_path(c.fixture)), &out), 1) << out;
    EXPECT_NE(out.find(c.insn), std::string::npos) << c.fixture << "\n" << out;
    EXPECT_NE(out.find("  meaning    "), std::string::npos) << c.fixture << "\n" << out;
  }
  const std::string unnamed = temp_path("unnamed.nvcudmp");
  write_file(unnamed, without_device_name(fixture_dump("misaligned")));
  std::string out;
  EXPECT_EQ(run_command(fp8kit() + " explain " + quote(unnamed), &out), 1) << out;
  EXPECT_NE(out.find("device 0: its name is absent from the dump, sm_90 (capability 9.0)"), std::string::npos) << out;
  EXPECT_EQ(run_command(fp8kit() + " explain --json " + quote(unnamed), &out), 1) << out;
  EXPECT_NE(out.find("\"name\": null"), std::string::npos) << out;
  EXPECT_NE(out.find("\"instruction\": \"LDG.64\""), std::string::npos) << out;
}

TEST_F(Cli, RunPassesTheChildThrough) {
  std::string out;
  EXPECT_EQ(run_command(fp8kit() + " run -- true", &out), 0) << out;
  EXPECT_EQ(out, "");
  EXPECT_EQ(run_command(fp8kit() + " run -- sh -c 'echo hello; exit 7'", &out), 7) << out;
  EXPECT_EQ(out, "hello\n");
  EXPECT_EQ(run_command(fp8kit() + " run -- sh -c 'kill -TERM $$'", &out), 128 + 15) << out;
  EXPECT_EQ(run_command(fp8kit() + " run -- /nonexistent/program", &out), 127) << out;
  EXPECT_NE(out.find("cannot run /nonexistent/program"), std::string::npos) << out;
}

TEST_F(Cli, RunSetsOnlyTheCoreDumpVariables) {
  std::string out;
  const std::string show =
      "sh -c 'echo \"$CUDA_ENABLE_COREDUMP_ON_EXCEPTION|$CUDA_COREDUMP_GENERATION_FLAGS|$CUDA_COREDUMP_FILE|$MY_VAR\"'";
  EXPECT_EQ(run_command("CUDA_COREDUMP_FILE=/elsewhere MY_VAR=kept " + fp8kit() + " run -- " + show, &out), 0);
  EXPECT_EQ(out.rfind("1|", 0), 0u) << out;
  EXPECT_EQ(out.find("skip_abort"), std::string::npos) << out;  // the driver aborts at the fault
  EXPECT_NE(out.find("skip_global_memory"), std::string::npos) << out;
  EXPECT_NE(out.find("/fp8kit-run-"), std::string::npos) << out;
  EXPECT_EQ(out.find("/elsewhere"), std::string::npos) << out;
  EXPECT_NE(out.find("|kept"), std::string::npos) << out;
  EXPECT_EQ(run_command(fp8kit() + " run --no-abort -- " + show, &out), 0);
  EXPECT_NE(out.find("skip_constbank_memory,skip_abort|"), std::string::npos) << out;
}

TEST_F(Cli, RunExplainsADumpLast) {
  const std::string dump = plain_dump("misaligned");
  std::string out;
  EXPECT_EQ(run_command(fp8kit() + " run -- " + fake_crash(dump, 3), &out), 3) << out;
  const std::size_t child = out.find("child-output"), diag = out.find("fp8kit run: the GPU wrote a core dump");
  ASSERT_NE(child, std::string::npos) << out;
  ASSERT_NE(diag, std::string::npos) << out;
  EXPECT_LT(child, diag);
  EXPECT_NE(out.find("warp misaligned address", diag), std::string::npos) << out;
  EXPECT_EQ(run_command(fp8kit() + " run --exit-code explain -- " + fake_crash(dump, 3), &out), 1) << out;
}

TEST_F(Cli, RunKeepsTheDumpWhenAsked) {
  const std::string dump = plain_dump("device_assert");
  const std::string keep = temp_path("kept");
  std::filesystem::remove_all(keep);
  std::string out;
  EXPECT_EQ(run_command(fp8kit() + " run --keep-core " + quote(keep) + " -- " + fake_crash(dump, 0), &out), 0) << out;
  EXPECT_TRUE(std::filesystem::exists(keep + "/gpu.host.42.0.nvcudmp")) << out;
  EXPECT_NE(out.find("fp8kit explain: " + keep + "/gpu.host.42.0.nvcudmp"), std::string::npos) << out;
}

}  // namespace
}  // namespace fp8kit::coredump::test
