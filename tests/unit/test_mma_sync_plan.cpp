// The portable mma.sync kernel's host plan (gemm/mma_sync_fp8_gemm_plan.hpp):
// shared memory of each tile shape against the devices' real limits, CTAs per
// SM, and the tile chosen on the SM12x parts (GB10 48 SMs, RTX 5090 170,
// RTX PRO 6000 188; 101,376 B per block, 102,400 per SM, no multicast), on the
// H200 and on Turing-sized shared memory. Host only: runs everywhere.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "gemm/mma_sync_fp8_gemm_plan.hpp"

namespace ms = fp8kit::mma_sync;
using fp8kit::DeviceInfo;
using ms::CtaPreference;
using ms::TileId;

namespace {

constexpr int kSm12xSmemPerBlock = 101376;  // every SM12x part (docs/perf/log/2026-12-01-mma-sync-sm12x.md)
constexpr int kSm12xSmemPerSm = 102400;

DeviceInfo device(int cap, int sms, int per_block, int per_sm) {
  DeviceInfo d;
  d.cap = cap;
  d.sm_count = sms;
  d.smem_per_block_optin = per_block;
  d.smem_per_sm = per_sm;
  return d;
}
const DeviceInfo kGb10 = device(121, 48, kSm12xSmemPerBlock, kSm12xSmemPerSm);
const DeviceInfo kRtx5090 = device(120, 170, kSm12xSmemPerBlock, kSm12xSmemPerSm);
const DeviceInfo kRtxPro6000 = device(120, 188, kSm12xSmemPerBlock, kSm12xSmemPerSm);
const DeviceInfo kH200 = device(90, 132, 232448, 233472);
const DeviceInfo kTuring = device(75, 40, 65536, 65536);

// What the kernel families carry (sm120_fp8_gemm.cu and sm89_fp8_gemm.cu alike; sm75_fp8_gemm.cu).
const TileId kFp8Tiles[] = {TileId::K128x64x64s4, TileId::K128x128x64s4};
const TileId kSm75Tiles[] = {TileId::K128x128x64s4};

TileId chosen(const TileId* carried, int count, int64_t m, int64_t n, const DeviceInfo& dev, CtaPreference pref) {
  const int i = ms::choose_tile(m, n, dev, carried, count, pref);
  EXPECT_GE(i, 0);
  return i < 0 ? TileId::K128x128x64s4 : carried[i];
}

TEST(MmaSyncPlan, SharedMemoryPerTile) {
  EXPECT_EQ(ms::tile_shape(TileId::K128x128x64s4).smem_bytes(), 65536);
  EXPECT_EQ(ms::tile_shape(TileId::K128x64x64s4).smem_bytes(), 49152);
  for (const ms::TileShape& t : ms::kTileShapes) {
    SCOPED_TRACE(t.name);
    EXPECT_LE(t.smem_bytes(), kSm12xSmemPerBlock);  // every shape runs on SM12x
    EXPECT_EQ(t.block_m % ms::TileShape::kWarpM, 0);
    EXPECT_EQ(t.block_n % ms::TileShape::kWarpN, 0);
    EXPECT_EQ(fp8kit::kScaleBlock % t.block_n, 0);  // block scales: one B block per CTA
    EXPECT_EQ(fp8kit::kScaleBlock % t.block_k, 0);
  }
  EXPECT_EQ(ms::tile_shape(TileId::K128x128x64s4).warps(), 8);
  EXPECT_EQ(ms::tile_shape(TileId::K128x64x64s4).warps(), 4);
}

TEST(MmaSyncPlan, CtasPerSmFromTheDeviceLimits) {
  // SM12x: 2 x (49,152 + 1,024) fits 102,400; 65,536 fits once.
  EXPECT_EQ(ms::ctas_per_sm(ms::tile_shape(TileId::K128x64x64s4), kGb10), 2);
  EXPECT_EQ(ms::ctas_per_sm(ms::tile_shape(TileId::K128x128x64s4), kGb10), 1);
  // H200: shared memory would take 3-4, the 255 registers per thread allow 2 of 4 warps, 1 of 8.
  EXPECT_EQ(ms::ctas_per_sm(ms::tile_shape(TileId::K128x64x64s4), kH200), 2);
  EXPECT_EQ(ms::ctas_per_sm(ms::tile_shape(TileId::K128x128x64s4), kH200), 1);
  EXPECT_EQ(ms::ctas_per_sm(ms::tile_shape(TileId::K128x128x64s4), kTuring), 1);
  // The 101,376 B limit: a tile one byte over it no longer fits, and with
  // nothing that fits there is no choice.
  DeviceInfo tight = kGb10;
  tight.smem_per_block_optin = ms::tile_shape(TileId::K128x64x64s4).smem_bytes() - 1;
  EXPECT_EQ(ms::ctas_per_sm(ms::tile_shape(TileId::K128x64x64s4), tight), 0);
  EXPECT_EQ(ms::choose_tile(4096, 4096, tight, kFp8Tiles, 2, CtaPreference::MoreCtas), -1);
  tight.smem_per_block_optin = ms::tile_shape(TileId::K128x128x64s4).smem_bytes() - 1;
  EXPECT_EQ(chosen(kFp8Tiles, 2, 4096, 4096, tight, CtaPreference::LargerCtas), TileId::K128x64x64s4);
}

// The SM12x parts take the 48 KiB tile (two CTAs per SM) at the bench's three
// shapes and at decode and ragged ones.
TEST(MmaSyncPlan, Sm12xPartsTakeTwoCtasPerSm) {
  const int64_t shapes[][2] = {{4096, 4096}, {8192, 8192}, {2048, 7168}, {1, 4096}, {16, 28672}, {333, 1000}};
  for (const DeviceInfo* dev : {&kGb10, &kRtx5090, &kRtxPro6000}) {
    for (const auto& s : shapes) {
      SCOPED_TRACE(std::to_string(dev->sm_count) + " SMs, " + std::to_string(s[0]) + " x " + std::to_string(s[1]));
      EXPECT_EQ(chosen(kFp8Tiles, 2, s[0], s[1], *dev, CtaPreference::MoreCtas), TileId::K128x64x64s4);
    }
  }
}

// The wave term of the score, pinned for the three SM counts at one shape:
// 1024 x 1024 is 128 tiles of 128 x 64 on 2 CTA slots per SM, or 64 of
// 128 x 128 on one.
TEST(MmaSyncPlan, WaveEfficiencyPerSmCount) {
  const ms::TileShape& t = ms::tile_shape(TileId::K128x64x64s4);
  const ms::TileShape& wide = ms::tile_shape(TileId::K128x128x64s4);
  EXPECT_EQ(ms::tile_score(t, 1024, 1024, kGb10), 128 * 1000 / (2 * 96));  // 2 waves of 96 slots
  EXPECT_EQ(ms::tile_score(wide, 1024, 1024, kGb10), 64 * 1000 / (2 * 48));
  EXPECT_EQ(ms::tile_score(t, 1024, 1024, kRtx5090), 128 * 1000 / 340);  // one partial wave
  EXPECT_EQ(ms::tile_score(t, 1024, 1024, kRtxPro6000), 128 * 1000 / 376);
  // A ragged N where the narrow tile wastes less: 1088 = 8.5 x 128 = 17 x 64.
  // 8 x 9 = 72 tiles of 128 x 128 on 48 SMs: 2 waves, 75% busy; 8 x 17 = 136
  // of 128 x 64 on 96 slots: 2 waves, 70.8% busy. The wider tile wins on GB10
  // even where equal scores would go to more CTAs.
  EXPECT_EQ(ms::tile_score(wide, 1024, 1088, kGb10), 72 * 1000 / 96);
  EXPECT_EQ(ms::tile_score(t, 1024, 1088, kGb10), 136 * 1000 / 192);
  EXPECT_EQ(chosen(kFp8Tiles, 2, 1024, 1088, kGb10, CtaPreference::MoreCtas), TileId::K128x128x64s4);
  // ... and on 170 SMs both fit one wave: 72 / 170 against 136 / 340.
  EXPECT_EQ(chosen(kFp8Tiles, 2, 1024, 1088, kRtx5090, CtaPreference::MoreCtas), TileId::K128x128x64s4);
}

// On the H200 the two shapes tie on score; the preference decides (the library asks for MoreCtas).
TEST(MmaSyncPlan, H200TiesGoByThePreference) {
  for (int64_t m : {128, 2048, 4096, 8192}) {
    SCOPED_TRACE(m);
    EXPECT_EQ(chosen(kFp8Tiles, 2, m, 4096, kH200, CtaPreference::LargerCtas), TileId::K128x128x64s4);
    EXPECT_EQ(chosen(kFp8Tiles, 2, m, 4096, kH200, CtaPreference::MoreCtas), TileId::K128x64x64s4);
  }
}

TEST(MmaSyncPlan, TuringKeepsTheSixtyFourKibTile) {
  EXPECT_EQ(chosen(kSm75Tiles, 1, 4096, 4096, kTuring, CtaPreference::MoreCtas), TileId::K128x128x64s4);
}

// Any shape on any plausible device: the choice fits the device and the grid.
TEST(MmaSyncPlan, ChoiceFitsOverRandomDevices) {
  std::mt19937 rng(14);
  std::uniform_int_distribution<int64_t> dim(1, 1 << 16);
  std::uniform_int_distribution<int> sms(1, 200), smem_kib(40, 228);
  for (int i = 0; i < 5000; ++i) {
    const int per_block = smem_kib(rng) * 1024;
    const DeviceInfo dev = device(120, sms(rng), per_block, per_block + 1024);
    const int64_t m = dim(rng), n = dim(rng);
    for (const auto& family : {std::make_pair(kFp8Tiles, 2), std::make_pair(kSm75Tiles, 1)}) {
      for (CtaPreference pref : {CtaPreference::MoreCtas, CtaPreference::LargerCtas}) {
        const int idx = ms::choose_tile(m, n, dev, family.first, family.second, pref);
        bool any_fits = false;
        for (int t = 0; t < family.second; ++t)
          any_fits |= ms::tile_shape(family.first[t]).smem_bytes() <= dev.smem_per_block_optin;
        ASSERT_EQ(idx >= 0, any_fits) << m << " x " << n << ", " << per_block << " B";
        if (idx >= 0) {
          ASSERT_LE(ms::tile_shape(family.first[idx]).smem_bytes(), dev.smem_per_block_optin);
          ASSERT_GT(ms::tile_score(ms::tile_shape(family.first[idx]), m, n, dev), 0);
        }
      }
    }
  }
}

}  // namespace
