#include "core/environment.hpp"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "core/enums.hpp"

namespace fp8kit {
namespace {

bool is_one(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "1") == 0;
}

// A positive decimal integer that fits an int; 0 for anything else (unset,
// empty, signs, trailing characters).
int positive_from(const char* v) {
  if (v == nullptr || *v < '1' || *v > '9') return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return *end == '\0' && n <= INT_MAX ? static_cast<int>(n) : 0;
}

ClusterOverride cluster_from(const char* v) {
  if (v == nullptr) return ClusterOverride::kPlan;
  if (std::strcmp(v, "1") == 0) return ClusterOverride::kOff;
  if (std::strcmp(v, "2") == 0) return ClusterOverride::kOn;
  if (std::strcmp(v, "2x") == 0) return ClusterOverride::kShareX;
  if (std::strcmp(v, "2y") == 0) return ClusterOverride::kShareY;
  return ClusterOverride::kPlan;
}

Environment read() {
  Environment env;
  if (const char* p = std::getenv("FP8KIT_PATH"); p && *p) {
    env.path_text = p;
    env.path_valid = path_of_name(p, &env.path);
  }
  env.checked = is_one("FP8KIT_CHECKED");
  env.programmatic_launch = is_one("FP8KIT_PDL");
  env.sm90_cluster = cluster_from(std::getenv("FP8KIT_SM90_CLUSTER"));
  env.sm90_cluster_split = positive_from(std::getenv("FP8KIT_SM90_CLUSTER_SPLIT"));
  if (const char* t = std::getenv("FP8KIT_MMA_SYNC_TILE")) env.mma_sync_tile = t;
  if (const char* w = std::getenv("FP8KIT_NVFP4_DECODE_WARPS_N")) {
    for (int allowed : {1, 2, 4, 8})
      if (std::strcmp(w, std::to_string(allowed).c_str()) == 0) env.nvfp4_decode_warps_n = allowed;
  }
  if (const char* t = std::getenv("FP8KIT_NVFP4_SM90_TOKENS")) {
    for (int allowed : {128, 256})
      if (std::strcmp(t, std::to_string(allowed).c_str()) == 0) env.nvfp4_sm90_tokens = allowed;
  }
  env.nvfp4_sm90_split = positive_from(std::getenv("FP8KIT_NVFP4_SM90_SPLIT"));
  return env;
}

Environment g_env;
std::once_flag g_once;

}  // namespace

const Environment& environment() {
  std::call_once(g_once, [] { g_env = read(); });
  return g_env;
}

void reload_environment() {
  environment();
  g_env = read();
}

}  // namespace fp8kit
