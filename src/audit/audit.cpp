#include "audit/audit.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <regex>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "arch/config.hpp"
#include "audit/archive.hpp"
#include "audit/cubin.hpp"
#include "audit/elf.hpp"
#include "audit/fatbin.hpp"
#include "audit/mapped_file.hpp"
#include "audit/ptx.hpp"

namespace fp8kit::audit {

// ---------------------------------------------------------------------------
// Names.

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Sass:
      return "sass";
    case Outcome::Jit:
      return "jit";
    case Outcome::TrapStub:
      return "trap";
    case Outcome::Empty:
      return "empty";
    case Outcome::Missing:
      return "missing";
    case Outcome::NotBuilt:
      return "not-built";
  }
  return "?";
}

const char* tensor_cores_name(TensorCores t) {
  switch (t) {
    case TensorCores::None:
      return "none";
    case TensorCores::Native:
      return "native";
    case TensorCores::Emulated:
      return "emulated";
  }
  return "?";
}

TensorCores tensor_cores_of(std::uint32_t ops) {
  if (ops & tc::kFp8Native) return TensorCores::Native;
  return ops ? TensorCores::Emulated : TensorCores::None;
}

std::string image_name(const arch::Image& im) {
  std::string s = (im.kind == arch::ImageKind::Sass ? "sm_" : "compute_") + std::to_string(im.arch);
  if (im.variant == arch::Variant::ArchSpecific) s += 'a';
  if (im.variant == arch::Variant::FamilySpecific) s += 'f';
  return s;
}

std::string capability_name(int cap) { return std::to_string(cap / 10) + "." + std::to_string(cap % 10); }

bool parse_gpu(const std::string& text, int* cap, std::string* why) {
  std::string t = text;
  for (const char* prefix : {"sm_", "compute_"})
    if (t.rfind(prefix, 0) == 0) t = t.substr(std::strlen(prefix));
  if (!t.empty() && (t.back() == 'a' || t.back() == 'f')) t.pop_back();
  int value = -1;
  const std::size_t dot = t.find('.');
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 3 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot != std::string::npos) {
    const std::string major = t.substr(0, dot), minor = t.substr(dot + 1);
    if (digits(major) && digits(minor) && minor.size() == 1) value = std::stoi(major) * 10 + std::stoi(minor);
  } else if (digits(t)) {
    value = std::stoi(t);
  }
  if (value < 10 || value >= arch::kOpenEnd) {
    if (why) *why = "'" + text + "' is not a GPU capability (want sm_121, 12.1 or 121)";
    return false;
  }
  *cap = value;
  return true;
}

std::vector<int> default_gpus() { return {75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121}; }

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

bool AuditReport::has_findings() const {
  for (const KernelRecord& r : offenders)
    if (r.outcome == Outcome::TrapStub || (r.outcome == Outcome::Missing && gpus_requested)) return true;
  return false;
}

// ---------------------------------------------------------------------------
// Discovery: inputs -> jobs (one fatbin container or one standalone cubin).

namespace {

constexpr int kMaxArchiveDepth = 4;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

struct Job {
  std::size_t input = 0;
  std::string where;
  bool is_cubin = false;
  Bytes bytes;
};

struct Range {
  std::size_t lo, hi;
};

struct Discovery {
  const AuditOptions& options;
  std::vector<Job>& jobs;
  std::vector<InputError>& errors;
  std::size_t input = 0;

  void add(std::string where, bool cubin, Bytes b) { jobs.push_back({input, std::move(where), cubin, b}); }

