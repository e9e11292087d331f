// GPU correctness of the Hopper NVFP4 kernels' K splits against the float64
// reference of the dequantised operands: the decode kernel's and the prefill
// kernel's every cluster split, each forced through the environment; skipped
// without a GPU or off Hopper.
#include <gtest/gtest.h>

#include <string>

#include "core/environment.hpp"
#include "gemm/nvfp4/nvfp4_sm90_config.hpp"
#include "test_expect.hpp"

using fp8kit::ref::Nvfp4Case;
using fp8kit::test::expect_nvfp4_correct;

namespace {

constexpr fp8kit_dtype kOuts[] = {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_F16, FP8KIT_DTYPE_F32};
struct Shape {
  int64_t m, n, k;
};

// Hopper's decode kernel at every K split (1 .. 8 CTAs per cluster, forced
// through FP8KIT_NVFP4_SM90_SPLIT): ragged last ranks (33 K blocks), a rank
// past K's end (2 blocks over 3 or more ranks), both scale layouts, bf16,
// f16 and NVFP4 tokens (both token scale layouts; a forced split runs past
// the caps the plan keeps NVFP4 and few tokens under), 5 .. 16 tokens.
TEST(Nvfp4Dense, WgmmaDecodeEverySplit) {
  constexpr fp8kit_dtype kTokens[] = {FP8KIT_DTYPE_BF16, FP8KIT_DTYPE_NVFP4, FP8KIT_DTYPE_F16};
  for (int splits = 1; splits <= 8; ++splits) {
    setenv("FP8KIT_NVFP4_SM90_SPLIT", std::to_string(splits).c_str(), 1);
    fp8kit::reload_environment();
    for (const Shape& sh : {Shape{13, 700, 2080}, Shape{16, 130, 128}, Shape{5, 300, 1056}}) {
      Nvfp4Case c{sh.m, sh.n, sh.k};
      c.a_type = kTokens[splits % 3];
      c.a_layout = splits % 4 == 1 ? FP8KIT_NVFP4_SCALES_LINEAR : FP8KIT_NVFP4_SCALES_SWIZZLED;
      c.lda_pad = splits % 2 ? 0 : 32;  // a token row strided past its K (elements; NVFP4: bytes)
      c.d_type = kOuts[splits % 3];
      c.bias = splits % 2 == 0;
      c.b_layout = splits % 3 == 0 ? FP8KIT_NVFP4_SCALES_LINEAR : FP8KIT_NVFP4_SCALES_SWIZZLED;
      SCOPED_TRACE("split " + std::to_string(splits));
      expect_nvfp4_correct(c, FP8KIT_PATH_SM90_WGMMA);
    }
  }
  unsetenv("FP8KIT_NVFP4_SM90_SPLIT");
  fp8kit::reload_environment();
}

// Hopper's prefill kernel at every K split (1 .. 8 CTAs per cluster, forced
// through FP8KIT_NVFP4_SM90_SPLIT) and both token tiles: ragged last ranks
// (33 K blocks), ranks past K's end (2 blocks over 3 or more ranks), a K
// tail of half a stage, ragged token and weight tiles, 17 .. 63 tokens (the
// split's short grids), both scale layouts, every output type, a bias.
TEST(Nvfp4Dense, WgmmaPrefillEverySplit) {
  const Shape shapes[] = {{17, 700, 2080}, {200, 130, 128}, {63, 256, 1056}, {300, 64, 96}};
  for (int splits = 1; splits <= fp8kit::nvfp4::sm90w::kMaxSplit; ++splits) {
    setenv("FP8KIT_NVFP4_SM90_SPLIT", std::to_string(splits).c_str(), 1);
    setenv("FP8KIT_NVFP4_SM90_TOKENS", splits % 2 ? "256" : "128", 1);
    fp8kit::reload_environment();
    for (int i = 0; i < 4; ++i) {
      const Shape& sh = shapes[i];
      Nvfp4Case c{sh.m, sh.n, sh.k};
      c.a_type = (splits + i) % 2 ? FP8KIT_DTYPE_BF16 : FP8KIT_DTYPE_F16;
      c.lda_pad = i == 2 ? 8 : 0;
      c.d_type = kOuts[(splits + i) % 3];
      c.bias = (splits + i) % 2 == 0;
      c.b_layout = (splits + i) % 3 == 0 ? FP8KIT_NVFP4_SCALES_LINEAR : FP8KIT_NVFP4_SCALES_SWIZZLED;
      SCOPED_TRACE("split " + std::to_string(splits) + ", shape " + std::to_string(i));
      expect_nvfp4_correct(c, FP8KIT_PATH_SM90_WGMMA);
    }
  }
  unsetenv("FP8KIT_NVFP4_SM90_SPLIT");
  unsetenv("FP8KIT_NVFP4_SM90_TOKENS");
  fp8kit::reload_environment();
}

}  // namespace
