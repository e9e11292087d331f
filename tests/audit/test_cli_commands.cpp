// fp8kit gemm and info from the command line. gemm: the format's options
// checked before any GPU work (exit 2, naming the option), and an NVFP4 GEMM
// of each kind checked on a GPU (exit 0). info: the NVFP4 paths per family.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

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

// Without a GPU, info lists every family; its NVFP4 paths are in AUTO's order
// (the block-scaled FP4 mma first where it loads), none below 7.5, and an
// unseen SM12x minor gets the paths 12.1 gets (the family image).
TEST(InfoCli, Nvfp4PathsPerFamily) {
  std::string out;
  ASSERT_EQ(run_command(std::string("'") + FP8KIT_CLI + "' info --json 2>/dev/null", &out), tools::kExitOk);
  const nlohmann::json j = nlohmann::json::parse(out);
  const nlohmann::json& rows = j.contains("families") ? j["families"] : j["gpus"];
  ASSERT_FALSE(rows.empty());
  std::map<std::string, std::vector<std::string>> by_cap;  // capability -> path names
  int listed = 0;
  for (const auto& r : rows) {
    ASSERT_TRUE(r.contains("nvfp4_paths")) << r.dump();
    const nlohmann::json& p = r["nvfp4_paths"];
    std::vector<std::string>& names = by_cap[r["capability"].get<std::string>()];
    for (size_t i = 0; i < p.size(); ++i) {
      const std::string path = p[i]["path"].get<std::string>();
      names.push_back(path);
      EXPECT_TRUE(path == "sm120_mma" || path == "sm90_wgmma" || path == "sm75_hmma") << path;
      if (path == "sm120_mma") EXPECT_EQ(i, 0u) << r.dump();
      EXPECT_FALSE(p[i]["image"].get<std::string>().empty());
    }
    listed += !p.empty();
  }
  if (!j.contains("families")) return;  // a GPU machine lists its GPUs only
  EXPECT_GT(listed, 0) << "no family loads an NVFP4 kernel of this build";
  EXPECT_TRUE(by_cap.at("7.0").empty());
  EXPECT_EQ(by_cap.at("12.3"), by_cap.at("12.1"));
}
#endif

}  // namespace
}  // namespace fp8kit::audit::test
