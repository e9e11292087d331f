#include "audit/archive.hpp"

#include <cstring>

namespace fp8kit::audit {

namespace {
constexpr std::size_t kHeader = 60;

std::string trim(const std::uint8_t* p, std::size_t n) {
  std::string s(reinterpret_cast<const char*>(p), n);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::uint64_t decimal(const std::string& s, const char* what) {
  if (s.empty() || s.size() > 18) throw FormatError(std::string("archive: bad ") + what + " '" + s + "'");
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') throw FormatError(std::string("archive: bad ") + what + " '" + s + "'");
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}
}  // namespace

bool is_archive(Bytes b) { return b.size >= 8 && std::memcmp(b.data, "!<arch>\n", 8) == 0; }

std::vector<ArchiveMember> archive_members(Bytes b) {
  if (b.size >= 8 && std::memcmp(b.data, "!<thin>\n", 8) == 0)
    throw FormatError("thin archive: members are not stored in it");
  if (!is_archive(b)) throw FormatError("not an ar archive");
  std::vector<ArchiveMember> out;
  Bytes long_names;
  std::size_t off = 8;
  while (off < b.size) {
    if (!b.has(off, kHeader)) throw FormatError("archive: member header truncated");
    const std::uint8_t* h = b.data + off;
    if (h[58] != '`' || h[59] != '\n') throw FormatError("archive: bad member header magic");
    std::string name = trim(h, 16);
    const std::uint64_t size = decimal(trim(h + 48, 10), "member size");
    std::size_t data = off + kHeader;
    if (size > b.size - data) throw FormatError("archive member '" + name + "' runs past the end");
    std::size_t len = static_cast<std::size_t>(size);
    if (name == "/" || name == "/SYM64/" || name == "__.SYMDEF" || name == "__.SYMDEF SORTED") {
      name.clear();  // symbol table
    } else if (name == "//") {
      long_names = Bytes(b.data + data, len);
      name.clear();
    } else if (name.size() > 1 && name[0] == '/' && name[1] >= '0' && name[1] <= '9') {
      const std::uint64_t at = decimal(name.substr(1), "long name offset");
      if (at >= long_names.size) throw FormatError("archive: long name offset out of range");
      const char* s = reinterpret_cast<const char*>(long_names.data + at);
      std::size_t n = 0;
      while (at + n < long_names.size && s[n] != '\n' && s[n] != '/') ++n;
      name.assign(s, n);
    } else if (name.rfind("#1/", 0) == 0) {
      const std::uint64_t n = decimal(name.substr(3), "BSD name length");
      if (n > len) throw FormatError("archive: BSD name longer than its member");
      name.assign(reinterpret_cast<const char*>(b.data + data), static_cast<std::size_t>(n));
      while (!name.empty() && name.back() == '\0') name.pop_back();
      data += static_cast<std::size_t>(n);
      len -= static_cast<std::size_t>(n);
    } else if (!name.empty() && name.back() == '/') {
      name.pop_back();
    }
    if (!name.empty()) out.push_back({name, Bytes(b.data + data, len)});
    off = off + kHeader + static_cast<std::size_t>(size);
    off += off & 1;  // members are 2-aligned
  }
  return out;
}

}  // namespace fp8kit::audit
