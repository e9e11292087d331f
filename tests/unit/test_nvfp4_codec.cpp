// The NVFP4 format on the host: E2M1 encode / decode, packing, the swizzled
// scale layout from fp8kit/nvfp4.h's formula and from an independent
// construction (PyTorch's `to_blocked`, rewritten here: pad to 128 x 4,
// view as (rows/128, 128, cols/4, 4), swap the middle axes, view each tile
// as (4, 32, 4), transpose to (32, 4, 4), flatten), and the quantiser's
// reference semantics.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "core/nvfp4_layout.hpp"
#include "gemm/nvfp4/nvfp4_plan.hpp"
#include "gemm/nvfp4/nvfp4_sm90_config.hpp"
#include "gemm/nvfp4/nvfp4_sm90_decode_config.hpp"
#include "reference/fp8_codec.hpp"
#include "reference/nvfp4_codec.hpp"

using namespace fp8kit;
using namespace fp8kit::ref;

namespace {

// to_blocked of a [rows, cols] scale matrix, index by index: the flat
// position of element (r, c) in torch's blocked layout.
std::vector<int64_t> to_blocked_positions(int64_t rows, int64_t cols) {
  const int64_t rb = (rows + 127) / 128, cb = (cols + 3) / 4;
  const int64_t pr = rb * 128, pc = cb * 4;
  // padded[pr, pc] -> blocks[rb, cb, 128, 4] (view + permute(0, 2, 1, 3)),
  // then each 128x4 block -> view(4, 32, 4).transpose(0, 1) -> (32, 4, 4).
  std::vector<int64_t> pos(static_cast<size_t>(pr * pc));
  int64_t flat = 0;
  for (int64_t i = 0; i < rb; ++i)
    for (int64_t j = 0; j < cb; ++j)
      for (int64_t a = 0; a < 32; ++a)       // after transpose: (32, 4, 4) = (a, b, c)
        for (int64_t b = 0; b < 4; ++b)      // b: which 32-row quarter
          for (int64_t c = 0; c < 4; ++c) {  // c: column within the block
            const int64_t r = i * 128 + b * 32 + a, col = j * 4 + c;
            pos[static_cast<size_t>(r * pc + col)] = flat++;
          }
  return pos;
}

}  // namespace

