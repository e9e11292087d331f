#include "audit/walk.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <regex>
#include <set>
#include <system_error>
#include <utility>

#include "audit/discover.hpp"
#include "audit/parallel.hpp"

namespace fs = std::filesystem;

namespace fp8kit::audit {

namespace {

constexpr std::size_t kMagicBytes = 8;  // enough for ELF, "!<arch>\n", fatbin

// Threads that open the walked files to read their first bytes: on a cold
// disk each is a wait for one random read, so many are kept in flight.
constexpr unsigned kHeadReaders = 16;

// A walked file, once its first bytes are read.
struct Candidate {
  fs::path path;
  bool auditable = false;
  dev_t dev = 0;  // identity, for files reached twice
  ino_t ino = 0;
};

// Whether the first bytes are of a kind audit reads (false when unreadable).
void read_head(Candidate& c) {
  const int fd = ::open(c.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  std::uint8_t head[kMagicBytes] = {};
  const ssize_t n = ::read(fd, head, sizeof head);
  struct stat st {};
  if (n > 0 && ::fstat(fd, &st) == 0) {
    c.auditable = is_auditable(Bytes(head, static_cast<std::size_t>(n)));
    c.dev = st.st_dev;
    c.ino = st.st_ino;
  }
  ::close(fd);
}

// Files a walk skips by name, unopened: sources, text, data and bytecode
// (a site-packages holds tens of thousands of them).
bool skipped_by_name(const fs::path& p) {
  static const char* const kText[] = {".py",  ".pyc", ".pyi", ".h",    ".hpp", ".cuh", ".txt", ".json", ".md",
                                      ".rst", ".html", ".js", ".css",  ".png", ".csv", ".pth", ".toml", ".yaml"};
  const std::string ext = p.extension().string();
  for (const char* e : kText)
    if (ext == e) return true;
  return false;
}

std::string stem(const std::string& file) {
  const std::size_t so = file.find(".so");
  return so == std::string::npos ? file : file.substr(0, so);
}

std::string library_of(const fs::path& file, const fs::path& base) {
  std::vector<std::string> parts;
  for (const fs::path& p : file.lexically_relative(base)) parts.push_back(p.string());
  if (parts.size() <= 1 || parts[0] == "..") return file.filename().string();
  if (parts[0] == "nvidia" && parts.size() >= 3) {
    static const std::regex toolkit_dir("cu[0-9]+");
    return "nvidia/" + (std::regex_match(parts[1], toolkit_dir) ? stem(parts.back()) : parts[1]);
  }
  return parts[0];
}

struct Walker {
  Expanded& out;
  std::set<std::pair<dev_t, ino_t>> seen;

  // False when the file was already taken.
  bool first_time(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return true;  // reading it reports the error
    return seen.emplace(st.st_dev, st.st_ino).second;
  }

  void walk(const fs::path& root, const fs::path& base) {
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) {
      out.errors.push_back({root.string(), "cannot list: " + ec.message()});
      return;
    }
    std::vector<Candidate> found;
    for (; it != end; it.increment(ec)) {
      if (ec) {
        out.errors.push_back({root.string(), "cannot list: " + ec.message()});
        break;
      }
      std::error_code fe;
      if (it->is_directory(fe) || !it->is_regular_file(fe)) continue;  // directories: entered unless links
      if (skipped_by_name(it->path())) {
        ++out.skipped;
        continue;
      }
      found.push_back({it->path()});
    }
    parallel_for(found.size(), kHeadReaders, [&](unsigned, std::size_t i) { read_head(found[i]); });
    for (const Candidate& c : found) {
      if (!c.auditable) {
        ++out.skipped;
        continue;
      }
      if (!seen.emplace(c.dev, c.ino).second) continue;
      out.files.push_back({c.path.string(), library_of(c.path, base), false});
    }
  }
};

}  // namespace

Expanded expand_inputs(const std::vector<WalkRoot>& roots) {
  Expanded out;
  Walker w{out, {}};
  for (const WalkRoot& r : roots) {
    std::error_code ec;
    const fs::file_status st = fs::status(r.path, ec);
    if (fs::is_directory(st)) {
      w.walk(r.path, r.base.empty() ? fs::path(r.path) : fs::path(r.base));
      continue;
    }
    // Files named by the caller are read whatever they are (errors say why).
    if (w.first_time(r.path)) out.files.push_back({r.path, fs::path(r.path).filename().string(), true});
  }
  return out;
}

}  // namespace fp8kit::audit
