// Writes SASS images of modules of a CUDA binary to files, for checking
// `fp8kit audit`'s verdicts with `cuobjdump -sass -fun` (which on a whole
// 456 MB library takes minutes). A developer tool, not shipped:
//   g++ -std=c++17 -O2 -Isrc -Iinclude dev/audit_extract.cpp build/src/audit/libfp8kit_audit.a -llz4 -lzstd -pthread
//   ./a.out LIB < requests     one request a line: WHERE IMAGE OUT.cubin
// (WHERE and IMAGE as fp8kit audit --json reports them); prints one line per
// request, "ok OUT" or "missing OUT".
#include <cstdio>
#include <string>
#include <vector>

#include "audit/discover.hpp"
#include "audit/fatbin.hpp"
#include "audit/mapped_file.hpp"

namespace {
using namespace fp8kit::audit;

bool extract(const std::vector<Job>& jobs, const std::string& where, const std::string& image, const std::string& to) {
  for (const Job& j : jobs) {
    if (j.where != where || j.is_cubin) continue;
    for (const FatbinEntry& e : parse_fatbin(j.bytes, 0).entries) {
      const fp8kit::arch::Image im{fp8kit::arch::ImageKind::Sass, static_cast<int>(e.arch), e.variant};
      if (e.kind != EntryKind::Elf || image_name(im) != image) continue;
      std::vector<std::uint8_t> storage;
      const Bytes b = entry_image(e, storage, std::size_t{1} << 30);
      FILE* out = std::fopen(to.c_str(), "wb");
      if (!out) return false;
      const bool ok = std::fwrite(b.data, 1, b.size, out) == b.size;
      std::fclose(out);
      return ok;
    }
  }
  return false;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LIB < requests\n", argv[0]);
    return 2;
  }
  try {
    const MappedFile file(argv[1]);
    std::vector<Job> jobs;
    std::vector<InputError> errors;
    discover(file.bytes(), argv[1], 0, AuditOptions{}, jobs, errors);
    char where[4096], image[64], to[4096];
    while (std::scanf("%4095s %63s %4095s", where, image, to) == 3)
      std::printf("%s %s\n", extract(jobs, where, image, to) ? "ok" : "missing", to);
    return 0;
  } catch (const FormatError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