TEST(Nvfp4Codec, E2m1DecodesTheTable) {
  const double want[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (int n = 0; n < 16; ++n) {
    const double v = decode_e2m1(static_cast<uint8_t>(n));
    EXPECT_EQ(std::fabs(v), want[n & 7]) << n;
    EXPECT_EQ(std::signbit(v), (n & 8) != 0) << n;
    EXPECT_EQ(encode_e2m1(v), n) << "round trip of code " << n;
  }
}

TEST(Nvfp4Codec, E2m1RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(encode_e2m1(0.25), 0);   // tie 0 / 0.5 -> code 0
  EXPECT_EQ(encode_e2m1(0.26), 1);
  EXPECT_EQ(encode_e2m1(0.75), 2);   // tie 0.5 / 1 -> code 2
  EXPECT_EQ(encode_e2m1(1.25), 2);   // tie 1 / 1.5 -> code 2
  EXPECT_EQ(encode_e2m1(1.75), 4);   // tie 1.5 / 2 -> code 4
  EXPECT_EQ(encode_e2m1(2.5), 4);    // tie 2 / 3 -> code 4
  EXPECT_EQ(encode_e2m1(3.5), 6);    // tie 3 / 4 -> code 6
  EXPECT_EQ(encode_e2m1(5.0), 6);    // tie 4 / 6 -> code 6
  EXPECT_EQ(encode_e2m1(5.01), 7);
  EXPECT_EQ(encode_e2m1(1e9), 7);    // saturates at 6
  EXPECT_EQ(encode_e2m1(-1e9), 15);
  EXPECT_EQ(encode_e2m1(-0.0), 8);
  EXPECT_EQ(encode_e2m1(NAN), 0);
}

TEST(Nvfp4Codec, PackingIsLowNibbleFirst) {
  uint8_t row[2] = {0, 0};
  set_nibble(row, 0, 0x3);
  set_nibble(row, 1, 0xa);
  set_nibble(row, 2, 0x7);
  EXPECT_EQ(row[0], 0xa3);
  EXPECT_EQ(row[1], 0x07);
  EXPECT_EQ(nibble_at(row, 1), 0xa);
}

TEST(Nvfp4Codec, DequantisedProductsAreExactIn16BitFloats) {
  // Every E2M1 value times every non-NaN E4M3 scale: at most 6 significant
  // bits, inside f16's and bf16's normal ranges.
  for (int n = 1; n < 8; ++n)
    for (int s = 1; s < 0x7f; ++s) {
      const double v = decode_e2m1(static_cast<uint8_t>(n)) * decode_e4m3(static_cast<uint8_t>(s));
      EXPECT_EQ(decode_f16(encode_f16(static_cast<float>(v))), v) << n << " " << s;
      EXPECT_EQ(decode_bf16(encode_bf16(static_cast<float>(v))), v) << n << " " << s;
      EXPECT_GE(v, std::ldexp(1.0, -14));
    }
}

TEST(Nvfp4Layout, SwizzleFormulaMatchesToBlocked) {
  for (int64_t rows : {1, 5, 127, 128, 129, 300}) {
    for (int64_t k : {16, 48, 64, 112, 256, 272}) {
      const int64_t cols = nvfp4::blocks_of(k), kb4 = nvfp4::padded_blocks(k);
      const std::vector<int64_t> pos = to_blocked_positions(rows, cols);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          ASSERT_EQ(nvfp4::swizzled_offset(r, c, kb4), pos[static_cast<size_t>(r * kb4 + c)])
              << rows << "x" << k << " at (" << r << ", " << c << ")";
      EXPECT_EQ(nvfp4::scale_bytes(rows, k, FP8KIT_NVFP4_SCALES_SWIZZLED),
                static_cast<int64_t>(pos.size()));
    }
  }
}

TEST(Nvfp4Layout, SwizzleIsABijectionOntoThePaddedBuffer) {
  const int64_t rows = 256, k = 128, kb4 = nvfp4::padded_blocks(k);
  std::vector<int> hits(static_cast<size_t>(nvfp4::scale_bytes(rows, k, FP8KIT_NVFP4_SCALES_SWIZZLED)), 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < kb4; ++c) ++hits[static_cast<size_t>(nvfp4::swizzled_offset(r, c, kb4))];
  for (int h : hits) EXPECT_EQ(h, 1);
  // The 4 blocks of one row's stage (kb0 = 4j) are one aligned 32-bit word.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t kb0 = 0; kb0 < kb4; kb0 += 4) {
      EXPECT_EQ(nvfp4::swizzled_offset(r, kb0, kb4) % 4, 0);
      for (int b = 1; b < 4; ++b)
        EXPECT_EQ(nvfp4::swizzled_offset(r, kb0 + b, kb4), nvfp4::swizzled_offset(r, kb0, kb4) + b);
    }
}

TEST(Nvfp4Layout, ScaleSizes) {
  EXPECT_EQ(nvfp4::scale_bytes(1, 16, FP8KIT_NVFP4_SCALES_SWIZZLED), 128 * 4);
  EXPECT_EQ(nvfp4::scale_bytes(129, 80, FP8KIT_NVFP4_SCALES_SWIZZLED), 256 * 8);
  EXPECT_EQ(nvfp4::scale_bytes(129, 80, FP8KIT_NVFP4_SCALES_LINEAR), 129 * 5);
  size_t bytes = 0;
  EXPECT_EQ(fp8kit_nvfp4_scale_size(129, 80, FP8KIT_NVFP4_SCALES_SWIZZLED, &bytes), FP8KIT_STATUS_SUCCESS);
  EXPECT_EQ(bytes, 256u * 8);
  EXPECT_EQ(fp8kit_nvfp4_scale_size(4, 24, FP8KIT_NVFP4_SCALES_LINEAR, &bytes), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fp8kit_last_error()).find("k = 24"), std::string::npos);
  EXPECT_STREQ(fp8kit_nvfp4_scale_layout_name(FP8KIT_NVFP4_SCALES_LINEAR), "linear");
  EXPECT_STREQ(fp8kit_dtype_name(FP8KIT_DTYPE_NVFP4), "nvfp4");
}

