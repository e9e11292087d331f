// Helpers of the Hopper plan's host tests (test_sm90_plan.cpp,
// test_sm90_plan_clusters.cpp): the H200's SM count, a label per case, and
// the invariants every plan keeps.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/math.hpp"
#include "gemm/sm90/plan.hpp"

namespace fp8kit::sm90::plan_test {

constexpr int kH200Sms = 132;
constexpr size_t kAnyWorkspace = SIZE_MAX;

inline std::string label(int m, int n, int k, bool block, int sms, size_t ws) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + (block ? " block" : "") +
         " sms=" + std::to_string(sms) + " ws=" + (ws == SIZE_MAX ? std::string("any") : std::to_string(ws));
}

inline void expect_consistent(const Plan& p, int m, int n, int k, bool block, int sms, size_t ws) {
  SCOPED_TRACE(label(m, n, k, block, sms, ws));
  const Plan shape = sm90::shape_of(p.shape);
  EXPECT_EQ(p.block_m, shape.block_m);
  EXPECT_EQ(p.block_n, shape.block_n);
  EXPECT_EQ(p.swap, shape.swap);
  EXPECT_EQ(p.swap, m <= sm90::kSwapMaxM);
  EXPECT_EQ(sm90::row(p.shape).block_scales, block);
  // Tiles cover the kernel rows and columns exactly (no empty tile row or column).
  const int rows_x = p.swap ? n : m, rows_y = p.swap ? m : n;
  EXPECT_GE(int64_t{p.tiles_x} * p.block_m, rows_x);
  EXPECT_LT(int64_t{p.tiles_x - 1} * p.block_m, rows_x);
  EXPECT_GE(int64_t{p.tiles_y} * p.block_n, rows_y);
  EXPECT_LT(int64_t{p.tiles_y - 1} * p.block_n, rows_y);
  EXPECT_GE(p.group_x, 1);
  EXPECT_LE(p.group_x, std::min(p.tiles_x, sm90::kGroupX));
  // K splits: every split has K blocks, together exactly all of them.
  EXPECT_EQ(p.k_blocks, fp8kit::ceil_div(k, sm90::kBlockK));
  ASSERT_GE(p.splits, 1);
  EXPECT_GE(int64_t{p.kb_per_split} * p.splits, p.k_blocks);
  EXPECT_LT(int64_t{p.kb_per_split} * (p.splits - 1), p.k_blocks);
  const int64_t tiles = int64_t{p.tiles_x} * p.tiles_y;
  if (p.cluster == 1) {
    EXPECT_EQ(p.num_units, tiles * p.splits);
    EXPECT_EQ(p.grid, std::min<int64_t>(p.num_units, sms));
  } else {  // 2-CTA clusters: pairs of tiles, whole clusters, only with >= 2 waves of tiles
    ASSERT_EQ(p.cluster, 2);
    EXPECT_FALSE(p.swap);
    EXPECT_EQ(p.splits, 1);
    EXPECT_GE(sm90::waves_of(tiles, sms), 2);
    EXPECT_EQ(p.num_units, sm90::cluster_pairs(p, p.share_x));
    EXPECT_EQ(p.grid % 2, 0);
    EXPECT_LE(p.grid, sms);
    EXPECT_EQ(p.grid, 2 * std::min<int64_t>(p.num_units, sms / 2));
    EXPECT_LE(sm90::waves_of(p.num_units, sms / 2), sm90::waves_of(tiles, sms));
  }
  // Workspace: none without a split, nor for a cluster split (its partials
  // stay on chip); a workspace split's fits what the caller has.
  if (p.splits == 1 || p.cluster_splits > 1) {
    EXPECT_EQ(p.workspace_bytes(), 0u);
  } else {
    EXPECT_LE(p.workspace_bytes(), ws);
    // The partials keep the registers of the columns inside D: all of them
    // in the normal tiles, the tokens' (4 per 8 columns) in swapped ones.
    const int acc_regs = p.block_n / 2;
    EXPECT_EQ(p.partial_regs, p.swap ? std::min(acc_regs, 4 * static_cast<int>(fp8kit::ceil_div(m, 8))) : acc_regs);
    EXPECT_GE(p.partial_bytes, static_cast<size_t>(tiles) * p.splits * p.block_m * p.partial_regs *
                                   sm90::kWarpgroupThreads * sizeof(float) / sm90::kWgmmaM);
    // One counter region of fixed size at the workspace's head, for every plan.
    EXPECT_EQ(p.counter_bytes, sm90::kCounterBytes);
    EXPECT_LE(tiles, sm90::kMaxSplitTiles);
  }
}

}  // namespace fp8kit::sm90::plan_test
