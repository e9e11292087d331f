// ELF, fatbin, archive, cubin and PTX parsing, on the nvcc-built fixtures.
#include <gtest/gtest.h>

#include <cstring>

#include "audit/archive.hpp"
#include "audit/cubin.hpp"
#include "audit/elf.hpp"
#include "audit/fatbin.hpp"
#include "audit/ptx.hpp"
#include "test_util.hpp"

namespace fp8kit::audit::test {
namespace {

struct Loaded {
  std::vector<std::uint8_t> file;
  std::vector<FatbinContainer> containers;
};

Loaded fatbins_of(const std::string& name, const char* section = ".nv_fatbin") {
  Loaded l;
  l.file = read_file(fixture(name));
  const Elf elf(Bytes(l.file.data(), l.file.size()));
  const ElfSection* s = elf.find(section);
  if (!s) throw std::runtime_error(name + " has no " + section);
  l.containers = parse_fatbin_region(elf.section_bytes(*s));
  return l;
}

std::vector<int> archs(const FatbinContainer& c, EntryKind kind) {
  std::vector<int> v;
  for (const auto& e : c.entries)
    if (e.kind == kind) v.push_back(static_cast<int>(e.arch));
  return v;
}

TEST(Fatbin, UncompressedEntries) {
  const Loaded l = fatbins_of("eq_guard.o");
  ASSERT_EQ(l.containers.size(), 1u);
  const FatbinContainer& c = l.containers[0];
  EXPECT_EQ(archs(c, EntryKind::Elf), (std::vector<int>{120, 121}));
  for (const auto& e : c.entries) {
    EXPECT_EQ(e.codec, Codec::None);
    EXPECT_EQ(e.variant, arch::Variant::Plain);
    EXPECT_TRUE(is_elf64_cuda(e.payload));
  }
}

void expect_codec(const char* name, Codec codec) {
  SCOPED_TRACE(name);
  const Loaded l = fatbins_of(name);
  ASSERT_EQ(l.containers.size(), 1u);
  int compressed = 0;
  for (const auto& e : l.containers[0].entries) {
    if (e.kind != EntryKind::Elf) continue;
    EXPECT_EQ(e.codec, codec);
    compressed += e.codec == codec;
    std::vector<std::uint8_t> storage;
    const Bytes img = entry_image(e, storage, 1u << 26);
    EXPECT_EQ(img.size, e.uncompressed_size);
    ASSERT_TRUE(is_elf64_cuda(img));
    const Cubin cubin = parse_cubin(img);
    EXPECT_EQ(cubin.arch, static_cast<int>(e.arch));
    ASSERT_EQ(cubin.kernels.size(), 1u);
    EXPECT_EQ(cubin.kernels[0].name, "_Z15eq_guard_kernelPf");
  }
  EXPECT_EQ(compressed, 2);
}

TEST(Fatbin, Lz4Entries) { expect_codec("eq_guard_lz4.o", Codec::Lz4); }
TEST(Fatbin, ZstdEntries) { expect_codec("eq_guard_zstd.o", Codec::Zstd); }

TEST(Fatbin, DecompressionIsBounded) {
  const Loaded l = fatbins_of("eq_guard_zstd.o");
  std::vector<std::uint8_t> storage;
  EXPECT_THROW(entry_image(l.containers[0].entries[0], storage, 1024), FormatError);
}

TEST(Fatbin, VariantFlags) {
  const Loaded a = fatbins_of("sm120a_only.o");
  ASSERT_EQ(a.containers.size(), 1u);
  ASSERT_EQ(a.containers[0].entries.size(), 1u);
  EXPECT_EQ(a.containers[0].entries[0].variant, arch::Variant::ArchSpecific);
  const Loaded f = fatbins_of("sm120f_only.o");
  ASSERT_EQ(f.containers[0].entries.size(), 1u);
  EXPECT_EQ(f.containers[0].entries[0].variant, arch::Variant::FamilySpecific);
  // The cubin header does not tell `f` apart; the ptxas note does.
  const Cubin c = parse_cubin(f.containers[0].entries[0].payload);
  EXPECT_EQ(c.arch, 120);
  EXPECT_TRUE(c.variant_from_note);
  EXPECT_EQ(c.variant, arch::Variant::FamilySpecific);
}

TEST(Fatbin, PtxOnly) {
  const Loaded l = fatbins_of("ptx_only.o");
  ASSERT_EQ(l.containers.size(), 1u);
  EXPECT_EQ(archs(l.containers[0], EntryKind::Ptx), std::vector<int>{120});
  EXPECT_TRUE(archs(l.containers[0], EntryKind::Elf).empty());
}

TEST(Fatbin, RdcObjectsUseRelfatbin) {
  const Loaded l = fatbins_of("rdc_a.o", "__nv_relfatbin");
  ASSERT_EQ(l.containers.size(), 1u);
  EXPECT_EQ(archs(l.containers[0], EntryKind::Elf), std::vector<int>{120});
}

TEST(Fatbin, StandaloneFile) {
  const auto file = read_file(fixture("eq_guard.fatbin"));
  const auto cs = parse_fatbin_region(Bytes(file.data(), file.size()));
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(archs(cs[0], EntryKind::Elf), (std::vector<int>{120, 121}));
}

TEST(Cubin, TargetFromBothFlagLayouts) {
  auto file = read_file(fixture("eq_guard_121.cubin"));
  Cubin c = parse_cubin(Bytes(file.data(), file.size()));
  EXPECT_EQ(c.arch, 121);
  EXPECT_EQ(c.variant, arch::Variant::Plain);
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].text.size % 16, 0u);
  // CUDA <= 12 layout: EI_ABIVERSION 7, SM in bits 0-7.
  file[8] = 7;
  const std::uint32_t flags = 0x00790579u;  // virtual 121 << 16 | ... | sm 0x79
  std::memcpy(&file[48], &flags, 4);
  c = parse_cubin(Bytes(file.data(), file.size()));
  EXPECT_EQ(c.arch, 121);
}

