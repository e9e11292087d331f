// Public enums arrive from C, where any int fits in them. In C++ loading a
// value outside an enum's range is undefined (UBSan flags it), so entry points
// read them as int until they are checked, and print unknown ones as numbers.
// The names of the values are here too, once: fp8kit.h's name functions, the
// messages, the programs' option parsers and the environment read them.
#pragma once

#include <cstring>
#include <iterator>
#include <string>

#include "fp8kit/fp8kit.h"

namespace fp8kit {

template <typename E>
int raw(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "fp8kit enums are 32-bit (FORCE_INT32)");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// Every fp8kit_path with its name, in enum order: a path's value is its index
// here, so a table of kPathCount entries indexed by raw(path) holds each path
// once.
struct PathName {
  fp8kit_path path;
  const char* name;
};
constexpr PathName kPathNames[] = {
    {FP8KIT_PATH_AUTO, "auto"},           {FP8KIT_PATH_SM90_WGMMA, "sm90_wgmma"}, {FP8KIT_PATH_SM89_MMA, "sm89_mma"},
    {FP8KIT_PATH_SM75_HMMA, "sm75_hmma"}, {FP8KIT_PATH_SM120_MMA, "sm120_mma"},   {FP8KIT_PATH_CUDA_CORES, "cuda_cores"},
};
constexpr int kPathCount = static_cast<int>(std::size(kPathNames));

constexpr bool paths_are_dense() {
  for (int i = 0; i < kPathCount; ++i)
    if (static_cast<int>(kPathNames[i].path) != i) return false;
  return true;
}
static_assert(paths_are_dense(), "kPathNames must list fp8kit_path values 0, 1, 2, ... in order");

constexpr bool is_path(int v) { return v >= 0 && v < kPathCount; }
// The name of a checked path value.
constexpr const char* path_name(int p) { return is_path(p) ? kPathNames[p].name : nullptr; }
// The path of that name; false when none has it.
bool path_of_name(const char* name, fp8kit_path* out);
// "auto, sm90_wgmma, ... or cuda_cores": the names, for messages.
std::string path_name_list();

// "bf16", or "99" for a value that names no dtype (likewise for the others).
std::string dtype_text(int v);
std::string scale_mode_text(int v);

// The texts of fp8kit.h's name functions; nullptr for a value that names
// none (the C functions then say "unknown_dtype" and so on).
const char* status_name(int v);
const char* dtype_name(int v);
const char* scale_mode_name(int v);
const char* grouped_layout_name(int v);
const char* nvfp4_scale_layout_name(int v);

}  // namespace fp8kit