TEST(Nvfp4Reference, QuantiseThenDequantiseIsClose) {
  std::mt19937_64 rng(7);
  std::normal_distribution<float> nd(0, 1);
  const int64_t m = 3, k = 64;
  std::vector<float> x(static_cast<size_t>(m * k));
  for (auto& v : x) v = nd(rng);
  const float g = 448.f * 6.f / 4.f;  // global scale: amax ~4 maps to the top of the scale range
  for (auto layout : {FP8KIT_NVFP4_SCALES_SWIZZLED, FP8KIT_NVFP4_SCALES_LINEAR}) {
    std::vector<uint8_t> q, s;
    nvfp4_quantize_reference(x, m, k, g, {}, 0.f, layout, &q, &s);
    HostNvfp4Operand op{FP8KIT_DTYPE_NVFP4, q.data(), k / 2, s.data(), layout};
    for (int64_t r = 0; r < m; ++r)
      for (int64_t i = 0; i < k; ++i) {
        const double back = op.at(r, i, k) / g;
        // E2M1 keeps 1 mantissa bit: within a quarter of the block's amax.
        float amax = 0;
        for (int j = 0; j < 16; ++j) amax = std::fmax(amax, std::fabs(x[r * k + (i / 16) * 16 + j]));
        EXPECT_LE(std::fabs(back - x[r * k + i]), 0.26 * amax) << r << " " << i;
      }
  }
}

TEST(Nvfp4Reference, GemmOfDequantisedOperands) {
  // One row times one column, K = 32: alpha * sum e2m1 * scale products.
  std::vector<uint8_t> a(16, 0x22), b(16, 0x11), sa(nvfp4::scale_bytes(1, 32, FP8KIT_NVFP4_SCALES_LINEAR)),
      sb(sa.size());
  sa[0] = encode_e4m3(2.0, true), sa[1] = encode_e4m3(0.5, true);
  sb[0] = encode_e4m3(1.0, true), sb[1] = encode_e4m3(4.0, true);
  HostNvfp4Gemm g;
  g.m = g.n = 1, g.k = 32, g.alpha = 0.5;
  g.a = HostNvfp4Operand{FP8KIT_DTYPE_NVFP4, a.data(), 16, sa.data(), FP8KIT_NVFP4_SCALES_LINEAR};
  g.b = HostNvfp4Operand{FP8KIT_DTYPE_NVFP4, b.data(), 16, sb.data(), FP8KIT_NVFP4_SCALES_LINEAR};
  // A elements 1.0 (code 2), B 0.5 (code 1): block 0: 16 * (1*2) * (0.5*1), block 1: 16 * (1*0.5) * (0.5*4).
  EXPECT_EQ(nvfp4_reference_element(g, 0, 0), 0.5 * (16 * 2.0 * 0.5 + 16 * 0.5 * 2.0));
}

