// fp8kit gemm from the command line: the format's options checked before any
// GPU work (exit 2, naming the option), and an NVFP4 GEMM of each kind
// checked on a GPU (exit 0).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

#include "test_util.hpp"
#include "tools/exit_codes.hpp"

namespace fp8kit::audit::test {
namespace {

#ifdef FP8KIT_CLI
int gemm(const std::string& args, std::string* out = nullptr, bool keep_stderr = false) {
  return run_command(std::string("'") + FP8KIT_CLI + "' gemm " + args + (keep_stderr ? " 2>&1" : " 2>/dev/null"),
                     out);
}

TEST(GemmCli, RefusesOptionsOfTheOtherFormat) {
  const struct {
    const char* args;
    const char* named;
  } cases[] = {
      {"--b nvfp4 --a e4m3", "--a e4m3"},
      {"--b nvfp4 --a bf16 --scales block", "--scales"},
      {"--b nvfp4 --a nvfp4 --accumulate fast", "--accumulate"},
      {"--a bf16", "--a bf16"},
      {"--b e5m2 --a nvfp4", "--a nvfp4"},
      {"--nvfp4-scales linear", "--nvfp4-scales"},
  };
  for (const auto& c : cases) {
    std::string out;
    EXPECT_EQ(gemm(c.args, &out, true), tools::kExitBadInput) << c.args;
    EXPECT_NE(out.find(c.named), std::string::npos) << c.args << ": " << out;
  }
  EXPECT_EQ(gemm("--b nvfp4 --a e4m3 --nvfp4-scales banded"), tools::kExitBadInput);  // CLI11's own check
}

TEST(GemmCli, Nvfp4OfEachKindOnTheGpu) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    GTEST_SKIP() << "no CUDA GPU on this machine";
  }
  for (const char* args : {"--b nvfp4 --a nvfp4 -m 16 -n 384 -k 1024",
                           "--b nvfp4 --a bf16 -m 200 -n 256 -k 512 --bias bf16",
                           "--b nvfp4 --a f16 -m 3 -n 128 -k 96 --nvfp4-scales linear --out f32"}) {
    std::string out;
    EXPECT_EQ(gemm(std::string(args) + " --iters 2 --json", &out), tools::kExitOk) << args << "\n" << out;
    for (const char* key : {"\"ok\": true", "\"median_us\"", "\"label\": \"nvfp4 "})
      EXPECT_NE(out.find(key), std::string::npos) << args << ": " << key << "\n" << out;
  }
}
#endif

}  // namespace
}  // namespace fp8kit::audit::test
