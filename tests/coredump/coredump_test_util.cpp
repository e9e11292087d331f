#include "coredump_test_util.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

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
