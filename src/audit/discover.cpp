#include "audit/discover.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "audit/archive.hpp"
#include "audit/cubin.hpp"
#include "audit/elf.hpp"
#include "audit/fatbin.hpp"
#include "core/text.hpp"

namespace fp8kit::audit {

namespace {

constexpr int kMaxArchiveDepth = 4;

bool is_thin_archive(Bytes b) { return b.size >= 8 && std::memcmp(b.data, "!<thin>\n", 8) == 0; }
bool is_fatbin(Bytes b) { return b.size >= 4 && b.u32(0, "magic") == kFatbinMagic; }

struct Range {
  std::size_t lo, hi;
};

struct Discovery {
  const AuditOptions& options;
  std::vector<Job>& jobs;
  std::vector<InputError>& errors;
  std::size_t input = 0;

  void add(std::string where, bool cubin, Bytes b, bool embedded = false) {
    jobs.push_back({input, std::move(where), cubin, embedded, b});
  }

  void file(Bytes b, const std::string& label, int depth) {
    if (is_archive(b) || is_thin_archive(b)) {
      if (depth >= kMaxArchiveDepth) throw FormatError("archives nested too deeply");
      for (const ArchiveMember& m : archive_members(b)) {
        const std::string member = label + "[" + m.name + "]";
        try {
          // Members that are neither ELF nor fatbin (text, LLVM bitcode) carry no GPU code.
          if (is_auditable(m.bytes)) file(m.bytes, member, depth + 1);
        } catch (const FormatError& e) {
          errors.push_back({member, e.what()});
        }
      }
      return;
    }
    if (is_elf64_cuda(b)) {
      add(label, true, b);
      return;
    }
    if (is_elf(b)) {
      host_elf(b, label);
      return;
    }
    if (is_fatbin(b)) {
      for (const FatbinContainer& c : parse_fatbin_region(b))
        add(label + "+" + hex(c.offset), false, b.sub(c.offset, c.size, "fatbin"));
      return;
    }
    throw FormatError("not an ELF file, ar archive, fatbin or cubin");
  }

  void host_elf(Bytes b, const std::string& label) {
    const Elf elf(b);
    std::vector<Range> covered;
    for (const ElfSection& s : elf.sections()) {
      const bool fat = s.name == ".nv_fatbin" || s.name == "__nv_relfatbin" ||
                       (s.name.find("fatbin") != std::string_view::npos && s.name != ".nvFatBinSegment" &&
                        s.name.rfind(".rela", 0) != 0 && s.name.rfind(".rel.", 0) != 0);
      if (!fat || !s.has_bytes()) continue;
      const Bytes region = elf.section_bytes(s);
      const std::string sec(s.name);
      try {
        for (const FatbinContainer& c : parse_fatbin_region(region))
          add(label + ":" + sec + "+" + hex(c.offset), false, region.sub(c.offset, c.size, "fatbin"));
      } catch (const FormatError& e) {
        errors.push_back({label + ":" + sec, e.what()});
      }
      covered.push_back({static_cast<std::size_t>(s.offset), static_cast<std::size_t>(s.offset + s.size)});
    }
    // Wrappers {u32 magic, u32 version, u64 fatbin address, u64 unused} point
    // at containers; in linked files the address may lie outside .nv_fatbin.
    if (const ElfSection* seg = elf.find(".nvFatBinSegment"); seg && seg->has_bytes()) {
      const Bytes w = elf.section_bytes(*seg);
      for (std::size_t off = 0; off + 24 <= w.size; off += 24) {
        if (w.u32(off, "fatbin wrapper") != kFatbinWrapperMagic) continue;
        const std::uint64_t va = w.u64(off + 8, "fatbin wrapper address");
        if (va == 0) continue;  // an object: the address is a relocation
        for (const ElfSection& s : elf.sections()) {
          if (!(s.flags & 2 /* SHF_ALLOC */) || !s.has_bytes() || va < s.addr || va - s.addr >= s.size) continue;
          const std::size_t at = static_cast<std::size_t>(s.offset + (va - s.addr));
          if (inside(covered, at) || !fatbin_header_at(b, at)) break;
          try {
            const FatbinContainer c = parse_fatbin(b, at);
            add(label + ":" + std::string(s.name) + "+" + hex(va - s.addr), false, b.sub(at, c.size, "fatbin"));
            covered.push_back({at, at + c.size});
          } catch (const FormatError& e) {
            errors.push_back({label + ":" + std::string(s.name) + "+" + hex(va - s.addr), e.what()});
          }
          break;
        }
      }
    }
    if (!options.scan_embedded) return;
    if (is_linked_elf(elf.type()))
      for (const ElfSection& s : elf.sections())
        if (!holds_run_time_data(s.type, s.flags) && s.has_bytes()) covered.push_back(clamped(b, s));
    embedded(b, label, covered);
  }

