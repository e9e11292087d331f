// Stage 1 of the audit: one input's bytes -> jobs, each one fatbin container
// or one standalone cubin (docs/audit.md "Inputs").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "audit/report.hpp"
#include "audit/bytes.hpp"

namespace fp8kit::audit {

struct Job {
  std::size_t input = 0;  // index into the report's inputs
  std::string where;      // "lib.so:.nv_fatbin+0x1f00"
  bool is_cubin = false;
  bool embedded = false;  // found by the scan outside the fatbin sections (vendor .rodata)
  Bytes bytes;
};

// Whether the first bytes of a file are those of a kind audit reads (ELF, ar
// archive, fatbin); a directory walk skips every other file unread.
bool is_auditable(Bytes head);

// Appends the jobs of one input; throws FormatError when the input itself is
// unreadable, records errors of its parts (archive members, sections) and goes on.
void discover(Bytes input, const std::string& label, std::size_t input_index, const AuditOptions& options,
              std::vector<Job>& jobs, std::vector<InputError>& errors);

}  // namespace fp8kit::audit
