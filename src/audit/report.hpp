// The audit's report: what a GPU gets for each kernel of a binary (outcomes,
// tensor cores, severities), the options an audit runs with, and the names of
// these values. The stages of the audit (walk, discover, module, tally,
// grade) fill these types; audit.hpp runs them. Defined in report.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "arch/loader.hpp"
#include "audit/bytes.hpp"
#include "audit/sass.hpp"
#include "audit/severity.hpp"

namespace fp8kit::audit {

// What a GPU gets for one kernel.
enum class Outcome : std::uint8_t {
  Sass,      // a SASS image with real code
  Jit,       // PTX, compiled by the driver at load time
  TrapStub,  // the loaded image traps before doing anything
  Empty,     // the loaded image exits without doing anything
  Missing,   // the binary targets this GPU's family, but no image loads
  NotBuilt,  // nothing for this GPU's family: the binary makes no claim here
};
const char* outcome_name(Outcome o);

// Tensor cores of the loaded image: FP8 instructions (QMMA, QGMMA, UTCQMMA),
// only 16-bit or integer ones (HMMA, ...: FP8 emulated or converted), none.
enum class TensorCores : std::uint8_t { None, Native, Emulated };
const char* tensor_cores_name(TensorCores t);
TensorCores tensor_cores_of(std::uint32_t tensor_ops);

// "sm_120", "sm_120a", "sm_120f", "compute_121".
std::string image_name(const arch::Image& im);
// "12.1" for 121.
std::string capability_name(int cap);
// Accepts "sm_121", "sm_121a", "compute_121", "12.1", "121"; false + why if not.
bool parse_gpu(const std::string& text, int* cap, std::string* why);
// Every released capability from 7.5: 7.5 8.0 8.6 8.7 8.9 9.0 10.0 10.3 11.0 12.0 12.1.
std::vector<int> default_gpus();

struct AuditOptions {
  std::vector<int> gpus;                               // capability units; empty: default_gpus()
  std::string kernel_regex;                            // ECMAScript, searched in mangled and demangled names
  std::size_t max_image_bytes = std::size_t{1} << 30;  // per decompressed entry
  unsigned threads = 0;                                // 0: one per hardware thread
  bool keep_records = false;                           // keep every kernel x GPU record, not only offenders
  bool scan_embedded = true;                           // look for fatbins and cubins outside the fatbin sections
};

struct KernelRecord {
  std::string kernel;     // mangled
  std::string demangled;  // == kernel when it does not demangle
  std::string where;      // "lib.so:.nv_fatbin+0x1f00", "lib.a[x.o]:__nv_relfatbin+0x0"
  std::string library;    // the input's library (InputFile::library)
  int gpu = 0;
  Outcome outcome = Outcome::Sass;
  bool has_image = false;
  arch::Image image{arch::ImageKind::Sass, 0, arch::Variant::Plain};  // when has_image
  std::uint32_t tensor_ops = 0;
  TensorCores tensor_cores = TensorCores::None;
  // For offenders: the container's other images where this kernel is real code.
  std::vector<arch::Image> real_on;
  // For offenders, by the family rule (grade.hpp): how much it matters and why.
  Severity severity = Severity::Note;
  std::string reason;
};

struct GpuSummary {
  int gpu = 0;
  std::size_t kernels = 0, sass = 0, jit = 0, trap = 0, empty = 0, missing = 0, not_built = 0;
  std::size_t tc_native = 0, tc_emulated = 0;  // among kernels that load (SASS or JIT)
};

struct InputSummary {
  std::string path;
  std::string library;  // the group it is reported in ("torch", "nvidia/cudnn", or the file name)
  std::size_t containers = 0, cubins = 0, ptx = 0, kernels = 0;
  bool has_cuda() const { return containers + cubins + ptx > 0; }
};

// One file to audit and the library it belongs to (walk.hpp makes them).
struct InputFile {
  std::string path;
  std::string library;
  bool named = true;  // given by the caller: a file of a kind audit does not read is an error, not skipped
};

struct InputError {
  std::string where;
  std::string message;
};

struct AuditReport {
  std::vector<int> gpus;
  std::vector<GpuSummary> per_gpu;      // in gpus order
  std::vector<KernelRecord> offenders;  // trap, empty or missing; by input, kernel, GPU
  std::vector<KernelRecord> records;    // every kernel x GPU, with keep_records
  std::vector<InputSummary> inputs;  // files read that hold CUDA code, and every file named by the caller
  std::vector<InputError> errors;    // unreadable inputs or containers
  std::vector<InputError> unread;    // walked files that look like ELF / ar but do not parse: skipped, not errors
  bool gpus_requested = false;       // gpus came from the options, not default_gpus()
  std::size_t files_read = 0;        // opened and parsed (the named ones, and walked ones of a kind audit reads)
  std::size_t files_skipped = 0;     // found by a directory walk, not ELF / ar / fatbin: not read
  std::size_t files_with_cuda = 0;   // among files_read, those holding a fatbin container or cubin
  // Offenders of severity `s`.
  std::size_t count(Severity s) const;
  // An offender that counts (counts_as_finding): an error, or with `strict`
  // a warning too. Notes never count.
  bool has_findings(bool strict = false) const;
};

// Itanium C++ demangling; the name itself when it is not a mangled name.
std::string demangle(const std::string& mangled);

}  // namespace fp8kit::audit
