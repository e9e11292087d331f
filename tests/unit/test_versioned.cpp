// The versioned structs (docs/abi.md) without a GPU: struct_size below the
// first release or absurd is refused, a larger struct (a newer header) is
// taken when its unknown tail is zero and refused otherwise, naming the
// size; an output struct is written up to its struct_size and no further;
// the INIT macros and init functions set struct_size and zero the rest; and
// the library is the header's version.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "api/versioned.hpp"
#include "fp8kit/fp8kit.h"

namespace {

bool names(const char* needle) { return std::string(fp8kit_last_error()).find(needle) != std::string::npos; }

// A valid descriptor (fake device addresses: the checks that come first
// never touch them) in a buffer of `size` bytes, the tail set to `tail`.
std::vector<unsigned char> gemm_desc_bytes(size_t size, unsigned char tail) {
  fp8kit_gemm_desc d = FP8KIT_GEMM_DESC_INIT;
  d.m = 0;  // refused by the first check after the struct is read: proves the fields were read
  std::vector<unsigned char> buf(size > sizeof d ? size : sizeof d, tail);
  std::memcpy(buf.data(), &d, sizeof d);
  std::memcpy(buf.data(), &size, sizeof size);
  return buf;
}

fp8kit_status select(std::vector<unsigned char>& buf) {
  fp8kit_path p;
  return fp8kit_gemm_select(reinterpret_cast<const fp8kit_gemm_desc*>(buf.data()), nullptr, &p);
}

TEST(Versioned, VersionOfTheLibraryIsTheHeaders) {
  EXPECT_EQ(fp8kit_version(), FP8KIT_VERSION);
  EXPECT_STREQ(fp8kit_version_string(), FP8KIT_VERSION_STRING);
  EXPECT_EQ(FP8KIT_VERSION, FP8KIT_VERSION_MAJOR * 10000 + FP8KIT_VERSION_MINOR * 100 + FP8KIT_VERSION_PATCH);
}

TEST(Versioned, InitSetsTheSizeAndZeroesTheRest) {
  fp8kit_gemm_desc d;
  std::memset(&d, 0x5a, sizeof d);
  fp8kit_gemm_desc_init(&d);
  EXPECT_EQ(d.struct_size, sizeof d);
  EXPECT_EQ(d.m, 0);
  EXPECT_EQ(d.op.bias, nullptr);
  const fp8kit_gemm_options o = FP8KIT_GEMM_OPTIONS_INIT;
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.path, FP8KIT_PATH_AUTO);
  EXPECT_EQ(o.workspace, nullptr);
  const fp8kit_quantize_desc q = FP8KIT_QUANTIZE_DESC_INIT;
  EXPECT_EQ(q.struct_size, sizeof q);
  const fp8kit_grouped_gemm_desc g = FP8KIT_GROUPED_GEMM_DESC_INIT;
  EXPECT_EQ(g.struct_size, sizeof g);
}

