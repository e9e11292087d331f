// A ping-pong consumer's position in the ring of stages (pingpong.cuh), in
// plain C++ so that the host's protocol test (tests/unit/
// test_sm90_pingpong_protocol.cpp) runs the same code as the device.
#pragma once

#include <cstdint>

#include "gemm/sm90/tile_config.hpp"

#if defined(__CUDACC__)
#define FP8KIT_SM90_HD __host__ __device__ __forceinline__
#else
#define FP8KIT_SM90_HD inline
#endif

namespace fp8kit::sm90 {

// The stage in the common ring, and the phase of this consumer's own `full`
// barrier there (bit s of `flips`: the parity of its K blocks consumed at
// stage s so far; the other consumer's K blocks do not move its barriers).
template <int kStages>
struct PingPongState {
  static_assert(kStages <= 32, "one bit per stage");
  int stage = 0;
  uint32_t phase = 0;
  uint32_t flips = 0;
  int full0;  // the first barrier of this consumer's set (full_set)

  FP8KIT_SM90_HD explicit PingPongState(int set) : full0(set) {}
  FP8KIT_SM90_HD int full_index() const { return full0 + stage; }
  FP8KIT_SM90_HD void advance() {  // past one of its own K blocks
    flips ^= 1u << stage;
    move(1);
  }
  FP8KIT_SM90_HD void skip(int n) { move(n); }  // past n of the other consumer's
  FP8KIT_SM90_HD void move(int n) {
    stage = (stage + n) % kStages;
    phase = (flips >> stage) & 1u;
  }
};

// The first `full` barrier of the set that signals the CTA's local unit
// `local` (its index among the CTA's units): one set, or in ping-pong tiles
// one per consumer, the owner of every other unit.
template <Tile T>
FP8KIT_SM90_HD int full_set(int local) {
  using Cfg = TileConfig<T>;
  return Cfg::kPingPong ? (local % kConsumers) * Cfg::kStages : 0;
}

}  // namespace fp8kit::sm90
