// The portable FP8 GEMM's tile shapes and the host's choice among them, as
// plain C++ (no CUDA), so CPU tests pin the choice for real device limits.
//
// A tile is (BLK_M, BLK_N, BLK_K bytes of K per stage, stages, warps). Each
// warp computes 64 x 32 of the CTA tile (4 x 4 mma tiles of 16 x 8), so
// warps = BLK_M / 64 * BLK_N / 32. Shared memory per CTA is
// stages * (BLK_M + BLK_N) * BLK_K bytes (FP8 operands, nothing else).
//
// Two shapes (docs/perf/log/2026-12-01-mma-sync-sm12x.md):
//   128x128x64s4  8 warps, 65,536 B: one CTA per SM. Turing's 64 KiB opt-in
//                 (the f16 path), and where the wave count favours it.
//   128x64x64s4   4 warps, 49,152 B: two CTAs per SM on the 100 KB SMs of Ada
//                 and SM12x (101,376 B per block, 102,400 per SM) and on the
//                 H200: a barrier stalls half the SM's warps, and one CTA's
//                 epilogue overlaps the other's main loop. Measured on the
//                 H200 (FP8 emulated): 294 against 275 TFLOP/s at 4096^3.
#pragma once

#include <cstdint>

#include "gemm/gemm_params.hpp"

namespace fp8kit::mma_sync {

enum class TileId { K128x128x64s4, K128x64x64s4 };

struct TileShape {
  TileId id;
  const char* name;
  int block_m, block_n, block_k, stages;
  static constexpr int kWarpM = 64, kWarpN = 32;
  constexpr int warps() const { return (block_m / kWarpM) * (block_n / kWarpN); }
  constexpr int threads() const { return 32 * warps(); }
  constexpr int stage_bytes() const { return (block_m + block_n) * block_k; }
  constexpr int smem_bytes() const { return stages * stage_bytes(); }
};

constexpr TileShape kTileShapes[] = {
    {TileId::K128x128x64s4, "128x128x64s4", 128, 128, 64, 4},
    {TileId::K128x64x64s4, "128x64x64s4", 128, 64, 64, 4},
};

constexpr const TileShape& tile_shape(TileId id) { return kTileShapes[static_cast<int>(id)]; }
static_assert(tile_shape(TileId::K128x128x64s4).id == TileId::K128x128x64s4 &&
                  tile_shape(TileId::K128x64x64s4).id == TileId::K128x64x64s4,
              "kTileShapes is indexed by TileId");

// Device limits the choice reads (cudaDevAttr* values).
constexpr int kSmemReservedPerCta = 1024;  // the runtime's per-CTA reservation on SM80+
constexpr int kRegistersPerSm = 65536;
constexpr int kMaxRegistersPerThread = 256;  // 255 usable + allocation granularity
// Warps per SM that keep the tensor pipe fed with this kernel's
// ldmatrix/MMA mix (two 4-warp CTAs or one 8-warp CTA); more are not credited.
constexpr int kWarpsToSaturate = 8;

// CTAs of `t` that fit on one SM (shared memory and registers), 0 if none.
constexpr int ctas_per_sm(const TileShape& t, const DeviceInfo& dev) {
  if (t.smem_bytes() > dev.smem_per_block_optin) return 0;
  const int by_smem = dev.smem_per_sm / (t.smem_bytes() + kSmemReservedPerCta);
  const int by_regs = kRegistersPerSm / (t.threads() * kMaxRegistersPerThread);
  const int n = by_smem < by_regs ? by_smem : by_regs;
  return n > 0 ? n : 1;  // within the opt-in limit one CTA always fits
}

// How well tile `t` would use the device on an M x N output: the fraction of
// CTA slots busy over the waves, times the warps per SM it keeps (capped).
// In thousandths, so ties compare exactly.
inline int64_t tile_score(const TileShape& t, int64_t m, int64_t n, const DeviceInfo& dev) {
  const int per_sm = ctas_per_sm(t, dev);
  if (per_sm == 0 || dev.sm_count <= 0) return 0;
  const int64_t tiles = ceil_div(m, t.block_m) * ceil_div(n, t.block_n);
  const int64_t slots = static_cast<int64_t>(per_sm) * dev.sm_count;
  const int64_t waves = ceil_div(tiles, slots);
  const int warps = per_sm * t.warps() < kWarpsToSaturate ? per_sm * t.warps() : kWarpsToSaturate;
  return tiles * 1000 * warps / (waves * slots * kWarpsToSaturate);
}

// Which way equal scores go: to more, smaller CTAs per SM (what the library
// asks for on every family: measured on the H200, docs/perf/log/2026-12-01-mma-sync-sm12x.md), or to fewer,
// larger ones (kept for the tests that pin the rule both ways).
enum class CtaPreference { MoreCtas, LargerCtas };

// Index into `carried` of the tile to launch, or -1 if none fits the device.
// Highest score; ties go by `pref`, then to more K per stage, then to the
// earlier entry.
inline int choose_tile(int64_t m, int64_t n, const DeviceInfo& dev, const TileId* carried, int count,
                       CtaPreference pref) {
  int best = -1;
  int64_t best_score = 0;
  for (int i = 0; i < count; ++i) {
    const TileShape& t = tile_shape(carried[i]);
    const int64_t s = tile_score(t, m, n, dev);
    if (s == 0) continue;
    bool better = best < 0 || s > best_score;
    if (!better && s == best_score) {
      const TileShape& b = tile_shape(carried[best]);
      const int pt = ctas_per_sm(t, dev), pb = ctas_per_sm(b, dev);
      const bool preferred = pref == CtaPreference::MoreCtas ? pt > pb : pt < pb;
      better = preferred || (pt == pb && t.block_k > b.block_k);
    }
    if (better) {
      best = i;
      best_score = s;
    }
  }
  return best;
}

}  // namespace fp8kit::mma_sync
