// Helpers shared by the audit tests: fixture paths, files, subprocesses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "audit/audit.hpp"

namespace fp8kit::audit::test {

std::string fixture(const std::string& name);  // path in the build's fixture dir
std::vector<std::uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes);
std::string temp_path(const std::string& name);

// Runs a shell command; returns its exit status (-1 if it did not exit) and
// fills `output` with its stdout.
int run_command(const std::string& command, std::string* output);

// The cuobjdump found at configure time, or "" (tests then skip).
std::string cuobjdump();

// Records of one kernel on one GPU.
const KernelRecord* find_record(const AuditReport& r, const std::string& kernel_part, int gpu);

AuditReport audit_one(const std::string& path, std::vector<int> gpus, bool records = true);

}  // namespace fp8kit::audit::test

namespace fp8kit::audit::test {
// A file of tests/audit/lint_corpus as text.
std::string read_file_text(const std::string& corpus_name);
}  // namespace fp8kit::audit::test
