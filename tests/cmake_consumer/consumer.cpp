// Calls into fp8kit without a GPU: a refused descriptor (its message names the
// argument) and the build's target list. Exit 0 when both answer as documented.
#include <fp8kit/fp8kit.h>

#include <cstdio>
#include <cstring>

int main() {
  fp8kit_gemm_desc desc = FP8KIT_GEMM_DESC_INIT;
  desc.m = 0;
  if (fp8kit_gemm(&desc, nullptr, nullptr) != FP8KIT_STATUS_INVALID_ARGUMENT ||
      std::strstr(fp8kit_last_error(), "m = 0") == nullptr) {
    std::fprintf(stderr, "unexpected answer to m = 0: %s\n", fp8kit_last_error());
    return 1;
  }
  std::printf("fp8kit %d.%d.%d: %s\n", FP8KIT_VERSION_MAJOR, FP8KIT_VERSION_MINOR, FP8KIT_VERSION_PATCH,
              fp8kit_build_targets());
  return std::strstr(fp8kit_build_targets(), "sm89_mma") != nullptr ? 0 : 1;
}