TEST(Cubin, KernelsAreEntriesNotDeviceFunctions) {
  const Loaded l = fatbins_of("rdc_b.o", "__nv_relfatbin");
  std::vector<std::uint8_t> storage;
  const Cubin c = parse_cubin(entry_image(l.containers[0].entries[0], storage, 1u << 26));
  EXPECT_TRUE(c.kernels.empty());  // rdc_helper is a device function
}

TEST(Archive, Members) {
  const auto file = read_file(fixture("libfixtures.a"));
  const auto members = archive_members(Bytes(file.data(), file.size()));
  std::vector<std::string> names;
  for (const auto& m : members) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"eq_guard.o", "range_guard.o", "plain.o"}));
  for (const auto& m : members) EXPECT_TRUE(is_elf(m.bytes));
}

TEST(Ptx, EntriesAndBodies) {
  const char* text = R"(
.version 9.0
.target sm_120
.visible .entry _Z4realPf(
  .param .u64 _Z4realPf_param_0
)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [_Z4realPf_param_0];
  st.global.f32 [%rd1], 0f3F800000;
  ret;
}
.visible .entry _Z4trapv()
{
  // the #else of an equality guard
  trap;
  ret;
}
.visible .entry _Z5emptyv()
{
  ret;
}
.visible .entry _Z10print_trapv()
{
  .reg .b64 %rd<2>;
  { .param .b64 param0; st.param.b64 [param0], %rd1; call.uni (retval0), vprintf, (param0, param1); }
  trap;
}
.visible .entry _Z6assertPfi(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  st.global.f32 [%rd1], 0f3F800000;
  @%p1 bra $L__BB0_2;
  trap;
$L__BB0_2:
  ret;
}
.visible .entry _Z3mmaPf(.param .u64 p)
{
  .loc	1 168 5, function_name $L__info_string7, inlined_at 1 237 5
  mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4};
  ret;
}
)";
  const auto ks = ptx_kernels(text);
  ASSERT_EQ(ks.size(), 6u);
  EXPECT_EQ(ks[0].name, "_Z4realPf");
  EXPECT_EQ(ks[0].body, Body::Real);
  EXPECT_EQ(ks[1].body, Body::TrapStub);
  EXPECT_EQ(ks[2].body, Body::Empty);
  EXPECT_EQ(ks[3].body, Body::TrapStub);
  EXPECT_EQ(ks[4].body, Body::Real);
  EXPECT_EQ(ks[5].tensor_ops, tc::kQmma);
}

}  // namespace
}  // namespace fp8kit::audit::test