TEST(Nvfp4Plan, DecodeShapeForSmallM) {
  DeviceInfo turing{};
  turing.smem_per_block_optin = 65536;
  DeviceInfo sm12x{};
  sm12x.smem_per_block_optin = 101376;
  using nvfp4::TileId;
  for (bool a16 : {false, true}) {
    // HMMA families: the decode tiles up to 16 tokens.
    EXPECT_EQ(nvfp4::choose_tile(1, a16, turing), static_cast<int>(TileId::DecodeM8));
    EXPECT_EQ(nvfp4::choose_tile(8, a16, turing), static_cast<int>(TileId::DecodeM8));
    EXPECT_EQ(nvfp4::choose_tile(9, a16, turing), static_cast<int>(TileId::DecodeM16));
    EXPECT_EQ(nvfp4::choose_tile(16, a16, turing), static_cast<int>(TileId::DecodeM16));
    EXPECT_EQ(nvfp4::choose_tile(17, a16, turing), static_cast<int>(TileId::M16N64));
    // Without decode tiles (the block-scaled FP4 mma): the 16-row CTA tile.
    EXPECT_EQ(nvfp4::choose_tile(1, a16, sm12x, false), static_cast<int>(nvfp4::TileId::M16N64));
    EXPECT_EQ(nvfp4::choose_tile(32, a16, sm12x), static_cast<int>(nvfp4::TileId::M16N64));
    EXPECT_EQ(nvfp4::choose_tile(33, a16, sm12x), static_cast<int>(nvfp4::TileId::M128N128));
    EXPECT_EQ(nvfp4::choose_tile(4096, a16, turing), static_cast<int>(nvfp4::TileId::M128N128));
    for (const nvfp4::TileShape& t : nvfp4::kTileShapes) EXPECT_LE(t.smem_bytes(a16), turing.smem_per_block_optin);
  }
  DeviceInfo tiny{};
  tiny.smem_per_block_optin = 1024;
  EXPECT_EQ(nvfp4::choose_tile(1, true, tiny), -1);
  EXPECT_EQ(nvfp4::choose_tile(1, true, tiny, false), -1);
}

TEST(Nvfp4Plan, DecodeSplitKeepsTwoCtasPerSm) {
  constexpr int kH200Sms = 132;
  // The most warps along N whose grid reaches 0.9 x two CTAs per SM.
  EXPECT_EQ(nvfp4::choose_decode_warps_n(28672, 1, kH200Sms), 4);  // 448 CTAs
  EXPECT_EQ(nvfp4::choose_decode_warps_n(4096, 1, kH200Sms), 1);   // 256 CTAs
  EXPECT_EQ(nvfp4::choose_decode_warps_n(2112, 1, kH200Sms), 1);   // 132 CTAs
  EXPECT_EQ(nvfp4::choose_decode_warps_n(64, 1, kH200Sms), 1);
  EXPECT_EQ(nvfp4::choose_decode_warps_n(1536, 128, kH200Sms), 8);  // grouped: every expert's slot counts
  for (int64_t n : {16, 100, 4096, 65536})
    for (int sms : {1, 20, 132, 170}) {
      const int w = nvfp4::choose_decode_warps_n(n, 1, sms);
      EXPECT_TRUE(w == 1 || w == 2 || w == 4 || w == 8) << n << " " << sms;
    }
}

