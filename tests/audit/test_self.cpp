// fp8kit checks itself: every kernel its library ships belongs to a family of
// its registry (api/kernel_catalog.hpp) and none is a trap stub, an empty body
// or a missing image; each family's kernels use the tensor cores they claim;
// its sources pass fp8kit lint.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "api/kernel_catalog.hpp"
#include "arch/config.hpp"
#include "audit/families.hpp"
#include "audit/lint.hpp"
#include "gemm/nvfp4/nvfp4_paths.hpp"
#include "gemm/sm90/tile_config.hpp"
#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

std::vector<int> shipped_targets() {
  std::vector<int> v;
  std::istringstream in(FP8KIT_SHIPPED_TARGETS);
  for (int t; in >> t;) v.push_back(t);
  return v;
}

// The library's kernel families (api/kernel_catalog.hpp), those this build carries.
const std::vector<KernelFamily>& families() {
  static const std::vector<KernelFamily> f = [] {
    std::vector<KernelFamily> out;
    for (const KernelFamilyEntry& e : kernel_catalog())
      if (!e.images->empty())
        out.push_back({std::string(e.kind) + " " + e.path, e.kernels.function, e.kernels.policy ? e.kernels.policy : ""});
    return out;
  }();
  return f;
}

// The family a record belongs to ("GEMM sm89_mma"), or "".
std::string family_of(const KernelRecord& k) {
  for (const KernelFamily& f : families())
    if (k.demangled.find(f.function) != std::string::npos &&
        (f.policy.empty() || k.demangled.find(f.policy) != std::string::npos))
      return f.name;
  return "";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The NVFP4 families' kernels (dense and grouped GEMM), and those of their
// SM12x path (the block-scaled FP4 mma, nvfp4_omma.cuh).
bool is_nvfp4_kernel(const KernelRecord& k) {
  const std::string f = family_of(k);
  return f.rfind("NVFP4 GEMM", 0) == 0 || f.rfind("NVFP4 grouped GEMM", 0) == 0;
}
bool is_omma_kernel(const KernelRecord& k) { return is_nvfp4_kernel(k) && ends_with(family_of(k), "sm120_mma"); }
// Hopper's NVFP4 path: decoded into 16-bit wgmma (HGMMA), no mma.sync; its
// kernel that widens NVFP4 A to bf16 no tensor-core instruction at all.
bool is_nvfp4_wgmma_kernel(const KernelRecord& k) {
  return is_nvfp4_kernel(k) && ends_with(family_of(k), "sm90_wgmma");
}
void expect_nvfp4_wgmma(const KernelRecord& k) {
  if (k.demangled.find(nvfp4::kWgmmaWidenKernel) != std::string::npos) {
    EXPECT_EQ(k.tensor_ops, 0u) << tensor_ops_names(k.tensor_ops);
    return;
  }
  EXPECT_TRUE(k.tensor_ops & tc::kHgmma) << tensor_ops_names(k.tensor_ops);
  EXPECT_FALSE(k.tensor_ops & (tc::kHmma | tc::kFp8Native)) << tensor_ops_names(k.tensor_ops);
}

#ifdef FP8KIT_LIBRARY
// Every kernel x GPU record of the built libfp8kit.so, once: every kernel,
// whatever its name.
const AuditReport& library_report() {
  static const AuditReport r = [] {
    AuditOptions o;
    o.gpus = shipped_targets();
    o.gpus.push_back(123);  // a 12.x nobody has seen: must land on the 12.x image
    o.gpus.push_back(130);  // the next major: PTX must JIT
    o.keep_records = true;
    return audit_files({FP8KIT_LIBRARY}, o);
  }();
  return r;
}

// Every kernel of the library belongs to a family of its registry, every
// family has kernels, and no image a GPU loads is a trap stub, an empty body
// or missing. Nothing here may skip: an empty match is a failure.
TEST(SelfAudit, EveryKernelBelongsToAFamilyAndIsRealCode) {
  const AuditReport& r = library_report();
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].where << ": " << r.errors[0].message;
  ASSERT_FALSE(families().empty());
  const FamilyAudit fam = attribute_families(r, families(), "fp8kit::");
  ASSERT_FALSE(fam.tallies.empty()) << "no kernel of the library matched its registry";
  for (const std::string& k : fam.unattributed) ADD_FAILURE() << "a kernel of no family: " << k;
  for (const std::string& f : fam.empty) ADD_FAILURE() << "a family with no kernel in the library: " << f;
  for (const KernelRecord& k : r.offenders)
    ADD_FAILURE() << capability_name(k.gpu) << ": " << outcome_name(k.outcome) << " "
                  << (k.has_image ? image_name(k.image) : "") << " " << k.demangled;
  EXPECT_TRUE(fam.ok());
  RecordProperty("families", static_cast<int>(families().size()));
}