  void file(Bytes b, const std::string& label, int depth) {
    if (is_archive(b) || (b.size >= 8 && std::memcmp(b.data, "!<thin>\n", 8) == 0)) {
      if (depth >= kMaxArchiveDepth) throw FormatError("archives nested too deeply");
      for (const ArchiveMember& m : archive_members(b)) {
        const std::string member = label + "[" + m.name + "]";
        try {
          // Members that are neither ELF nor fatbin (text, LLVM bitcode) carry no GPU code.
          if (is_elf(m.bytes) || is_archive(m.bytes) || (m.bytes.size >= 4 && m.bytes.u32(0, "magic") == kFatbinMagic))
            file(m.bytes, member, depth + 1);
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
    if (b.size >= 4 && b.u32(0, "magic") == kFatbinMagic) {
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
    if (options.scan_embedded) embedded(b, label, covered);
  }

  static bool inside(const std::vector<Range>& rs, std::size_t at) {
    for (const Range& r : rs)
      if (at >= r.lo && at < r.hi) return true;
    return false;
  }

  // Fatbins and cubins anywhere else in the file (vendor libraries keep some
  // in .rodata). A hit that does not parse is data, not an error.
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
              add(label + "@" + hex(off), true, Bytes(rest.data, n));
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

// ---------------------------------------------------------------------------
// One job: parse its images, pick one per GPU, classify what would run.

// One image of a container. Its bytes are decompressed, read and dropped
// again: what stays is the kernel names and, for images some GPU loads, the
// class of every kernel. Peak memory is one decompressed image per worker.
struct Image {
  arch::Image image{arch::ImageKind::Sass, 0, arch::Variant::Plain};
  const FatbinEntry* entry = nullptr;  // null for a standalone cubin
  Bytes standalone;                    // the cubin, when entry is null
  bool listed = false;                 // kernel names read
  bool chosen = false;                 // some GPU loads it
  std::vector<std::string> names;
  std::unordered_map<std::string_view, std::size_t> index;  // views into names
  std::vector<SassSummary> summaries;                       // for chosen images (and siblings, on demand)
  std::vector<bool> summarised;

  bool has(std::string_view k) const { return index.count(k) != 0; }
};

// Reads an image: its kernel names and, with `classify`, every kernel's class.
void read_image(Image& im, bool classify, std::size_t max_bytes) {
  std::vector<std::uint8_t> storage;
  const Bytes bytes = im.entry ? entry_image(*im.entry, storage, max_bytes) : im.standalone;
  const bool first = !im.listed;
  if (im.image.kind == arch::ImageKind::Sass) {
    const Cubin c = parse_cubin(bytes);
    if (first) {
      for (const CubinKernel& k : c.kernels) im.names.emplace_back(k.name);
      im.summaries.resize(c.kernels.size());
      im.summarised.assign(c.kernels.size(), false);
    }
    if (classify)
      for (std::size_t i = 0; i < c.kernels.size() && i < im.summaries.size(); ++i) {
        im.summaries[i] = classify_sass(c.kernels[i].text, im.image.arch);
        im.summarised[i] = true;
      }
  } else {
    std::string_view text(reinterpret_cast<const char*>(bytes.data), bytes.size);
    while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
    const std::vector<PtxKernel> ks = ptx_kernels(text);
    if (first) {
      for (const PtxKernel& k : ks) im.names.push_back(k.name);
      im.summaries.resize(ks.size());
      im.summarised.assign(ks.size(), true);
    }
    for (std::size_t i = 0; i < ks.size() && i < im.summaries.size(); ++i) {
      im.summaries[i].body = ks[i].body;
      im.summaries[i].tensor_ops = ks[i].tensor_ops;
      im.summaries[i].decoded = true;
    }
  }
  if (first) {
    for (std::size_t i = 0; i < im.names.size(); ++i) im.index.emplace(im.names[i], i);
    im.listed = true;
  }
}

struct Partial {
  std::vector<GpuSummary> per_gpu;
  std::vector<std::pair<std::size_t, KernelRecord>> offenders, records;  // (job, record)
  std::vector<std::pair<std::size_t, InputError>> errors;
  std::vector<InputSummary> inputs;  // counters only, indexed like the report's inputs
};

struct Context {
  const AuditOptions& options;
  std::vector<int> gpus;
  std::unique_ptr<std::regex> filter;
};

bool same_family(int a, int b) {
  const arch::Family* fa = arch::family_of(a);
  return fa && fa == arch::family_of(b);
}

void run_job(std::size_t job_index, const Job& job, const Context& ctx, Partial& out) {
  InputSummary& stats = out.inputs[job.input];
  const std::size_t max_bytes = ctx.options.max_image_bytes;
  FatbinContainer container;
  std::vector<Image> images;
  if (job.is_cubin) {
    Image im;
    im.standalone = job.bytes;
    const Cubin c = parse_cubin(job.bytes);
    im.image = {arch::ImageKind::Sass, c.arch, c.variant};
    images.push_back(std::move(im));
  } else {
    container = parse_fatbin(job.bytes, 0);
    ++stats.containers;
    images.reserve(container.entries.size());
    for (const FatbinEntry& e : container.entries) {
      if (e.kind == EntryKind::Other) continue;
      Image im;
      im.entry = &e;
      const bool sass = e.kind == EntryKind::Elf;
      im.image = {sass ? arch::ImageKind::Sass : arch::ImageKind::Ptx, static_cast<int>(e.arch), e.variant};
      images.push_back(std::move(im));
    }
  }

  // The loader's choice needs only the entry headers.
  std::vector<arch::Image> model;
  bool any_sass = false;
  for (const Image& im : images) {
    model.push_back(im.image);
    any_sass |= im.image.kind == arch::ImageKind::Sass;
  }
  std::vector<int> chosen(ctx.gpus.size());
  for (std::size_t g = 0; g < ctx.gpus.size(); ++g) {
    chosen[g] = arch::select_image(ctx.gpus[g], model);
    if (chosen[g] >= 0) images[static_cast<std::size_t>(chosen[g])].chosen = true;
  }
  // Read every SASS image (its kernel names tell a kernel missing from the
  // loaded image), classifying those some GPU loads; PTX only when loaded or
  // when there is no SASS at all.
  for (std::size_t i = 0; i < images.size(); ++i) {
    Image& im = images[i];
    const bool sass = im.image.kind == arch::ImageKind::Sass;
    sass ? ++stats.cubins : ++stats.ptx;
    if (!sass && !im.chosen && any_sass) continue;
    try {
      read_image(im, im.chosen, max_bytes);
    } catch (const FormatError& err) {
      out.errors.push_back({job_index, {job.where + " entry " + image_name(im.image), err.what()}});
      for (int& c : chosen)
        if (c == static_cast<int>(i)) c = -1;
    }
  }

  // Kernels in first-seen order.
  std::vector<std::string_view> kernels;
  {
    std::unordered_map<std::string_view, bool> seen;
    for (const Image& im : images)
      for (const std::string& n : im.names)
        if (seen.emplace(n, true).second) kernels.push_back(n);
  }
  stats.kernels += kernels.size();

  auto summary_of = [&](Image& im, std::string_view k) {
    const std::size_t i = im.index.at(k);
    if (!im.summarised[i]) read_image(im, true, max_bytes);  // a sibling, read again on demand
    return im.summaries[i];
  };

  for (std::string_view kv : kernels) {
    std::string name(kv);
    std::string pretty;
    if (ctx.filter) {
      pretty = demangle(name);
      if (!std::regex_search(name, *ctx.filter) && !std::regex_search(pretty, *ctx.filter)) continue;
    }
    for (std::size_t g = 0; g < ctx.gpus.size(); ++g) {
      const int gpu = ctx.gpus[g];
      GpuSummary& sum = out.per_gpu[g];
      ++sum.kernels;
      KernelRecord r;
      r.gpu = gpu;
      const int idx = chosen[g];
      if (idx < 0 || !images[static_cast<std::size_t>(idx)].has(kv)) {
        bool targeted = false;
        for (const Image& im : images) targeted |= im.has(kv) && same_family(im.image.arch, gpu);
        r.outcome = targeted ? Outcome::Missing : Outcome::NotBuilt;
        if (idx >= 0) {
          r.has_image = true;
          r.image = images[static_cast<std::size_t>(idx)].image;
        }
      } else {
        Image& im = images[static_cast<std::size_t>(idx)];
        const SassSummary s = summary_of(im, kv);
        r.has_image = true;
        r.image = im.image;
        r.tensor_ops = s.tensor_ops;
        std::uint32_t effective = s.tensor_ops;
        if (im.image.kind == arch::ImageKind::Ptx && (effective & tc::kQmma)) {
          // What ptxas makes of FP8 mma.sync depends on the family (facts.md §1).
          const arch::Family* fam = arch::family_of(gpu);
          const bool native = fam && fam->fp8_mma_sync == arch::Family::Fp8MmaSync::Native;
          if (!native) effective = (effective & ~tc::kQmma) | tc::kHmma;
        }
        r.tensor_cores = tensor_cores_of(effective);
        switch (s.body) {
          case Body::TrapStub:
            r.outcome = Outcome::TrapStub;
            break;
          case Body::Empty:
            r.outcome = Outcome::Empty;
            break;
          case Body::Real:
            r.outcome = im.image.kind == arch::ImageKind::Ptx ? Outcome::Jit : Outcome::Sass;
            break;
        }
      }
      switch (r.outcome) {
        case Outcome::Sass:
          ++sum.sass;
          break;
        case Outcome::Jit:
          ++sum.jit;
          break;
        case Outcome::TrapStub:
          ++sum.trap;
          break;
        case Outcome::Empty:
          ++sum.empty;
          break;
        case Outcome::Missing:
          ++sum.missing;
          break;
        case Outcome::NotBuilt:
          ++sum.not_built;
          break;
      }
      if (r.outcome == Outcome::Sass || r.outcome == Outcome::Jit) {
        if (r.tensor_cores == TensorCores::Native) ++sum.tc_native;
        if (r.tensor_cores == TensorCores::Emulated) ++sum.tc_emulated;
      }
      const bool offender =
          r.outcome == Outcome::TrapStub || r.outcome == Outcome::Missing || r.outcome == Outcome::Empty;
      if (offender) {
        for (std::size_t j = 0; j < images.size(); ++j) {
          Image& sib = images[j];
          if (static_cast<int>(j) == idx || !sib.has(kv)) continue;
          try {
            if (summary_of(sib, kv).body == Body::Real) r.real_on.push_back(sib.image);
          } catch (const FormatError&) {
            // Already reported when the image was first read.
          }
        }
      }
      const bool report_it = r.outcome == Outcome::TrapStub || r.outcome == Outcome::Missing ||
                             (r.outcome == Outcome::Empty && !r.real_on.empty());
      if (!report_it && !ctx.options.keep_records) continue;
      r.kernel = name;
      if (pretty.empty()) pretty = demangle(name);
      r.demangled = pretty;
      r.where = job.where;
      if (ctx.options.keep_records) out.records.push_back({job_index, r});
      if (report_it) out.offenders.push_back({job_index, std::move(r)});
    }
  }
}

// Inputs that could not be mapped have readable[i] false (their error is in early_errors).
AuditReport run(std::vector<std::string> labels, std::vector<Bytes> inputs, std::vector<bool> readable,
                const AuditOptions& options, std::vector<InputError> early_errors) {
  AuditReport report;
  Context ctx{options, options.gpus.empty() ? default_gpus() : options.gpus, nullptr};
  report.gpus = ctx.gpus;
  report.gpus_requested = !options.gpus.empty();
  report.errors = std::move(early_errors);
  if (!options.kernel_regex.empty()) {
    try {
      ctx.filter = std::make_unique<std::regex>(options.kernel_regex, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      report.errors.push_back({"--kernel", std::string("bad regular expression: ") + e.what()});
      return report;
    }
  }
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    report.inputs.push_back({labels[i], 0, 0, 0, 0});
    if (!readable[i]) continue;
    Discovery d{options, jobs, report.errors, i};
    try {
      d.file(inputs[i], labels[i], 0);
    } catch (const FormatError& e) {
      report.errors.push_back({labels[i], e.what()});
    } catch (const std::exception& e) {
      report.errors.push_back({labels[i], std::string("internal error: ") + e.what()});
    }
  }

  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, jobs.size())));
  std::vector<Partial> partials(threads);
  for (Partial& p : partials) {
    p.per_gpu.resize(ctx.gpus.size());
    p.inputs.resize(inputs.size());
  }
  std::atomic<std::size_t> next{0};
  auto worker = [&](Partial& p) {
    for (std::size_t j; (j = next.fetch_add(1)) < jobs.size();) {
      try {
        run_job(j, jobs[j], ctx, p);
      } catch (const FormatError& e) {
        p.errors.push_back({j, {jobs[j].where, e.what()}});
      } catch (const std::bad_alloc&) {
        p.errors.push_back({j, {jobs[j].where, "out of memory"}});
      } catch (const std::length_error&) {
        p.errors.push_back({j, {jobs[j].where, "entry too large"}});
      } catch (const std::exception& e) {
        p.errors.push_back({j, {jobs[j].where, std::string("internal error: ") + e.what()}});
      }
    }
  };
  if (threads <= 1) {
    worker(partials[0]);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, std::ref(partials[t]));
    for (std::thread& t : pool) t.join();
  }

  report.per_gpu.resize(ctx.gpus.size());
  std::vector<std::pair<std::size_t, KernelRecord>> offenders, records;
  std::vector<std::pair<std::size_t, InputError>> errors;
  for (Partial& p : partials) {
    for (std::size_t g = 0; g < ctx.gpus.size(); ++g) {
      GpuSummary& a = report.per_gpu[g];
      const GpuSummary& b = p.per_gpu[g];
      a.kernels += b.kernels;
      a.sass += b.sass;
      a.jit += b.jit;
      a.trap += b.trap;
      a.empty += b.empty;
      a.missing += b.missing;
      a.not_built += b.not_built;
      a.tc_native += b.tc_native;
      a.tc_emulated += b.tc_emulated;
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      report.inputs[i].containers += p.inputs[i].containers;
      report.inputs[i].cubins += p.inputs[i].cubins;
      report.inputs[i].ptx += p.inputs[i].ptx;
      report.inputs[i].kernels += p.inputs[i].kernels;
    }
    for (auto& o : p.offenders) offenders.push_back(std::move(o));
    for (auto& o : p.records) records.push_back(std::move(o));
    for (auto& e : p.errors) errors.push_back(std::move(e));
  }
  for (std::size_t g = 0; g < ctx.gpus.size(); ++g) report.per_gpu[g].gpu = ctx.gpus[g];
  // Jobs are numbered in input order; within a job records are in kernel order.
  auto by_job = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::stable_sort(offenders.begin(), offenders.end(), by_job);
  std::stable_sort(records.begin(), records.end(), by_job);
  std::stable_sort(errors.begin(), errors.end(), by_job);
  for (auto& o : offenders) report.offenders.push_back(std::move(o.second));
  for (auto& o : records) report.records.push_back(std::move(o.second));
  for (auto& e : errors) report.errors.push_back(std::move(e.second));
  return report;
}

}  // namespace

AuditReport audit_bytes(Bytes bytes, const std::string& name, const AuditOptions& options) {
  return run({name}, {bytes}, {true}, options, {});
}

AuditReport audit_files(const std::vector<std::string>& paths, const AuditOptions& options) {
  std::vector<std::unique_ptr<MappedFile>> maps;
  std::vector<Bytes> inputs;
  std::vector<bool> readable;
  std::vector<InputError> errors;
  for (const std::string& p : paths) {
    try {
      maps.push_back(std::make_unique<MappedFile>(p));
      inputs.push_back(maps.back()->bytes());
      readable.push_back(true);
    } catch (const FormatError& e) {
      errors.push_back({p, e.what()});
      inputs.emplace_back();
      readable.push_back(false);
    }
  }
  return run(paths, inputs, readable, options, std::move(errors));
}

}  // namespace fp8kit::audit
