// The ping-pong tiles' pipeline protocol (src/gemm/sm90/pingpong.cuh) on a
// host model of mbarrier parity waits: one producer loading every unit's K
// blocks in order into a ring of stages, two consumers each owning every
// other unit, in random interleavings with TMA completions that land late.
// A consumer's wait must pass exactly when the stage holds its K block, and
// every run must finish (no deadlock). The model also runs the first
// device version's protocol (one shared set of `full` barriers, each
// consumer skipping the other's K blocks) to show the check catches what
// the device caught: a wait passing on the wrong phase once a unit has
// more K blocks than the ring has stages.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gemm/sm90/pingpong_state.hpp"

namespace sm90 = fp8kit::sm90;

namespace {

// An mbarrier reduced to what a parity wait sees: completed phases.
struct Barrier {
  int completed = 0;
  int last = -1;  // the K block whose arrival completed the last phase
  // try_wait.parity(p) passes once the phase of parity p has completed,
  // i.e. while the current (incomplete) phase has the other parity.
  bool passes(uint32_t parity) const { return static_cast<uint32_t>(completed % 2) != parity; }
};

// The shared-set protocol of the first version: a global position whose
// skip moves the phase with the ring.
template <int kStages>
struct SharedState {
  int stage = 0;
  uint32_t phase = 0;
  int full_index() const { return stage; }
  void advance() { move(1); }
  void skip(int n) { move(n); }
  void move(int n) {
    const int s = stage + n;
    phase ^= static_cast<uint32_t>(s / kStages) & 1u;
    stage = s % kStages;
  }
};

enum class Outcome { kCorrect, kWrongPhase, kDeadlock };

// One random run over `kb` (K blocks per unit, the CTA's units in order);
// `in_order`: the TMA loads land in the order they were issued.
template <int kStages, typename State>
Outcome simulate(const std::vector<int>& kb, bool per_consumer_sets, uint64_t seed, bool in_order = false) {
  std::mt19937_64 rng(seed);
  const int sets = per_consumer_sets ? 2 : 1;
  std::vector<Barrier> full(sets * kStages), empty(kStages);
  std::vector<int> owner_of_block, first_block(kb.size() + 1, 0);
  for (size_t u = 0; u < kb.size(); ++u) {
    first_block[u + 1] = first_block[u] + kb[u];
    for (int j = 0; j < kb[u]; ++j) owner_of_block.push_back(static_cast<int>(u % 2));
  }
  const int blocks = first_block.back();
  std::vector<int> in_flight;  // blocks issued by the producer whose TMA has not landed
  int produced = 0;
  uint32_t prod_phase = 0;
  struct Consumer {
    State ps;
    size_t unit = 0;
    int j = 0;  // K block within the unit
  };
  auto make = [&](int c) {
    if constexpr (std::is_same_v<State, SharedState<kStages>>) return Consumer{State{}};
    else return Consumer{State(per_consumer_sets ? c * kStages : 0)};
  };
  Consumer cons[2] = {make(0), make(1)};
  auto set_of = [&](int block) { return per_consumer_sets ? owner_of_block[block] * kStages : 0; };
  // Moves consumer c past the other's units; true when it has finished.
  auto settle = [&](int c) {
    Consumer& k = cons[c];
    while (k.unit < kb.size() && static_cast<int>(k.unit % 2) != c) {
      k.ps.skip(kb[k.unit]);
      ++k.unit;
    }
    return k.unit >= kb.size();
  };
  for (int step = 0; step < 100000; ++step) {
    std::vector<int> ready;  // 0: producer issues, 1: a TMA lands, 2 / 3: consumer 0 / 1 takes a block
    const int stage = produced % kStages;
    if (produced < blocks && empty[stage].passes(prod_phase ^ 1u)) ready.push_back(0);
    if (!in_flight.empty()) ready.push_back(1);
    for (int c = 0; c < 2; ++c)
      if (!settle(c) && full[cons[c].ps.full_index()].passes(cons[c].ps.phase)) ready.push_back(2 + c);
    if (ready.empty()) return settle(0) && settle(1) && produced == blocks ? Outcome::kCorrect : Outcome::kDeadlock;
    const int pick = ready[rng() % ready.size()];
    if (pick == 0) {
      in_flight.push_back(produced++);
      if (produced % kStages == 0) prod_phase ^= 1u;
    } else if (pick == 1) {
      const size_t i = in_order ? 0 : rng() % in_flight.size();
      const int block = in_flight[i];
      in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(i));
      Barrier& b = full[set_of(block) + block % kStages];
      ++b.completed;
      b.last = block;
    } else {
      Consumer& k = cons[pick - 2];
      const int block = first_block[k.unit] + k.j;
      const int s = k.ps.stage;
      if (s != block % kStages || full[k.ps.full_index()].last != block) return Outcome::kWrongPhase;
      ++empty[s].completed;  // the owner frees the stage
      k.ps.advance();
      if (++k.j == kb[k.unit]) {
        k.j = 0;
        ++k.unit;
      }
    }
  }
  return Outcome::kDeadlock;
}

constexpr int kStages = 6;  // the non-block ping-pong tile's (5 in block mode: same protocol)

TEST(Sm90PingPongProtocol, OwnBarrierSetsAreCorrectInEveryInterleaving) {
  const std::vector<std::vector<int>> runs = {
      {9, 9, 9, 9, 9}, {4, 4, 4}, {1}, {1, 1}, {13, 2, 7, 6, 6, 1, 12}, {6, 6, 6, 6}, {5, 7, 5, 7, 5}, {64, 64, 64}};
  for (const auto& kb : runs)
    for (uint64_t seed = 0; seed < 200; ++seed) {
      SCOPED_TRACE("run of " + std::to_string(kb.size()) + " units, seed " + std::to_string(seed));
      for (bool in_order : {false, true}) {
        EXPECT_EQ((simulate<kStages, sm90::PingPongState<kStages>>(kb, true, seed, in_order)), Outcome::kCorrect);
        EXPECT_EQ((simulate<5, sm90::PingPongState<5>>(kb, true, seed, in_order)), Outcome::kCorrect);
      }
    }
}

TEST(Sm90PingPongProtocol, OneSharedSetFailsOnceUnitsOutgrowTheRing) {
  // The first device version, with loads landing in order: right while a
  // unit's K blocks fit the ring (K = 512: 4), wrong in some interleaving
  // with 9 (K = 1040), as on the H200. (Landing out of order, it can go
  // wrong with short units too.)
  int bad_short = 0, bad_long = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    bad_short += simulate<kStages, SharedState<kStages>>({4, 4, 4, 4}, false, seed, true) != Outcome::kCorrect;
    bad_long += simulate<kStages, SharedState<kStages>>({9, 9, 9, 9, 9}, false, seed, true) != Outcome::kCorrect;
  }
  EXPECT_EQ(bad_short, 0);
  EXPECT_GT(bad_long, 0);
}

TEST(Sm90PingPongProtocol, FullSetsPerTile) {
  using sm90::Tile;
  EXPECT_EQ(sm90::full_set<Tile::k128x128PingPong>(0), 0);
  EXPECT_EQ(sm90::full_set<Tile::k128x128PingPong>(3), sm90::TileConfig<Tile::k128x128PingPong>::kStages);
  EXPECT_EQ(sm90::full_set<Tile::k128x128>(3), 0);
  EXPECT_EQ(sm90::TileConfig<Tile::k128x128PingPongBlock>::kFullSets, 2);
  EXPECT_EQ(sm90::TileConfig<Tile::k256x128>::kFullSets, 1);
}

}  // namespace