// Hopper's W4A16 plan: the token tile and K split with the fewest waves of
// the cheapest CTAs; grouped problems unsplit, 128 where the 256-token grid
// leaves SMs idle, 256 where both fill the waves alike.
TEST(Nvfp4Plan, Sm90PrefillPlanFillsTheWaves) {
  using nvfp4::sm90w::choose_plan;
  using nvfp4::sm90w::kMaxSplit;
  using nvfp4::sm90w::Plan;
  using nvfp4::sm90w::Tokens;
  constexpr int kH200Sms = 132;
  int wave[kMaxSplit + 1] = {};
  for (int s = 1; s <= kMaxSplit; ++s) wave[s] = kH200Sms / s * s;  // one CTA per SM
  auto plan = [&](int64_t m, int64_t n, int64_t k, int64_t groups = 1, int max_split = kMaxSplit) {
    const Plan p = choose_plan(m, n, k, wave, groups, max_split);
    return std::make_pair(p.tokens, p.splits);
  };
  using P = std::pair<Tokens, int>;
  EXPECT_EQ(plan(4096, 4096, 4096), P(Tokens::k256, 1));   // 512 CTAs: 4 waves; 128: 8
  EXPECT_EQ(plan(8192, 4096, 4096), P(Tokens::k256, 1));
  EXPECT_EQ(plan(2048, 7168, 2048), P(Tokens::k256, 1));   // 4 waves of 256 beat 7 of 128; a split adds waves
  EXPECT_EQ(plan(1024, 4096, 4096), P(Tokens::k256, 1));   // one wave either way
  EXPECT_EQ(plan(512, 4096, 4096), P(Tokens::k256, 2));    // 64 tiles of 256 in 128 CTAs of half of K
  EXPECT_EQ(plan(64, 4096, 4096), P(Tokens::k128, 4));     // 32 tiles over 128 SMs (3 where 128 CTAs take two waves)
  EXPECT_EQ(plan(32, 4096, 4096).second, 4);
  EXPECT_EQ(plan(64, 4096, 64 * 3).second, 1);             // three K blocks: the hand-off costs what a split saves
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{17, 128, 64}, {64, 4096, 128}, {300, 520, 1056},
                                {64, 4096, 65536}}) {
    const int s = plan(m, n, k).second;
    const int64_t nkb = (k + 63) / 64, per = (nkb + s - 1) / s;
    EXPECT_TRUE(s == 1 || (s - 1) * per < nkb) << m << " " << n << " " << k << ": no rank without K blocks";
    EXPECT_LE(s, kMaxSplit);
  }
  wave[4] = 124;  // 31 clusters of 4, as an H100 may hold: 128 CTAs take two waves
  EXPECT_EQ(plan(64, 4096, 4096).second, 3);
  wave[4] = 0;  // clusters of 4 cannot run
  EXPECT_NE(plan(64, 4096, 4096).second, 4);
  // Grouped: `groups` experts of m rows each (the host's estimate), never split.
  EXPECT_EQ(plan(64, 28672, 4096, 8, 1), P(Tokens::k128, 1));   // Mixtral gate_up at 256 tokens: 1,792 CTAs either way
  EXPECT_EQ(plan(512, 28672, 4096, 8, 1), P(Tokens::k256, 1));  // at 2,048 tokens: 28 waves of 256, 55 of 128
  EXPECT_EQ(plan(128, 1536, 2048, 128, 1), P(Tokens::k128, 1)); // Qwen3 gate_up: one tile per expert at 128
  EXPECT_EQ(plan(64, 512, 4096, 1, 1).second, 1);
  // Both tiles fit the opt-in shared memory, and their f32 staging the stages.
  EXPECT_LE(nvfp4::sm90w::TileT<Tokens::k256>::kSmemBytes, sm90::kSmemBytesMax);
  EXPECT_LE(nvfp4::sm90w::TileT<Tokens::k128>::kSmemBytes, sm90::kSmemBytesMax);
  EXPECT_GE(nvfp4::sm90w::TileT<Tokens::k256>::kStages, 4);
}

// The Hopper decode kernel's K split over a cluster: the fewest waves times
// each CTA's stream plus its fixed cost, plus the hand-off per rank, never an
// empty rank nor a cluster size the device cannot hold.
TEST(Nvfp4Plan, Sm90DecodeSplitFillsOneWave) {
  using nvfp4::sm90w::choose_decode_split;
  using nvfp4::sm90w::kDecodeMaxSplit;
  constexpr int kH200Slots = 2 * 132;  // two CTAs per SM
  int wave[kDecodeMaxSplit + 1] = {};
  for (int s = 1; s <= kDecodeMaxSplit; ++s) wave[s] = kH200Slots / s * s;
  EXPECT_EQ(choose_decode_split(4096, 4096, wave), 8);    // 32 tiles: 256 CTAs of 8 K blocks
  EXPECT_EQ(choose_decode_split(4096, 14336, wave), 8);
  EXPECT_EQ(choose_decode_split(28672, 4096, wave), 1);   // 224 tiles fill the wave unsplit
  EXPECT_EQ(choose_decode_split(7168, 2048, wave), 4);    // 224 CTAs; 5 would take two waves
  EXPECT_EQ(choose_decode_split(64, 32, wave), 1);        // one K block
  EXPECT_EQ(choose_decode_split(64, 192, wave), 1);       // three K blocks: the hand-off costs what a split saves
  EXPECT_EQ(choose_decode_split(64, 6 * 64, wave), 2);    // six: two ranks of three
  wave[8] = 0;                                            // clusters of 8 cannot run
  EXPECT_EQ(choose_decode_split(4096, 4096, wave), 6);    // 7 saves one block per CTA and pays one more rank
  // The H200's own answers (clusters of 8 hold 240 CTAs, not 256).
  const int h200[kDecodeMaxSplit + 1] = {0, 264, 264, 237, 248, 235, 234, 224, 240};
  EXPECT_EQ(choose_decode_split(4096, 4096, h200), 6);    // measured: 10.1 us, 11.3 at 7, 14.2 at 8
  EXPECT_EQ(choose_decode_split(2112, 7168, h200), 8);    // 17 tiles: 136 CTAs of 14 K blocks
  EXPECT_EQ(choose_decode_split(28672, 4096, h200), 1);
  EXPECT_LE(nvfp4::sm90w::kDecodeCtasPerSm * nvfp4::sm90w::kDecodeSmemBytes, sm90::kSmemBytesMax);
}

