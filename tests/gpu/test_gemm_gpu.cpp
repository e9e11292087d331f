// GPU correctness of every path: fresh random inputs each run, poisoned
// outputs, ragged shapes, every scale mode x input pairing x output dtype x
// bias, against the float64 reference (bound: gpu_harness.hpp). Skipped, and
// reported as skipped, where no GPU is present.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "reference/fp8_codec.hpp"
#include "reference/gemm_check.hpp"
#include "test_expect.hpp"
#include "test_rng.hpp"
#include "test_tables.hpp"

using fp8kit::ref::GemmCase;
using fp8kit::ref::GemmOutcome;

namespace {

using fp8kit::test::expect_correct;
using fp8kit::test::rng;

const fp8kit_path kPaths[] = {FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA, FP8KIT_PATH_SM120_MMA, FP8KIT_PATH_SM89_MMA,
                               FP8KIT_PATH_SM75_HMMA};

using fp8kit::test::kModes;
using fp8kit::test::kOuts;
using fp8kit::test::kPairs;

std::string path_label(fp8kit_path p) { return fp8kit_path_name(p); }

// ---- Every mode x pairing x output x bias on one ragged shape ---------------

using ModeParam = std::tuple<fp8kit_path, int /*mode*/, int /*pair*/, int /*out*/>;
class GemmModes : public ::testing::TestWithParam<ModeParam> {};

TEST_P(GemmModes, MatchesReference) {
  const auto [path, mi, pi, oi] = GetParam();
  GemmCase c{200, 136, 272};  // ragged M and N; K = 2 full 128-blocks + 16
  c.a_mode = kModes[mi].a;
  c.b_mode = kModes[mi].b;
  c.a_type = kPairs[pi].first;
  c.b_type = kPairs[pi].second;
  c.d_type = kOuts[oi];
  const int bias_pick = (mi + pi + oi) % 4;  // cycles none, bf16, f16, f32
  c.bias = bias_pick != 0;
  c.bias_type = bias_pick == 1 ? FP8KIT_DTYPE_BF16 : bias_pick == 2 ? FP8KIT_DTYPE_F16 : FP8KIT_DTYPE_F32;
  expect_correct(c, path);
}

std::string mode_name(const ::testing::TestParamInfo<ModeParam>& info) {
  const auto [path, mi, pi, oi] = info.param;
  return path_label(path) + "_" + kModes[mi].name + "_" + fp8kit_dtype_name(kPairs[pi].first) +
         fp8kit_dtype_name(kPairs[pi].second) + "_" + fp8kit_dtype_name(kOuts[oi]);
}

INSTANTIATE_TEST_SUITE_P(All, GemmModes,
                         ::testing::Combine(::testing::ValuesIn(kPaths), ::testing::Range(0, 6), ::testing::Range(0, 4),
                                            ::testing::Range(0, 3)),
                         mode_name);

// ---- Every mode x output on a shape the Hopper path runs with its wide tile ---
// On a 132-SM H200, 1000 x 4104 is 264 tiles of 128 x 128 (two waves), 176
// of 128 x 192 (two) or 132 of 256 x 128 (one): the host picks 256 x 128,
// whose consumers hold two m64 sub-tiles each. The input pairing and the
// bias type rotate.

using WideParam = std::tuple<fp8kit_path, int /*mode*/, int /*out*/>;
class GemmWideModes : public ::testing::TestWithParam<WideParam> {};

TEST_P(GemmWideModes, MatchesReference) {
  const auto [path, mi, oi] = GetParam();
  GemmCase c{1000, 4104, 272};  // N * 2 bytes a multiple of 16: D rows stay aligned unpadded
  c.a_mode = kModes[mi].a;
  c.b_mode = kModes[mi].b;
  const int pi = (mi + oi) % 4;
  c.a_type = kPairs[pi].first;
  c.b_type = kPairs[pi].second;
  c.d_type = kOuts[oi];
  const int bias_pick = (mi + 2 * oi) % 4;
  c.bias = bias_pick != 0;
  c.bias_type = bias_pick == 1 ? FP8KIT_DTYPE_BF16 : bias_pick == 2 ? FP8KIT_DTYPE_F16 : FP8KIT_DTYPE_F32;
  expect_correct(c, path);
}

std::string wide_name(const ::testing::TestParamInfo<WideParam>& info) {
  const auto [path, mi, oi] = info.param;
  return path_label(path) + "_" + kModes[mi].name + "_" + fp8kit_dtype_name(kOuts[oi]);
}

INSTANTIATE_TEST_SUITE_P(Wide, GemmWideModes,
                         ::testing::Combine(::testing::Values(FP8KIT_PATH_AUTO, FP8KIT_PATH_SM90_WGMMA),
                                            ::testing::Range(0, 6), ::testing::Range(0, 3)),
                         wide_name);

// ---- Every mode x output on the Hopper path's wide-N tiles -----------------
// On a 132-SM H200 these run with the 128 x 192 tile, but for vector scales
// 1000 x 2100 x 400, which runs the 128 x 160 one (Sm90Plan pins them):
// 1000 x 2104 is 136 tiles of 128 x 128 (two waves) but 88 of 128 x 192 or
// 112 of 128 x 160 (one). The 128 x 192 tiles start at
// multiples of 192 columns, so most straddle two 128-blocks of B's scales;
// N = 2104 = 10 x 192 + 184 = 13 x 160 + 24 leaves a ragged last tile
// column, N = 2100 also a tail past the last 16 bytes of D (plain stores);
// 500 x 6100 is a second tile row and 32 tile columns; 1100 x 1976 ends 56
// columns into the last 128 x 192 tile, whose third column group lies past N
// (its scale index is clamped to B's last block).

struct WideNShape {
  int64_t m, n, k;
};
const WideNShape kWideNShapes[] = {{1000, 2104, 272}, {1000, 2100, 400}, {500, 6100, 144}, {1100, 1976, 272}};

using WideNParam = std::tuple<int /*shape*/, int /*mode*/, int /*out*/>;
class GemmSm90WideN : public ::testing::TestWithParam<WideNParam> {};

TEST_P(GemmSm90WideN, MatchesReference) {
  const auto [si, mi, oi] = GetParam();
  const WideNShape& s = kWideNShapes[si];
  GemmCase c{s.m, s.n, s.k};
  c.a_mode = kModes[mi].a;
  c.b_mode = kModes[mi].b;
  const int pi = (si + mi + oi) % 4;
  c.a_type = kPairs[pi].first;
  c.b_type = kPairs[pi].second;
  c.d_type = kOuts[oi];
  const int bias_pick = (si + mi + 2 * oi) % 4;
  c.bias = bias_pick != 0;
  c.bias_type = bias_pick == 1 ? FP8KIT_DTYPE_BF16 : bias_pick == 2 ? FP8KIT_DTYPE_F16 : FP8KIT_DTYPE_F32;
  c.align_d_rows();
  expect_correct(c, FP8KIT_PATH_SM90_WGMMA);
}

std::string wide_n_name(const ::testing::TestParamInfo<WideNParam>& info) {
  const auto [si, mi, oi] = info.param;
  const WideNShape& s = kWideNShapes[si];
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + "_" + kModes[mi].name + "_" +
         fp8kit_dtype_name(kOuts[oi]);
}

INSTANTIATE_TEST_SUITE_P(Sm90, GemmSm90WideN,
                         ::testing::Combine(::testing::Range(0, 4), ::testing::Range(0, 6), ::testing::Range(0, 3)),
                         wide_n_name);

// ---- Block scales of the Hopper path's normal tiles over long K ------------
// Unsplit (a 16-byte workspace: too small for any split), so that one unit
// spans K: 16512 is 129 K blocks, two full chunks of B's scales and one of a
// single block (tile_config.hpp, kCoarseChunkBlocks). A's scales go by TMA
// where M * 4 bytes is a multiple of 16 (132, 1000, 260), by the slot warp
// otherwise (130, 258); 1000 x 4104 runs the 256 x 128 tile, 1000 x 2104 the
// 128 x 160 one (five column groups per chunk row), 500 x 6100 the 128 x 192
// one (GemmWideModes, GemmSm90WideN above).

struct ChunkShape {
  int64_t m, n, k;
};
const ChunkShape kChunkShapes[] = {
    {132, 136, 16512}, {130, 136, 16512}, {1000, 4104, 8320}, {1000, 2104, 8320},
    {260, 1000, 16512}, {258, 1000, 16512}, {500, 6100, 8320}};
constexpr int kChunkShapeCount = sizeof(kChunkShapes) / sizeof(kChunkShapes[0]);

using ChunkParam = std::tuple<int /*shape*/, int /*out*/>;
class GemmSm90BlockChunks : public ::testing::TestWithParam<ChunkParam> {};

TEST_P(GemmSm90BlockChunks, MatchesReference) {
  const auto [si, oi] = GetParam();
  const ChunkShape& s = kChunkShapes[si];
  GemmCase c{s.m, s.n, s.k};
  c.a_mode = c.b_mode = FP8KIT_SCALE_BLOCK;
  c.a_type = kPairs[(si + oi) % 4].first;
  c.b_type = kPairs[(si + oi) % 4].second;
  c.d_type = kOuts[oi];
  c.align_d_rows();
  c.bias = oi != 1;
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  constexpr size_t kTinyWorkspace = 16;
  const fp8kit::ref::DeviceBuffer tiny(kTinyWorkspace);
  expect_correct(c, FP8KIT_PATH_SM90_WGMMA, fp8kit::ref::LentWorkspace{tiny.get(), kTinyWorkspace, false});
}

std::string chunk_name(const ::testing::TestParamInfo<ChunkParam>& info) {
  const auto [si, oi] = info.param;
  const ChunkShape& s = kChunkShapes[si];
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + "_" +
         fp8kit_dtype_name(kOuts[oi]);
}

INSTANTIATE_TEST_SUITE_P(Sm90, GemmSm90BlockChunks,
                         ::testing::Combine(::testing::Range(0, kChunkShapeCount), ::testing::Range(0, 3)), chunk_name);

// ---- Ragged and edge shapes, three representative configurations -----------

struct Shape {
  int64_t m, n, k;
  int64_t lda_pad, ldb_pad, ldd_pad;
};
const Shape kShapes[] = {
    {1, 129, 16, 0, 0, 0},      {17, 2112, 7168, 0, 0, 0}, {333, 1000, 528, 0, 0, 0}, {4095, 4097, 4096, 0, 0, 0},
    {1, 1, 16, 0, 0, 8},        {2, 3, 32, 16, 32, 5},     {128, 128, 128, 0, 0, 0},  {129, 257, 144, 48, 16, 7},
    {64, 4096, 4096, 0, 0, 0},  {1000, 24, 1040, 0, 0, 0}, {1000, 2100, 144, 0, 0, 0}, {1000, 2100, 144, 16, 0, 9},
    {5, 300, 8320, 0, 0, 0},    {200, 300, 4224, 0, 0, 0},  // split-K on the H200: decode (clusters of 5), large tiles (4 workspace splits)
};

using ShapeParam = std::tuple<fp8kit_path, int /*shape*/, int /*config*/>;
class GemmShapes : public ::testing::TestWithParam<ShapeParam> {};

TEST_P(GemmShapes, MatchesReference) {
  const auto [path, si, ci] = GetParam();
  const Shape& s = kShapes[si];
  GemmCase c{s.m, s.n, s.k};
  c.lda_pad = s.lda_pad;
  c.ldb_pad = s.ldb_pad;
  c.ldd_pad = s.ldd_pad;
  switch (ci) {
    case 0: break;  // per-tensor, bf16 out
    case 1:
      c.a_mode = FP8KIT_SCALE_ROW, c.b_mode = FP8KIT_SCALE_COL, c.d_type = FP8KIT_DTYPE_F16;
      c.bias = true, c.bias_type = FP8KIT_DTYPE_BF16;
      break;
    default:
      c.a_mode = FP8KIT_SCALE_BLOCK, c.b_mode = FP8KIT_SCALE_BLOCK, c.d_type = FP8KIT_DTYPE_F32;
      c.a_type = FP8KIT_DTYPE_E5M2, c.bias = true;
  }
  c.align_d_rows();
  expect_correct(c, path);
}

std::string shape_name(const ::testing::TestParamInfo<ShapeParam>& info) {
  const auto [path, si, ci] = info.param;
  const Shape& s = kShapes[si];
  static const char* kConfig[] = {"tensor_bf16", "tokchan_f16_bias", "block_f32_bias"};
  return path_label(path) + "_" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
         (s.ldd_pad || s.lda_pad ? "_padded_" : "_") + kConfig[ci];
}

INSTANTIATE_TEST_SUITE_P(Ragged, GemmShapes,
                         ::testing::Combine(::testing::ValuesIn(kPaths), ::testing::Range(0, 14), ::testing::Range(0, 3)),
                         shape_name);

// ---- SM12x: QMMA.SF at unit scales gives the plain QMMA's bits ----------------
// sm120_mma (block-scaled mma.sync, every scale 1.0) and sm89_mma (plain
// mma.sync) on the same inputs, f32 out so nothing rounds the comparison:
// docs/perf/log/2026-12-01-mma-sync-sm12x.md ("The block-scaled MMA at unit scales")
// says why they must agree bit for bit. Runs where both
// load (an SM12x GPU); skips elsewhere.
TEST(GemmSm12x, UnitScaledMmaEqualsPlainMma) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  constexpr int64_t kM = 333, kN = 1000, kK = 528;
  for (const auto& [at, bt] : kPairs) {
    std::vector<uint8_t> a(kM * kK), b(kN * kK);
    std::uniform_real_distribution<double> value(-4.0, 4.0);
    for (auto& x : a) x = fp8kit::ref::encode_fp8(at, value(rng()), true);
    for (auto& x : b) x = fp8kit::ref::encode_fp8(bt, value(rng()), true);
    fp8kit::ref::DeviceBuffer da(a.size()), db(b.size()), dd(kM * kN * 4);
    da.upload(a.data(), a.size());
    db.upload(b.data(), b.size());
    std::vector<float> out[2];
    const fp8kit_path paths[2] = {FP8KIT_PATH_SM120_MMA, FP8KIT_PATH_SM89_MMA};
    for (int i = 0; i < 2; ++i) {
      fp8kit_gemm_desc desc = FP8KIT_GEMM_DESC_INIT;
      desc.m = kM, desc.n = kN, desc.k = kK;
      desc.op.a = da.get(), desc.op.lda = kK, desc.op.a_type = at;
      desc.op.b = db.get(), desc.op.ldb = kK, desc.op.b_type = bt;
      desc.op.d = dd.get(), desc.op.ldd = kN, desc.op.d_type = FP8KIT_DTYPE_F32;
      fp8kit_gemm_options opt;
      fp8kit_gemm_options_init(&opt);
      opt.path = paths[i];
      const fp8kit_status st = fp8kit_gemm(&desc, &opt, nullptr);
      if (st == FP8KIT_STATUS_UNSUPPORTED) GTEST_SKIP() << fp8kit_path_name(paths[i]) << ": " << fp8kit_last_error();
      ASSERT_EQ(st, FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      out[i].resize(kM * kN);
      dd.download(out[i].data(), out[i].size() * 4);
    }
    EXPECT_EQ(std::memcmp(out[0].data(), out[1].data(), out[0].size() * 4), 0)
        << fp8kit_dtype_name(at) << " x " << fp8kit_dtype_name(bt);
  }
}

// ---- Refusals that need a real device ---------------------------------------

TEST(GemmDevice, HostPointerIsRefusedBeforeLaunch) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  fp8kit::ref::DeviceBuffer b(64 * 16), d(64 * 16 * 2);
  alignas(16) static uint8_t host_a[64 * 16];
  fp8kit_gemm_desc desc = FP8KIT_GEMM_DESC_INIT;
  desc.m = 64; desc.n = 64; desc.k = 16;
  desc.op.a = host_a; desc.op.lda = 16; desc.op.a_type = FP8KIT_DTYPE_E4M3;
  desc.op.b = b.get(); desc.op.ldb = 16; desc.op.b_type = FP8KIT_DTYPE_E4M3;
  desc.op.d = d.get(); desc.op.ldd = 64; desc.op.d_type = FP8KIT_DTYPE_BF16;
  EXPECT_EQ(fp8kit_gemm(&desc, nullptr, nullptr), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("a = "), std::string::npos) << fp8kit_last_error();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST(GemmDevice, CheckedModeBlamesTheEarlierFault) {
  // An error queued before fp8kit_gemm is reported as not fp8kit's.
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  fp8kit::ref::DeviceBuffer a(64 * 16), b(64 * 16), d(64 * 64 * 2);
  fp8kit_gemm_desc desc = FP8KIT_GEMM_DESC_INIT;
  desc.m = 64; desc.n = 64; desc.k = 16;
  desc.op.a = a.get(); desc.op.lda = 16; desc.op.a_type = FP8KIT_DTYPE_E4M3;
  desc.op.b = b.get(); desc.op.ldb = 16; desc.op.b_type = FP8KIT_DTYPE_E4M3;
  desc.op.d = d.get(); desc.op.ldd = 64; desc.op.d_type = FP8KIT_DTYPE_BF16;
  cudaMemset(a.get(), 0x11, 64 * 16);
  cudaMemset(b.get(), 0x22, 64 * 16);
  fp8kit_gemm_options o;
  fp8kit_gemm_options_init(&o);
  o.checked = 1;
  EXPECT_EQ(fp8kit_gemm(&desc, &o, nullptr), FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
}

TEST(GemmDevice, WorkspaceQueryAnswers) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  fp8kit::ref::DeviceBuffer a(16 * 4096), b(4096 * 4096), d(16 * 4096 * 2);
  fp8kit_gemm_desc desc = FP8KIT_GEMM_DESC_INIT;
  desc.m = 16; desc.n = 4096; desc.k = 4096;
  desc.op.a = a.get(); desc.op.lda = 4096; desc.op.a_type = FP8KIT_DTYPE_E4M3;
  desc.op.b = b.get(); desc.op.ldb = 4096; desc.op.b_type = FP8KIT_DTYPE_E4M3;
  desc.op.d = d.get(); desc.op.ldd = 4096; desc.op.d_type = FP8KIT_DTYPE_BF16;
  size_t bytes = 1;
  EXPECT_EQ(fp8kit_gemm_workspace_size(&desc, nullptr, &bytes), FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
}

// ---- One zero-filled workspace lent with the promise, shared by split-K plans ----
// fp8kit_gemm_options.workspace_zeroed: no memset per call, so each call must
// leave the split-K counters at zero for the next, whatever its plan (tile,
// tile count, splits; on a 132-SM H200 these split 3, 3, 4 and 4 ways: shapes
// the cluster split, which needs no workspace, does not take). Each
// case runs twice on the workspace; the second run is checked. Then the
// first shape again, after the others used the partials' memory.
TEST(GemmWorkspace, ZeroedOnceServesEveryPlan) {
  if (!fp8kit::ref::gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  constexpr size_t kBytes = size_t{64} << 20;
  const fp8kit::ref::DeviceBuffer ws(kBytes);
  ASSERT_EQ(cudaMemset(ws.get(), 0, kBytes), cudaSuccess);
  const fp8kit::ref::LentWorkspace lent{ws.get(), kBytes, true};
  struct Case {
    int64_t m, n, k;
    int mode;  // kModes: tensor, token x channel, block
  };
  const Case cases[] = {{1, 5120, 32768, 1}, {16, 5120, 32768, 5}, {200, 300, 4224, 5}, {128, 4096, 4096, 2},
                        {1, 5120, 32768, 2}};
  int rot = 0;
  for (const Case& s : cases) {
    GemmCase c{s.m, s.n, s.k};
    c.a_mode = kModes[s.mode].a;
    c.b_mode = kModes[s.mode].b;
    c.d_type = kOuts[rot++ % 3];
    c.align_d_rows();
    const GemmOutcome r = fp8kit::ref::run_case(c, FP8KIT_PATH_SM90_WGMMA, rng(), 1 << 16, 2048, lent, 2);
    if (r.status == FP8KIT_STATUS_UNSUPPORTED) GTEST_SKIP() << "sm90_wgmma cannot run here: " << r.message;
    ASSERT_EQ(r.status, FP8KIT_STATUS_SUCCESS) << c.label() << ": " << r.message;
    EXPECT_EQ(r.unwritten, 0) << c.label();
    EXPECT_EQ(r.clobbered, 0) << c.label();
    EXPECT_EQ(r.failures, 0) << c.label() << ": first " << r.first_failure;
  }
}

}  // namespace
