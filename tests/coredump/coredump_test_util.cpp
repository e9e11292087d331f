#include "coredump_test_util.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "audit/elf.hpp"
#include "coredump/cudbg_layout.hpp"
#include "coredump/input.hpp"

namespace fp8kit::coredump::test {

namespace {
std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}
}  // namespace

std::string fixture_path(const std::string& name) {
  return std::string(FP8KIT_COREDUMP_FIXTURES) + "/" + name + ".nvcudmp.zst";
}

std::vector<std::uint8_t> fixture_dump(const std::string& name) {
  const std::vector<std::uint8_t> z = read_file(fixture_path(name));
  std::vector<std::uint8_t> out;
  decompress_if_zstd(audit::Bytes(z.data(), z.size()), out);
  return out;
}

namespace {

// Calls `edit(row)` on every row of the dump's tables of type `table`.
template <typename Edit>
std::vector<std::uint8_t> edit_rows(std::vector<std::uint8_t> dump, std::uint32_t table, Edit edit) {
  const audit::Bytes file(dump.data(), dump.size());
  const audit::Elf elf(file);
  const std::uint64_t shoff = file.u64(layout::elf::kEShoff, "e_shoff");
  const std::uint16_t shentsize = file.u16(layout::elf::kEShentsize, "e_shentsize");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // (offset, size) of each row
  const auto& secs = elf.sections();
  for (std::size_t i = 0; i < secs.size(); ++i) {
    if (secs[i].type != table) continue;
    const std::uint64_t entsize = file.u64(shoff + i * shentsize + layout::elf::kShEntsize, "entsize");
    for (std::uint64_t r = 0; entsize != 0 && (r + 1) * entsize <= secs[i].size; ++r)
      spans.emplace_back(secs[i].offset + r * entsize, entsize);
  }
  for (const auto& [off, size] : spans) edit(dump.data() + off, size);
  return dump;
}

void put_u32(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, sizeof v); }
void put_u64(std::uint8_t* p, std::uint64_t v) { std::memcpy(p, &v, sizeof v); }

}  // namespace

std::vector<std::uint8_t> with_lane_exception(std::vector<std::uint8_t> dump, std::uint32_t code) {
  return edit_rows(std::move(dump), layout::kLaneTable, [&](std::uint8_t* row, std::size_t) {
    std::uint32_t old = 0;
    std::memcpy(&old, row + layout::lane::kException, sizeof old);
    if (old != 0) put_u32(row + layout::lane::kException, code);
  });
}

std::vector<std::uint8_t> without_device_name(std::vector<std::uint8_t> dump) {
  // String-table offset 0 holds the empty string, as in every ELF string table.
  return edit_rows(std::move(dump), layout::kDeviceTable,
                   [](std::uint8_t* row, std::size_t) { put_u64(row + layout::device::kName, 0); });
}

std::vector<std::uint8_t> with_capability(std::vector<std::uint8_t> dump, std::uint32_t major, std::uint32_t minor) {
  return edit_rows(std::move(dump), layout::kDeviceTable, [&](std::uint8_t* row, std::size_t) {
    put_u32(row + layout::device::kSmMajor, major);
    put_u32(row + layout::device::kSmMinor, minor);
  });
}

std::string planted(const std::string& name) { return env_or("FP8KIT_TEST_PLANTED", FP8KIT_PLANTED) + "/" + name; }

std::string cli() {
#ifdef FP8KIT_CLI
  return env_or("FP8KIT_TEST_CLI", FP8KIT_CLI);
#else
  return env_or("FP8KIT_TEST_CLI", "");
#endif
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("fp8kit_coredump_tests." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

int run_command(const std::string& command, std::string* output) {
  output->clear();
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output->append(buf, n);
  const int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool have_gpu() {
  std::error_code ec;
  if (!std::filesystem::exists("/dev/nvidiactl", ec)) return false;
  const std::filesystem::path gpus("/proc/driver/nvidia/gpus");
  return std::filesystem::is_directory(gpus, ec) && !std::filesystem::is_empty(gpus, ec);
}

}  // namespace fp8kit::coredump::test
