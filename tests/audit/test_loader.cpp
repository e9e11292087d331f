// The loader rule of docs/loader.md, case by case.
#include <gtest/gtest.h>

#include <vector>

#include "arch/loader.hpp"

namespace fp8kit::arch {
namespace {

Image sass(int a, Variant v = Variant::Plain) { return {ImageKind::Sass, a, v}; }
Image ptx(int a, Variant v = Variant::Plain) { return {ImageKind::Ptx, a, v}; }

// The name of the image chosen on `cap`, "" when none loads.
std::string pick(int cap, const std::vector<Image>& images) {
  const int i = select_image(cap, images);
  if (i < 0) return "";
  return images[static_cast<std::size_t>(i)].name();
}

TEST(Loader, PlainSassRunsOnLaterMinorsOfItsMajor) {
  const std::vector<Image> v{sass(120)};
  EXPECT_EQ(pick(120, v), "sm_120");
  EXPECT_EQ(pick(121, v), "sm_120");  // GB10 loads the 12.0 cubin
  EXPECT_EQ(pick(129, v), "sm_120");
  EXPECT_EQ(pick(130, v), "");  // not across majors
  EXPECT_EQ(pick(100, v), "");  // never backwards
  EXPECT_EQ(pick(86, {sass(80)}), "sm_80");
  EXPECT_EQ(pick(89, {sass(86)}), "sm_86");
  EXPECT_EQ(pick(80, {sass(86)}), "");
}

TEST(Loader, HighestCompatibleSassWins) {
  const std::vector<Image> v{sass(120), sass(121)};
  EXPECT_EQ(pick(120, v), "sm_120");
  EXPECT_EQ(pick(121, v), "sm_121");  // the seed bug: 12.1 prefers its own (stub) cubin
  EXPECT_EQ(pick(123, v), "sm_121");
  EXPECT_EQ(pick(103, {sass(100), sass(103)}), "sm_103");
  EXPECT_EQ(pick(103, {sass(100)}), "sm_100");
}

TEST(Loader, ArchSpecificRunsOnExactlyItsCapability) {
  const std::vector<Image> v{sass(120, Variant::ArchSpecific)};
  EXPECT_EQ(pick(120, v), "sm_120a");
  EXPECT_EQ(pick(121, v), "");  // sm_120a does not load on GB10
  EXPECT_EQ(pick(90, {sass(90, Variant::ArchSpecific)}), "sm_90a");
  EXPECT_EQ(pick(100, {sass(90, Variant::ArchSpecific)}), "");
  EXPECT_EQ(pick(103, {sass(100, Variant::ArchSpecific)}), "");
}

TEST(Loader, FamilySpecificRunsOnTheFamily) {
  const std::vector<Image> v{sass(120, Variant::FamilySpecific)};
  EXPECT_EQ(pick(120, v), "sm_120f");
  EXPECT_EQ(pick(121, v), "sm_120f");
  EXPECT_EQ(pick(130, v), "");
  EXPECT_EQ(pick(103, {sass(100, Variant::FamilySpecific)}), "sm_100f");
  EXPECT_EQ(pick(110, {sass(100, Variant::FamilySpecific)}), "");
}

TEST(Loader, SassBeforePtx) {
  const std::vector<Image> v{sass(80), ptx(80)};
  EXPECT_EQ(pick(86, v), "sm_80");
  EXPECT_EQ(pick(90, v), "compute_80");  // no SASS for the major: JIT
  EXPECT_EQ(pick(121, {sass(120), ptx(121)}), "sm_120");
}

TEST(Loader, PtxJitsForwardHighestFirst) {
  const std::vector<Image> v{ptx(80), ptx(120)};
  EXPECT_EQ(pick(75, v), "");
  EXPECT_EQ(pick(90, v), "compute_80");
  EXPECT_EQ(pick(121, v), "compute_120");
  EXPECT_EQ(pick(130, v), "compute_120");
}

TEST(Loader, SpecificPtxStaysInItsRange) {
  EXPECT_EQ(pick(90, {ptx(90, Variant::ArchSpecific)}), "compute_90a");
  EXPECT_EQ(pick(100, {ptx(90, Variant::ArchSpecific)}), "");
  EXPECT_EQ(pick(121, {ptx(120, Variant::FamilySpecific)}), "compute_120f");
  EXPECT_EQ(pick(130, {ptx(120, Variant::FamilySpecific)}), "");
}

TEST(Loader, TiesGoToTheMostSpecificImageInAnyOrder) {
  EXPECT_EQ(pick(120, {sass(120), sass(120, Variant::ArchSpecific)}), "sm_120a");
  EXPECT_EQ(pick(120, {sass(120, Variant::ArchSpecific), sass(120)}), "sm_120a");
  EXPECT_EQ(pick(121, {sass(120), sass(120, Variant::FamilySpecific)}), "sm_120f");
  EXPECT_EQ(pick(121, {sass(120, Variant::ArchSpecific), sass(120)}), "sm_120");
}

TEST(Loader, NothingLoads) {
  EXPECT_EQ(select_image(121, nullptr, 0), -1);
  EXPECT_EQ(pick(75, {sass(80), ptx(80)}), "");
}

}  // namespace
}  // namespace fp8kit::arch
