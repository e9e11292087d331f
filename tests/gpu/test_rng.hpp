// The GPU tests' random source: fresh inputs every run (a random_device seed),
// one generator per test process.
#pragma once

#include <random>

namespace fp8kit::test {

inline std::mt19937_64& rng() {
  static std::mt19937_64 r{std::random_device{}()};
  return r;
}

}  // namespace fp8kit::test