// Each family has kernels in the image of each target it was built for:
// grouped and quantisation kernels counted per image like the dense ones.
TEST(SelfAudit, EveryFamilyHasKernelsInEachOfItsImages) {
  const FamilyAudit fam = attribute_families(library_report(), families(), "fp8kit::");
  for (const KernelFamilyEntry& e : kernel_catalog()) {
    const std::string name = std::string(e.kind) + " " + e.path;
    for (const arch::Image& im : *e.images) {
      if (im.kind != arch::ImageKind::Sass) continue;
      size_t sass = 0;
      for (const FamilyTally& t : fam.tallies)
        if (t.family == name && t.gpu == im.arch) sass = t.sass;
      EXPECT_GT(sass, 0u) << name << ": no kernel loads from its " << image_name(im) << " image";
    }
  }
}

// The image of each target holds the tensor-core instructions its family is
// meant to use.
class GemmSass : public ::testing::TestWithParam<int> {};

TEST_P(GemmSass, TensorCoresOfTheTarget) {
  const int target = GetParam();
  const auto shipped = shipped_targets();
  if (std::find(shipped.begin(), shipped.end(), target) == shipped.end())
    GTEST_SKIP() << "sm_" << target << " is not in FP8KIT_CUDA_TARGETS of this build";
  AuditOptions o;
  o.gpus = {target};
  o.keep_records = true;
  const AuditReport r = audit_files({FP8KIT_LIBRARY}, o);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  int checked = 0;
  std::map<std::string, int> per_family;
  for (const KernelRecord& k : r.records) {
    if (!k.has_image || k.image.kind != arch::ImageKind::Sass) continue;
    if (k.image.arch < target || k.image.arch > target) continue;  // another target's image
    const std::string family = family_of(k);
    SCOPED_TRACE(image_name(k.image) + " " + family + " " + k.demangled);
    ASSERT_FALSE(family.empty());
    EXPECT_EQ(k.outcome, Outcome::Sass);
    ++per_family[family];
    if (is_nvfp4_kernel(k)) {
      // NVFP4: the block-scaled FP4 mma alone on SM12x; elsewhere decoded to 16 bits, HMMA.
      if (ends_with(family, "sm120_mma")) {
        EXPECT_EQ(k.tensor_ops, tc::kOmmaSf) << tensor_ops_names(k.tensor_ops);
      } else if (is_nvfp4_wgmma_kernel(k)) {
        expect_nvfp4_wgmma(k);
      } else {
        EXPECT_TRUE(k.tensor_ops & tc::kHmma) << tensor_ops_names(k.tensor_ops);
        EXPECT_FALSE(k.tensor_ops & tc::kFp8Native) << tensor_ops_names(k.tensor_ops);
      }
    } else if (ends_with(family, "sm90_wgmma")) {
      EXPECT_TRUE(k.tensor_ops & tc::kQgmma) << tensor_ops_names(k.tensor_ops);
      EXPECT_FALSE(k.tensor_ops & tc::kHmma) << tensor_ops_names(k.tensor_ops);
    } else if (ends_with(family, "sm120_mma")) {
      // The block-scaled form at unit scales, and only that.
      EXPECT_EQ(k.tensor_ops, tc::kQmmaSf) << tensor_ops_names(k.tensor_ops);
      EXPECT_EQ(k.image.variant, arch::Variant::FamilySpecific);
    } else if (ends_with(family, "cuda_cores")) {
      EXPECT_EQ(k.tensor_ops, 0u) << tensor_ops_names(k.tensor_ops);
    } else if (target >= 89 && (target < 90 || target >= 120)) {
      EXPECT_EQ(k.tensor_ops, tc::kQmma) << tensor_ops_names(k.tensor_ops);
    } else if (target < 89) {
      EXPECT_TRUE(k.tensor_ops & tc::kHmma) << tensor_ops_names(k.tensor_ops);
      EXPECT_FALSE(k.tensor_ops & tc::kFp8Native);
    } else {
      EXPECT_TRUE(k.tensor_ops & tc::kHmma) << "FP8 mma.sync is emulated with HMMA here";
    }
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no kernel has an sm_" << target << " image in this build";
  // Each sm_90a image carries every grouped kernel beside the dense ones.
  if (per_family.count("GEMM sm90_wgmma"))
    EXPECT_EQ(per_family["grouped GEMM sm90_wgmma"], sm90::kGroupedKernelCount);
  for (const auto& [family, n] : per_family) RecordProperty(family, n);
}

// On 12.0, 12.1 and a 12.x nobody has seen (12.3) the driver loads, for
// every kernel of the sm120_mma family, the one sm_120f image, and it is
// real code with QMMA.SF; the plain-QMMA sm89_mma kernels load a plain sm_12x
// image with QMMA. Dispatch prefers sm120_mma there, and falls back to sm89_mma.
TEST(SelfAudit, Sm12xLoadsTheFamilyImage) {
  const auto shipped = shipped_targets();
  if (std::find(shipped.begin(), shipped.end(), 120) == shipped.end())
    GTEST_SKIP() << "sm_120 is not in FP8KIT_CUDA_TARGETS of this build";
  AuditOptions o;
  o.gpus = {120, 121, 123};
  o.keep_records = true;
  const AuditReport r = audit_files({FP8KIT_LIBRARY}, o);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  std::map<int, int> scaled, plain;
  for (const KernelRecord& k : r.records) {
    const std::string family = family_of(k);
    const bool block_scaled = family == "GEMM sm120_mma", plain_qmma = family == "GEMM sm89_mma";
    if (!block_scaled && !plain_qmma) continue;
    SCOPED_TRACE(capability_name(k.gpu) + ": " + (k.has_image ? image_name(k.image) : "-") + " " + k.demangled);
    ASSERT_TRUE(k.has_image);
    EXPECT_EQ(k.outcome, Outcome::Sass);
    EXPECT_EQ(k.image.kind, arch::ImageKind::Sass);
    if (block_scaled) {
      EXPECT_EQ(k.image.arch, 120);
      EXPECT_EQ(k.image.variant, arch::Variant::FamilySpecific);
      EXPECT_EQ(k.tensor_ops, tc::kQmmaSf) << tensor_ops_names(k.tensor_ops);
      ++scaled[k.gpu];
    } else {
      EXPECT_TRUE(k.image.arch >= 120 && k.image.arch <= k.gpu) << image_name(k.image);
      EXPECT_EQ(k.image.variant, arch::Variant::Plain);
      EXPECT_EQ(k.tensor_ops, tc::kQmma) << tensor_ops_names(k.tensor_ops);
      ++plain[k.gpu];
    }
  }
  for (int gpu : {120, 121, 123}) {
    EXPECT_GT(scaled[gpu], 0) << capability_name(gpu) << ": no sm120_mma kernel loads";
    EXPECT_EQ(scaled[gpu], plain[gpu]) << capability_name(gpu) << ": the two families carry the same variants";
  }
  RecordProperty("sm120_kernels", scaled[120]);
}

// NVFP4: on every GPU of the build (and a 12.x nobody has seen, and the next
// major through PTX) each kernel loads real code, never a trap stub, an
// empty body or nothing; the SM12x kernels carry OMMA.SF and only it, in the
// sm_120f image; Hopper's HGMMA and no mma.sync; the portable ones HMMA and
// no FP4 mma.
TEST(SelfAudit, Nvfp4KernelsAreRealWithTheirTensorCores) {
  const AuditReport& r = library_report();
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  int checked = 0, omma = 0;
  for (const KernelRecord& k : r.records) {
    if (!is_nvfp4_kernel(k)) continue;
    SCOPED_TRACE(capability_name(k.gpu) + ": " + (k.has_image ? image_name(k.image) : "-") + " " + k.demangled);
    EXPECT_FALSE(k.outcome == Outcome::TrapStub || k.outcome == Outcome::Empty || k.outcome == Outcome::Missing)
        << outcome_name(k.outcome);
    if (k.outcome != Outcome::Sass) continue;
    if (is_omma_kernel(k)) {
      EXPECT_EQ(k.tensor_ops, tc::kOmmaSf) << tensor_ops_names(k.tensor_ops);
      EXPECT_EQ(k.image.variant, arch::Variant::FamilySpecific);
      EXPECT_EQ(k.image.arch, 120);
      ++omma;
    } else if (is_nvfp4_wgmma_kernel(k)) {
      expect_nvfp4_wgmma(k);
    } else {
      EXPECT_TRUE(k.tensor_ops & tc::kHmma) << tensor_ops_names(k.tensor_ops);
      EXPECT_FALSE(k.tensor_ops & tc::kOmmaSf) << tensor_ops_names(k.tensor_ops);
    }
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "libfp8kit carries no NVFP4 GEMM SASS";
  const auto shipped = shipped_targets();
  if (std::find(shipped.begin(), shipped.end(), 120) != shipped.end()) EXPECT_GT(omma, 0);
  RecordProperty("nvfp4_kernel_records", checked);
}

// 12.0, 12.1 and 12.3 load, for every SM12x NVFP4 kernel (dense and grouped),
// the one sm_120f image with OMMA.SF.
TEST(SelfAudit, Nvfp4Sm12xLoadsTheFamilyImage) {
  const auto shipped = shipped_targets();
  if (std::find(shipped.begin(), shipped.end(), 120) == shipped.end())
    GTEST_SKIP() << "sm_120 is not in FP8KIT_CUDA_TARGETS of this build";
  AuditOptions o;
  o.gpus = {120, 121, 123};
  o.keep_records = true;
  const AuditReport r = audit_files({FP8KIT_LIBRARY}, o);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  std::map<int, int> dense, grouped;
  for (const KernelRecord& k : r.records) {
    if (!is_nvfp4_kernel(k) || !is_omma_kernel(k)) continue;
    SCOPED_TRACE(capability_name(k.gpu) + ": " + (k.has_image ? image_name(k.image) : "-") + " " + k.demangled);
    ASSERT_TRUE(k.has_image);
    EXPECT_EQ(k.outcome, Outcome::Sass);
    EXPECT_EQ(k.image.arch, 120);
    EXPECT_EQ(k.image.variant, arch::Variant::FamilySpecific);
    EXPECT_EQ(k.tensor_ops, tc::kOmmaSf) << tensor_ops_names(k.tensor_ops);
    ++(k.demangled.find("grouped") != std::string::npos ? grouped : dense)[k.gpu];
  }
  for (int gpu : {120, 121, 123}) {
    EXPECT_EQ(dense[gpu], 2) << capability_name(gpu) << ": the two dense tile shapes";
    EXPECT_EQ(grouped[gpu], 2) << capability_name(gpu) << ": the two grouped tile shapes";
  }
}

// Against cuobjdump: each NVFP4 function's SASS holds OMMA.SF exactly where
// the audit library says, HMMA likewise, and no BPT.TRAP at all.
TEST(SelfAudit, Nvfp4SassAgreesWithCuobjdump) {
  if (cuobjdump().empty()) GTEST_SKIP() << "cuobjdump not found at configure time";
  std::string out;
  ASSERT_EQ(run_command("'" + cuobjdump() + "' -sass '" + FP8KIT_LIBRARY + "' 2>/dev/null", &out), 0);
  std::map<std::string, std::set<std::string>> seen;
  std::istringstream in(out);
  std::string line, arch, fn;
  while (std::getline(in, line)) {
    if (line.find("arch = sm_") != std::string::npos) arch = line.substr(line.find("sm_"));
    const auto f = line.find("Function : ");
    if (f != std::string::npos) fn = line.substr(f + 11);
    for (const char* m : {" OMMA.SF", " HMMA", " BPT.TRAP"})
      if (line.find(m) != std::string::npos) seen[fn].insert(arch + ":" + (m + 1));
  }
  int checked = 0;
  for (const KernelRecord& k : library_report().records) {
    if (!is_nvfp4_kernel(k) || k.outcome != Outcome::Sass || k.image.kind != arch::ImageKind::Sass) continue;
    const std::string key = image_name(k.image) + ":";
    auto has = [&](const char* m) { return seen[k.kernel].count(key + m) != 0; };
    EXPECT_EQ(has("OMMA.SF"), (k.tensor_ops & tc::kOmmaSf) != 0) << key << k.demangled;
    EXPECT_EQ(has("HMMA"), (k.tensor_ops & tc::kHmma) != 0) << key << k.demangled;
    EXPECT_FALSE(has("BPT.TRAP")) << key << k.demangled;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "libfp8kit carries no NVFP4 SASS";
}

INSTANTIATE_TEST_SUITE_P(Targets, GemmSass, ::testing::ValuesIn(arch::kShippedCapabilities),
                         [](const auto& info) { return "sm_" + std::to_string(info.param); });

// Once, against cuobjdump: each GEMM function's SASS for the shipped targets
// holds the instruction the audit library reported.
TEST(GemmSassCrossCheck, AgreesWithCuobjdump) {
  if (cuobjdump().empty()) GTEST_SKIP() << "cuobjdump not found at configure time";
  std::string out;
  ASSERT_EQ(run_command("'" + cuobjdump() + "' -sass '" + FP8KIT_LIBRARY + "' 2>/dev/null", &out), 0);
  // function -> set of "sm_XY:MNEMONIC" seen
  std::map<std::string, std::set<std::string>> seen;
  std::istringstream in(out);
  std::string line, arch, fn;
  while (std::getline(in, line)) {
    if (line.find("arch = sm_") != std::string::npos) arch = line.substr(line.find("sm_"));
    const auto f = line.find("Function : ");
    if (f != std::string::npos) fn = line.substr(f + 11);
    // " QMMA.SF" before " QMMA", which it contains.
    if (line.find(" QMMA.SF") != std::string::npos) seen[fn].insert(arch + ":QMMA.SF");
    else if (line.find(" QMMA") != std::string::npos) seen[fn].insert(arch + ":QMMA");
    for (const char* m : {" HMMA", " QGMMA", " BPT.TRAP"})
      if (line.find(m) != std::string::npos) seen[fn].insert(arch + ":" + (m + 1));
  }
  const AuditReport& r = library_report();
  int checked = 0;
  for (const KernelRecord& k : r.records) {
    if (family_of(k).empty() || k.outcome != Outcome::Sass || k.image.kind != arch::ImageKind::Sass) continue;
    const std::string key = image_name(k.image) + ":";
    auto has = [&](const char* m) { return seen[k.kernel].count(key + m) != 0; };
    EXPECT_EQ(has("QMMA"), (k.tensor_ops & tc::kQmma) != 0) << key << k.demangled;
    EXPECT_EQ(has("QMMA.SF"), (k.tensor_ops & tc::kQmmaSf) != 0) << key << k.demangled;
    EXPECT_EQ(has("HMMA"), (k.tensor_ops & tc::kHmma) != 0) << key << k.demangled;
    EXPECT_EQ(has("QGMMA"), (k.tensor_ops & tc::kQgmma) != 0) << key << k.demangled;
    ++checked;
  }
  EXPECT_GT(checked, 0) << "libfp8kit carries no SASS of its kernel families";
}
#else
TEST(SelfAudit, EveryKernelBelongsToAFamilyAndIsRealCode) {
  GTEST_SKIP() << "the fp8kit library target is not part of this build";
}
#endif

TEST(SelfLint, SourcesHaveNoEqualityArchChecks) {
  const std::string root = FP8KIT_SOURCE_DIR;
  const LintReport r = lint_paths({root + "/src", root + "/include", root + "/programs"});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_GT(r.files, 10u);
  for (const LintFinding& f : r.findings)
    ADD_FAILURE() << f.file << ":" << f.line << ":" << f.column << ": " << f.rule << ": " << f.text << "\n  "
                  << f.message << "\n  rewrite: " << f.rewrite;
}

}  // namespace
}  // namespace fp8kit::audit::test
