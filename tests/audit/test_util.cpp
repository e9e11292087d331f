#include "test_util.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace fp8kit::audit::test {

std::string fixture(const std::string& name) { return std::string(FP8KIT_FIXTURES) + "/" + name; }

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/fp8kit_audit_" + std::to_string(::getpid()) + "_" + name;
}

int run_command(const std::string& command, std::string* output) {
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return -1;
  std::string out;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  if (output) *output = std::move(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string cuobjdump() { return FP8KIT_CUOBJDUMP; }

const KernelRecord* find_record(const AuditReport& r, const std::string& kernel_part, int gpu) {
  for (const KernelRecord& k : r.records)
    if (k.gpu == gpu && k.kernel.find(kernel_part) != std::string::npos) return &k;
  return nullptr;
}

AuditReport audit_one(const std::string& path, std::vector<int> gpus, bool records) {
  AuditOptions o;
  o.gpus = std::move(gpus);
  o.keep_records = records;
  return audit_files({path}, o);
}

}  // namespace fp8kit::audit::test

namespace fp8kit::audit::test {
std::string read_file_text(const std::string& corpus_name) {
  const auto bytes = read_file(std::string(FP8KIT_SOURCE_DIR) + "/tests/audit/lint_corpus/" + corpus_name);
  return std::string(bytes.begin(), bytes.end());
}
}  // namespace fp8kit::audit::test
