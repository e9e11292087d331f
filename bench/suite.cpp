#include "suite.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common.hpp"

namespace fp8bench {
namespace {

// --quick: these M values (where the suite has them), every kQuickPairStride-th
// (N, K) pair starting with the first, the first peak shape and all ragged ones.
constexpr int64_t kQuickM[] = {1, 16, 512, 4096};
constexpr size_t kQuickPairStride = 3;

int64_t positive(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int64_t>() <= 0)
    throw BadArgs(where + ": \"" + key + "\" must be a positive integer");
  return j[key].get<int64_t>();
}

}  // namespace

const char* shape_kind_name(ShapeKind kind) {
  switch (kind) {
    case ShapeKind::Grid: return "grid";
    case ShapeKind::Peak: return "peak";
    case ShapeKind::Ragged: return "ragged";
  }
  return "?";
}

bool ShapeFilter::matches(const Shape& s) const {
  return (m < 0 || m == s.m) && (n < 0 || n == s.n) && (k < 0 || k == s.k);
}

bool parse_filter(const std::string& text, ShapeFilter* filter) {
  std::stringstream in(text);
  std::string part;
  int64_t* fields[] = {&filter->m, &filter->n, &filter->k};
  int count = 0;
  while (std::getline(in, part, ',')) {
    if (count == 3) return false;
    if (part == "*" || part.empty()) {
      *fields[count++] = -1;
      continue;
    }
    size_t used = 0;
    try {
      const long long v = std::stoll(part, &used);
      if (used != part.size() || v <= 0) return false;
      *fields[count++] = v;
    } catch (const std::exception&) {
      return false;
    }
  }
  return count == 3;
}

std::vector<Shape> load_suite(const std::string& path, bool quick,
                              const std::vector<ShapeFilter>& filters) {
  std::ifstream file(path);
  if (!file) throw BadArgs("cannot open suite file " + path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& e) {
    throw BadArgs(path + ": " + e.what());
  }
  for (const char* key : {"m", "nk"})
    if (!j.contains(key) || !j[key].is_array()) throw BadArgs(path + ": needs an array \"" + key + "\"");

  std::vector<int64_t> ms;
  for (const auto& v : j["m"]) {
    if (!v.is_number_integer() || v.get<int64_t>() <= 0) throw BadArgs(path + ": \"m\" holds a non-positive entry");
    const int64_t m = v.get<int64_t>();
    if (!quick || std::find(std::begin(kQuickM), std::end(kQuickM), m) != std::end(kQuickM)) ms.push_back(m);
  }
  struct Pair { int64_t n, k; std::string model, layer; };
  std::vector<Pair> pairs;
  for (size_t i = 0; i < j["nk"].size(); ++i) {
    const auto& e = j["nk"][i];
    const std::string where = path + ": nk[" + std::to_string(i) + "]";
    Pair p{positive(e, "n", where), positive(e, "k", where), e.value("model", ""), e.value("layer", "")};
    if (!quick || i % kQuickPairStride == 0) pairs.push_back(p);
  }

  std::vector<Shape> shapes;
  for (int64_t m : ms)
    for (const Pair& p : pairs) shapes.push_back({m, p.n, p.k, ShapeKind::Grid, p.model, p.layer});
  const std::pair<const char*, ShapeKind> extras[] = {{"peak", ShapeKind::Peak}, {"ragged", ShapeKind::Ragged}};
  for (const auto& [key, kind] : extras) {
    if (!j.contains(key)) continue;
    if (!j[key].is_array()) throw BadArgs(path + ": \"" + key + "\" must be an array");
    for (size_t i = 0; i < j[key].size(); ++i) {
      if (quick && kind == ShapeKind::Peak && i > 0) break;
      const auto& e = j[key][i];
      const std::string where = path + ": " + key + "[" + std::to_string(i) + "]";
      shapes.push_back({positive(e, "m", where), positive(e, "n", where), positive(e, "k", where), kind, "", ""});
    }
  }
  if (!filters.empty()) {
    std::vector<Shape> kept;
    for (const Shape& s : shapes)
      if (std::any_of(filters.begin(), filters.end(), [&](const ShapeFilter& f) { return f.matches(s); }))
        kept.push_back(s);
    shapes.swap(kept);
  }
  return shapes;
}

}  // namespace fp8bench