// Below 9 tokens the Hopper decode kernel takes only grids its split rule
// leaves at 1-2 CTAs per weight tile; HMMA's 8-token tile runs the rest.
TEST(Nvfp4Plan, Sm90DecodeTakesFewTokensOnLightlySplitGrids) {
  using nvfp4::sm90w::choose_decode_split;
  using nvfp4::sm90w::decode_takes_tokens;
  const int h200[nvfp4::sm90w::kDecodeMaxSplit + 1] = {0, 264, 264, 237, 248, 235, 234, 224, 240};
  auto takes = [&](int64_t m, int64_t n, int64_t k, bool a4 = false) {
    return decode_takes_tokens(m, a4, choose_decode_split(n, k, h200));
  };
  EXPECT_TRUE(takes(1, 28672, 4096));   // unsplit
  EXPECT_TRUE(takes(8, 14336, 2048));   // split in two
  EXPECT_FALSE(takes(4, 7168, 2048));   // split in four
  EXPECT_FALSE(takes(1, 4096, 4096));   // split in six
  EXPECT_FALSE(takes(8, 4096, 14336));  // split in seven
  EXPECT_TRUE(takes(9, 4096, 4096));    // from 9 tokens every grid
  EXPECT_TRUE(takes(16, 4096, 14336));
  // NVFP4 tokens: below 9 the same rule; from 9 splits up to five.
  EXPECT_TRUE(takes(1, 28672, 4096, true));
  EXPECT_FALSE(takes(4, 7168, 2048, true));
  EXPECT_TRUE(takes(16, 28672, 4096, true));   // unsplit
  EXPECT_TRUE(takes(16, 7168, 2048, true));    // split in four
  EXPECT_FALSE(takes(16, 4096, 4096, true));   // split in six
  EXPECT_FALSE(takes(16, 2048, 7168, true));   // split in eight
}

TEST(Nvfp4Plan, DecodeTilesHoldAWeightRingAndTheirPartialSums) {
  constexpr int kSmPerSmem86 = 100 * 1024;  // SM86 / SM89 / SM12x: shared memory per SM
  for (nvfp4::TileId id : {nvfp4::TileId::DecodeM8, nvfp4::TileId::DecodeM16}) {
    const nvfp4::TileShape& t = nvfp4::tile_shape(id);
    EXPECT_EQ(t.kind, nvfp4::TileKind::Decode);
    EXPECT_EQ(t.block_n, 16) << t.name;
    EXPECT_EQ(t.warps(), 8) << t.name;
    // Partial sums (128 rows x tokens f32) and per thread `stages` chunks of
    // two 16-byte rows.
    EXPECT_EQ(t.smem_bytes(true), t.warps_k * t.block_m * t.block_n * 4 + t.stages * t.threads() * 32) << t.name;
    EXPECT_EQ(t.smem_bytes(true), t.smem_bytes(false)) << t.name;
    EXPECT_EQ(t.stages % 2, 0) << t.name << ": the tokens' two buffers alternate with the stages";
    // Two CTAs per SM on the 100 KB parts, within the default 48 KB per block.
    EXPECT_LE(2 * t.smem_bytes(true), kSmPerSmem86) << t.name;
    EXPECT_LE(t.smem_bytes(true), 48 * 1024) << t.name;
  }
}
