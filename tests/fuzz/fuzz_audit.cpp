// libFuzzer target over everything fp8kit audit and lint parse: ELF, ar,
// fatbin (with LZ4/ZSTD entries), cubin, SASS (also raw, as code), PTX, and
// source text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "audit/audit.hpp"
#include "audit/lint.hpp"

namespace {
void one_input(const std::uint8_t* data, std::size_t size) {
  using namespace fp8kit::audit;
  // Binary inputs (the seeds are fixtures) go to the auditor, and text to the
  // linter as well; large binaries skip the regex-based linter (slow, no finds).
  const bool binary = size >= 4 && (data[0] == 0x7f || data[0] == '!' || data[0] == 0x50);
  AuditOptions o;
  o.gpus = {75, 89, 90, 100, 120, 121, 130};
  o.threads = 1;
  o.max_image_bytes = std::size_t{64} << 20;
  o.keep_records = true;
  const AuditReport r = audit_bytes(Bytes(data, size), "fuzz", o);
  (void)r.has_findings();
  // The raw bytes as a kernel's code: the walk through branches and CALL.REL
  // subroutines must stay inside it, in both branch-offset layouts.
  for (int arch : {80, 90}) (void)classify_sass(Bytes(data, size & ~std::size_t{15}), arch);
  if (binary && size > 4096) return;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (SourceKind k : {SourceKind::Cpp, SourceKind::Python, SourceKind::CMake}) (void)lint_source(text, k, "fuzz");
}
}  // namespace

// The library reports bad input as errors; an exception reaching here is a bug.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    one_input(data, size);
  } catch (...) {
    __builtin_trap();
  }
  return 0;
}
