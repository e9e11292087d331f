// The benchmark suite (bench/shapes.json): every M times every (N, K) pair of
// real LLM projections, plus peak and ragged shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fp8bench {

enum class ShapeKind { Grid, Peak, Ragged };
const char* shape_kind_name(ShapeKind kind);

struct Shape {
  int64_t m = 0, n = 0, k = 0;
  ShapeKind kind = ShapeKind::Grid;
  std::string model, layer;  // empty for peak and ragged shapes
};

// "M,N,K", each a number or '*' (any).
struct ShapeFilter {
  int64_t m = -1, n = -1, k = -1;  // -1: any
  bool matches(const Shape& s) const;
};
bool parse_filter(const std::string& text, ShapeFilter* filter);

// Reads the suite and expands it in order: the grid (M outer, pairs inner),
// then peak, then ragged. `quick` keeps a fixed subset (docs/bench.md).
// Throws BadArgs on a missing or malformed file.
std::vector<Shape> load_suite(const std::string& path, bool quick,
                              const std::vector<ShapeFilter>& filters);

}  // namespace fp8bench
