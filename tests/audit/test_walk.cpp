// Directories and --python: what is read, what is skipped, library names.
#include <gtest/gtest.h>

#include <filesystem>

#include "audit/walk.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

namespace fp8kit::audit::test {
namespace {

// A site-packages look-alike:
//   pkg/eq_guard.o  pkg/sub/README.txt  pkg/notes.bin (text)  pkg/link.o -> eq_guard.o
//   nvidia/cudnn/lib/libplain.so.9 (range_guard.o)  nvidia/cu13/lib/libfeat.so.13 (feat_90a.o)
//   top.o (plain.o)
struct Tree {
  fs::path root = temp_path("tree");
  Tree() {
    fs::remove_all(root);
    fs::create_directories(root / "pkg/sub");
    fs::create_directories(root / "nvidia/cudnn/lib");
    fs::create_directories(root / "nvidia/cu13/lib");
    fs::copy_file(fixture("eq_guard.o"), root / "pkg/eq_guard.o");
    fs::create_symlink(root / "pkg/eq_guard.o", root / "pkg/link.o");
    fs::create_directory_symlink(root / "pkg", root / "pkg/sub/loop");
    write_file((root / "pkg/sub/README.txt").string(), {'h', 'i', '\n'});
    write_file((root / "pkg/notes.bin").string(), {'n', 'o', 't', ' ', 'E', 'L', 'F', '\n'});
    fs::copy_file(fixture("range_guard.o"), root / "nvidia/cudnn/lib/libplain.so.9");
    fs::copy_file(fixture("feat_90a.o"), root / "nvidia/cu13/lib/libfeat.so.13");
    fs::copy_file(fixture("plain.o"), root / "top.o");
  }
  ~Tree() { fs::remove_all(root); }
};

// The library of `file`; "eq_guard.o" also matches link.o (which of the two
// the walk meets first depends on the directory order).
std::string library_of(const Expanded& e, const std::string& file) {
  for (const InputFile& f : e.files) {
    const std::string name = fs::path(f.path).filename().string();
    if (name == file || (file == "eq_guard.o" && name == "link.o")) return f.library;
  }
  return "(absent)";
}

TEST(Walk, LibrariesAndSkips) {
  Tree t;
  const Expanded e = expand_inputs({{t.root.string(), ""}});
  EXPECT_TRUE(e.errors.empty());
  EXPECT_EQ(e.files.size(), 4u);  // link.o is eq_guard.o again; loop/ is not followed
  EXPECT_EQ(e.skipped, 2u);       // README.txt by name, notes.bin by its first bytes
  EXPECT_EQ(library_of(e, "eq_guard.o"), "pkg");
  EXPECT_EQ(library_of(e, "libplain.so.9"), "nvidia/cudnn");
  EXPECT_EQ(library_of(e, "libfeat.so.13"), "nvidia/libfeat");
  EXPECT_EQ(library_of(e, "top.o"), "top.o");
  for (const InputFile& f : e.files) EXPECT_FALSE(f.named) << f.path;
  // A package directory named relative to its site-packages.
  const Expanded pkg = expand_inputs({{(t.root / "pkg").string(), t.root.string()}});
  EXPECT_EQ(library_of(pkg, "eq_guard.o"), "pkg");
}

TEST(Walk, ReportCountsFiles) {
  Tree t;
  const AuditReport r = audit_files({t.root.string()}, [] {
    AuditOptions o;
    o.gpus = {90, 120, 121};
    return o;
  }());
  EXPECT_TRUE(r.errors.empty()) << r.errors[0].where << ": " << r.errors[0].message;
  EXPECT_EQ(r.files_read, 4u);
  EXPECT_EQ(r.files_with_cuda, 4u);
  EXPECT_EQ(r.files_skipped, 2u);
  EXPECT_EQ(r.inputs.size(), 4u);
  EXPECT_TRUE(r.has_findings());  // pkg/eq_guard.o on 12.1
  for (const KernelRecord& o : r.offenders)
    if (o.kernel.find("eq_guard") != std::string::npos) EXPECT_EQ(o.library, "pkg");
}

TEST(Walk, NonCudaFilesInADirectoryAreNotErrors) {
  const fs::path dir = temp_path("textonly");
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file((dir / "a.txt").string(), {'x'});
  write_file((dir / "b").string(), {});
  const AuditReport r = audit_files({dir.string()}, AuditOptions{});
  fs::remove_all(dir);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.files_read, 0u);
  EXPECT_EQ(r.files_skipped, 2u);
  EXPECT_FALSE(r.has_findings());
}

#ifdef FP8KIT_CLI
int cli(const std::string& args, std::string* out = nullptr) {
  return run_command(std::string("'") + FP8KIT_CLI + "' " + args + " 2>/dev/null", out);
}

TEST(AuditCli, Directories) {
  Tree t;
  std::string out;
  EXPECT_EQ(cli("audit " + t.root.string() + " --gpu 12.0 --gpu 12.1", &out), 1);
  EXPECT_NE(out.find("4 files read, 4 with CUDA code (2 more skipped"), std::string::npos) << out;
  EXPECT_NE(out.find("nvidia/cudnn"), std::string::npos) << out;
  EXPECT_EQ(cli("audit " + (t.root / "nvidia").string() + " --gpu 12.0 --gpu 12.1"), 0);       // notes only
  EXPECT_EQ(cli("audit " + (t.root / "nvidia").string() + " --gpu 9.0 --gpu 12.1 --strict"), 0);
  EXPECT_EQ(cli("audit " + (t.root / "pkg/sub").string()), 0);  // only text: nothing to find, no error
}

TEST(AuditCli, StrictAndJsonSeverity) {
  const std::string w = fixture("feat_90a_120a.o");
  EXPECT_EQ(cli("audit " + w + " --gpu 12.1"), 0);
  EXPECT_EQ(cli("audit " + w + " --gpu 12.1 --strict"), 1);
  std::string out;
  EXPECT_EQ(cli("audit --json --gpu 12.1 " + w, &out), 0);
  for (const char* key : {"\"severity\": \"warning\"", "\"reason\"", "\"counts\"", "\"libraries\"", "\"with_cuda\""})
    EXPECT_NE(out.find(key), std::string::npos) << key << "\n" << out;
}

TEST(AuditCli, PythonPackages) {
  Tree t;
  const std::string env = "PYTHONPATH='" + t.root.string() + "' ";
  std::string out;
  const int rc = run_command(env + "'" + FP8KIT_CLI + "' audit --python pkg --gpu 12.1 2>/dev/null", &out);
  if (rc == 2 && out.empty()) GTEST_SKIP() << "no python3 to ask";
  EXPECT_EQ(rc, 1) << out;  // pkg/eq_guard.o traps on 12.1
  EXPECT_NE(out.find("1 file read, 1 with CUDA code"), std::string::npos) << out;
  EXPECT_EQ(run_command(env + "'" + FP8KIT_CLI + "' audit --python fp8kit_no_such_package 2>&1", &out), 2);
  EXPECT_NE(out.find("not installed"), std::string::npos) << out;
  EXPECT_EQ(run_command("FP8KIT_PYTHON=/nonexistent/python '" + std::string(FP8KIT_CLI) + "' audit --python 2>&1",
                        &out),
            2);
}

TEST(AuditCli, LocalGpu) {
  // Without a GPU: exit 4 and a reason; with one, the fixture is clean there or not built for it.
  std::string out;
  const int rc = run_command("'" + std::string(FP8KIT_CLI) + "' audit --gpu local " + fixture("range_guard.o") + " 2>&1",
                             &out);
  if (rc == 4)
    EXPECT_NE(out.find("--gpu local: no GPU"), std::string::npos) << out;
  else
    EXPECT_EQ(rc, 0) << out;
}
#endif

}  // namespace
}  // namespace fp8kit::audit::test