  // A section's bytes, cut to the file (its header may lie).
  static Range clamped(Bytes b, const ElfSection& s) {
    const std::size_t lo = static_cast<std::size_t>(std::min<std::uint64_t>(s.offset, b.size));
    return {lo, lo + static_cast<std::size_t>(std::min<std::uint64_t>(s.size, b.size - lo))};
  }

  static bool inside(const std::vector<Range>& rs, std::size_t at) {
    for (const Range& r : rs)
      if (at >= r.lo && at < r.hi) return true;
    return false;
  }

  // Fatbins and cubins anywhere else in the file (vendor libraries keep some
  // in .rodata), outside `covered`: the fatbin regions and, in a linked file,
  // the sections that cannot hold run-time data (code, symbols, debug
  // information: a third of a site-packages' bytes). A hit that does not
  // parse is data, not an error.
  void embedded(Bytes b, const std::string& label, std::vector<Range> covered) {
    std::sort(covered.begin(), covered.end(), [](const Range& x, const Range& y) { return x.lo < y.lo; });
    static const std::uint8_t fat_magic[4] = {0x50, 0xED, 0x55, 0xBA};
    static const std::uint8_t elf_magic[7] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    std::size_t lo = 1;  // the file's own ELF header is not embedded
    std::size_t ci = 0;
    while (lo < b.size) {
      while (ci < covered.size() && covered[ci].hi <= lo) ++ci;
      const std::size_t hi = ci < covered.size() ? std::max(lo, covered[ci].lo) : b.size;
      scan_gap(b, lo, hi, label, fat_magic, elf_magic);
      lo = ci < covered.size() ? std::max(hi, covered[ci].hi) : b.size;
    }
  }

  void scan_gap(Bytes b, std::size_t lo, std::size_t hi, const std::string& label, const std::uint8_t* fat_magic,
                const std::uint8_t* elf_magic) {
    // Next hit of each magic at or after `at`; searched again only once passed,
    // so dense hits of one kind do not rescan the gap for the other.
    auto find = [&](const std::uint8_t* magic, std::size_t n, std::size_t from) {
      const void* p = from < hi ? memmem(b.data + from, hi - from, magic, n) : nullptr;
      return p ? static_cast<std::size_t>(static_cast<const std::uint8_t*>(p) - b.data) : hi;
    };
    std::size_t at = lo;
    std::size_t f = find(fat_magic, 4, at), e = find(elf_magic, 7, at);
    while (at < hi) {
      if (f < at) f = find(fat_magic, 4, at);
      if (e < at) e = find(elf_magic, 7, at);
      const std::size_t off = std::min(f, e);
      if (off >= hi) return;
      std::size_t next = off + 1;
      try {
        if (off == f && fatbin_header_at(b, off)) {
          const FatbinContainer c = parse_fatbin(b, off);
          add(label + "@" + hex(off), false, b.sub(off, c.size, "fatbin"));
          next = off + c.size;
        } else if (off == e) {
          const Bytes rest(b.data + off, b.size - off);
          if (is_elf64_cuda(rest)) {
            const std::size_t n = elf_extent(rest);
            if (n > 0) {
              parse_cubin(Bytes(rest.data, n));
              add(label + "@" + hex(off), true, Bytes(rest.data, n), true);
              next = off + n;
            }
          }
        }
      } catch (const FormatError&) {
        next = off + 1;
      }
      at = std::max(next, off + 1);
    }
  }
};

}  // namespace

bool is_auditable(Bytes head) { return is_elf(head) || is_archive(head) || is_thin_archive(head) || is_fatbin(head); }

void discover(Bytes input, const std::string& label, std::size_t input_index, const AuditOptions& options,
              std::vector<Job>& jobs, std::vector<InputError>& errors) {
  Discovery d{options, jobs, errors, input_index};
  d.file(input, label, 0);
}

}  // namespace fp8kit::audit