TEST(Versioned, ThisHeadersSizeIsRead) {
  auto buf = gemm_desc_bytes(sizeof(fp8kit_gemm_desc), 0);
  EXPECT_EQ(select(buf), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(names("m = 0")) << fp8kit_last_error();
}

TEST(Versioned, TooSmallOrAbsurdSizesAreRefused) {
  for (size_t size : {size_t{0}, size_t{8}, sizeof(fp8kit_gemm_desc) - 8, size_t{1} << 40}) {
    auto buf = gemm_desc_bytes(size < sizeof(fp8kit_gemm_desc) ? sizeof(fp8kit_gemm_desc) : 64, 0);
    std::memcpy(buf.data(), &size, sizeof size);
    EXPECT_EQ(select(buf), FP8KIT_STATUS_INVALID_ARGUMENT) << size;
    EXPECT_TRUE(names(("desc->struct_size = " + std::to_string(size)).c_str())) << fp8kit_last_error();
  }
}

// A newer header's struct: its extra fields zero is what this library does
// anyway; anything else is a request it cannot honour.
TEST(Versioned, LargerStructWithZeroTailIsTaken) {
  auto buf = gemm_desc_bytes(sizeof(fp8kit_gemm_desc) + 24, 0);
  EXPECT_EQ(select(buf), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(names("m = 0")) << fp8kit_last_error();
}

TEST(Versioned, LargerStructWithUnknownFieldsIsRefused) {
  auto buf = gemm_desc_bytes(sizeof(fp8kit_gemm_desc) + 24, 0);
  buf[sizeof(fp8kit_gemm_desc) + 9] = 1;
  EXPECT_EQ(select(buf), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(names(("struct_size = " + std::to_string(sizeof(fp8kit_gemm_desc) + 24)).c_str()))
      << fp8kit_last_error();
  EXPECT_TRUE(names("fields it does not know")) << fp8kit_last_error();
}

TEST(Versioned, OptionsAreVersionedToo) {
  fp8kit_gemm_desc d = FP8KIT_GEMM_DESC_INIT;
  d.m = 0;
  fp8kit_gemm_options o = FP8KIT_GEMM_OPTIONS_INIT;
  o.struct_size = 3;
  fp8kit_path p;
  // The descriptor is checked first.
  EXPECT_EQ(fp8kit_gemm_select(&d, &o, &p), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(names("m = 0")) << fp8kit_last_error();
  fp8kit_gemm_options resolved;
  EXPECT_EQ(fp8kit::read_versioned(&o, &resolved), FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(names("options->struct_size = 3")) << fp8kit_last_error();
}

// Options of the layout before `accumulation` (ending at workspace_zeroed) are
// read up to their size: the bytes past it, garbage in the caller's memory,
// are never read, and accumulation takes its default, PROMOTED.
TEST(Versioned, OptionsOfTheLayoutBeforeAccumulationGetPromoted) {
  constexpr size_t kBefore = offsetof(fp8kit_gemm_options, workspace_zeroed) + sizeof(int);
  static_assert(kBefore < sizeof(fp8kit_gemm_options), "the options grew past workspace_zeroed");
  fp8kit_gemm_options caller;
  std::memset(&caller, 0x5a, sizeof caller);  // the caller's memory past its struct
  std::memset(&caller, 0, kBefore);
  caller.struct_size = kBefore;
  caller.workspace_zeroed = 1;
  fp8kit_gemm_options resolved;
  ASSERT_EQ(fp8kit::read_versioned(&caller, &resolved), FP8KIT_STATUS_SUCCESS) << fp8kit_last_error();
  EXPECT_EQ(resolved.struct_size, sizeof resolved);
  EXPECT_EQ(resolved.workspace_zeroed, 1);
  EXPECT_EQ(resolved.accumulation, FP8KIT_ACCUMULATION_PROMOTED);
  EXPECT_EQ(resolved.reserved, 0);
}

// An output struct of an older, smaller layout is written up to its size.
TEST(Versioned, OutputStructIsWrittenUpToItsSize) {
  struct Guarded {
    fp8kit_path_choice choice;
    unsigned char after[32];
  } g;
  std::memset(&g, 0xab, sizeof g);
  g.choice.struct_size = sizeof g.choice;
  const fp8kit_status s = fp8kit_choose_path(12, 1, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, &g.choice);
  EXPECT_TRUE(s == FP8KIT_STATUS_SUCCESS || s == FP8KIT_STATUS_UNSUPPORTED) << fp8kit_last_error();
  EXPECT_STREQ(g.choice.family, "Blackwell (SM12x)");
  for (unsigned char c : g.after) EXPECT_EQ(c, 0xab);
  fp8kit_path_choice bad{};
  EXPECT_EQ(fp8kit_choose_path(12, 1, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, &bad),
            FP8KIT_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(names("choice->struct_size = 0")) << fp8kit_last_error();
}

}  // namespace
