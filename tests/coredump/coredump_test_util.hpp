// Helpers shared by the coredump tests: fixtures, files, subprocesses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fp8kit::coredump::test {

std::string fixture_path(const std::string& name);  // tests/coredump/fixtures/<name>.nvcudmp.zst
std::vector<std::uint8_t> fixture_dump(const std::string& name);  // decompressed
std::string planted(const std::string& name);  // a planted program built by the tests (env FP8KIT_TEST_PLANTED)
std::string cli();                             // the fp8kit CLI ("" when not built; env FP8KIT_TEST_CLI)

// Fixtures edited the way another fault would have written them: every
// lane exception that is set becomes `code` (an illegal instruction where the
// warp had a misaligned load); the first device row names no device, or has
// capability major.minor.
std::vector<std::uint8_t> with_lane_exception(std::vector<std::uint8_t> dump, std::uint32_t code);
std::vector<std::uint8_t> without_device_name(std::vector<std::uint8_t> dump);
std::vector<std::uint8_t> with_capability(std::vector<std::uint8_t> dump, std::uint32_t major, std::uint32_t minor);

std::vector<std::uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes);
std::string temp_path(const std::string& name);

// Runs a shell command line; returns its exit status (-1 if it did not exit)
// and its stdout and stderr together in `output`.
int run_command(const std::string& command, std::string* output);

// A single-quoted shell word.
std::string quote(const std::string& s);

bool have_gpu();

}  // namespace fp8kit::coredump::test
