// The audit's driver: files in batches of bounded size (mapped, read, unmapped
// again, so the peak resident set stays near one batch), each batch discovered
// in parallel over its files, then audited in parallel over its modules, the
// workers' partial results merged back in input order.
#include "audit/audit.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <regex>
#include <thread>

#include "audit/discover.hpp"
#include "audit/mapped_file.hpp"
#include "audit/tally.hpp"
#include "audit/walk.hpp"

namespace fp8kit::audit {

std::size_t AuditReport::count(Severity s) const {
  return static_cast<std::size_t>(
      std::count_if(offenders.begin(), offenders.end(), [s](const KernelRecord& r) { return r.severity == s; }));
}

bool AuditReport::has_findings(bool strict) const {
  return std::any_of(offenders.begin(), offenders.end(),
                     [strict](const KernelRecord& r) { return counts_as_finding(r.severity, strict); });
}

namespace {

// Files mapped at once: a batch takes files while they fit in this many
// bytes (a larger file is a batch of its own). Bounds the resident set, since
// the embedded-cubin scan touches every page of a file.
constexpr std::size_t kBatchBytes = std::size_t{1} << 30;

// One input: a file to map, or bytes the caller holds.
struct Source {
  std::string label;
  bool named = true;
  bool in_memory = false;
  Bytes bytes;
};

// Runs fn(worker, i) for i in [0, n) on up to `threads` threads.
template <typename Fn>
void parallel_for(std::size_t n, unsigned threads, Fn fn) {
  std::atomic<std::size_t> next{0};
  auto work = [&](unsigned w) {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) fn(w, i);
  };
  if (threads <= 1 || n <= 1) {
    work(0);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (std::thread& t : pool) t.join();
}

template <typename T>
void append(std::vector<T>& to, std::vector<T>& from) {
  for (T& x : from) to.push_back(std::move(x));
}

struct Auditor {
  Auditor(const AuditOptions& options, AuditReport& r)
      : ctx{options, options.gpus.empty() ? default_gpus() : options.gpus, !options.gpus.empty(), nullptr, {}},
        threads(options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency())),
        report(r) {}
  Auditor(const Auditor&) = delete;
  TallyContext ctx;
  unsigned threads;
  AuditReport& report;
  std::vector<std::pair<std::size_t, KernelRecord>> offenders, records;
  std::vector<std::pair<std::size_t, InputError>> job_errors;
  std::size_t jobs_done = 0;  // job numbers run on across batches: the merge order

  void batch(const std::vector<Source>& sources, std::size_t lo, std::size_t hi);
  void run_jobs(const std::vector<Job>& jobs);
  void merge(std::vector<Partial>& partials);
};

void Auditor::batch(const std::vector<Source>& sources, std::size_t lo, std::size_t hi) {
  const std::size_t n = hi - lo;
  std::vector<std::unique_ptr<MappedFile>> maps(n);
  std::vector<std::vector<Job>> jobs(n);
  std::vector<std::vector<InputError>> errors(n), unread(n);
  parallel_for(n, threads, [&](unsigned, std::size_t k) {
    const std::size_t i = lo + k;
    const Source& s = sources[i];
    try {
      Bytes b = s.bytes;
      if (!s.in_memory) {
        maps[k] = std::make_unique<MappedFile>(s.label);
        b = maps[k]->bytes();
      }
      discover(b, s.label, i, ctx.options, jobs[k], errors[k]);
    } catch (const FormatError& e) {
      (s.named ? errors : unread)[k].push_back({s.label, e.what()});
    } catch (const std::exception& e) {
      errors[k].push_back({s.label, std::string("internal error: ") + e.what()});
    }
  });
  std::vector<Job> all;
  for (std::size_t k = 0; k < n; ++k) {
    append(report.errors, errors[k]);
    append(report.unread, unread[k]);
    append(all, jobs[k]);
  }
  run_jobs(all);
}

void Auditor::run_jobs(const std::vector<Job>& jobs) {
  const unsigned t = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, jobs.size())));
  std::vector<Partial> partials(t);
  for (Partial& p : partials) {
    p.per_gpu.resize(ctx.gpus.size());
    p.inputs.resize(report.inputs.size());
  }
  const std::size_t base = jobs_done;
  parallel_for(jobs.size(), t, [&](unsigned w, std::size_t j) {
    Partial& p = partials[w];
    const std::string& where = jobs[j].where;
    try {
      tally_job(base + j, jobs[j], ctx, p);
    } catch (const FormatError& e) {
      p.errors.push_back({base + j, {where, e.what()}});
    } catch (const std::bad_alloc&) {
      p.errors.push_back({base + j, {where, "out of memory"}});
    } catch (const std::length_error&) {
      p.errors.push_back({base + j, {where, "entry too large"}});
    } catch (const std::exception& e) {
      p.errors.push_back({base + j, {where, std::string("internal error: ") + e.what()}});
    }
  });
  jobs_done += jobs.size();
  merge(partials);
}

void Auditor::merge(std::vector<Partial>& partials) {
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
    for (std::size_t i = 0; i < report.inputs.size(); ++i) {
      report.inputs[i].containers += p.inputs[i].containers;
      report.inputs[i].cubins += p.inputs[i].cubins;
      report.inputs[i].ptx += p.inputs[i].ptx;
      report.inputs[i].kernels += p.inputs[i].kernels;
    }
    append(offenders, p.offenders);
    append(records, p.records);
    append(job_errors, p.errors);
  }
}

std::size_t size_of(const Source& s) {
  if (s.in_memory) return s.bytes.size;
  struct stat st {};
  return ::stat(s.label.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size) : 0;
}

// Asks the kernel to start reading the next batch while this one is audited
// (a cold site-packages is disk-bound otherwise).
void prefetch(const std::vector<Source>& sources, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo; i < hi; ++i) {
    if (sources[i].in_memory) continue;
    const int fd = ::open(sources[i].label.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
    ::close(fd);
  }
}

// Jobs are numbered in input order; within a job records are in kernel order.
template <typename T>
void sorted_into(std::vector<T>& to, std::vector<std::pair<std::size_t, T>>& from) {
  std::stable_sort(from.begin(), from.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& x : from) to.push_back(std::move(x.second));
}

AuditReport run(const std::vector<Source>& sources, const std::vector<InputFile>& files, std::size_t skipped,
                const AuditOptions& options, std::vector<InputError> early_errors) {
  AuditReport report;
  Auditor a(options, report);
  report.gpus = a.ctx.gpus;
  report.gpus_requested = a.ctx.gpus_requested;
  report.errors = std::move(early_errors);
  report.files_skipped = skipped;
  report.per_gpu.resize(report.gpus.size());
  for (std::size_t g = 0; g < report.gpus.size(); ++g) report.per_gpu[g].gpu = report.gpus[g];
  if (!options.kernel_regex.empty()) {
    try {
      a.ctx.filter = std::make_unique<std::regex>(options.kernel_regex, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      report.errors.push_back({"--kernel", std::string("bad regular expression: ") + e.what()});
      return report;
    }
  }
  for (const InputFile& f : files) {
    report.inputs.push_back({f.path, f.library, 0, 0, 0, 0});
    a.ctx.libraries.push_back(f.library);
  }
  std::vector<std::size_t> ends;  // batch i is [ends[i-1], ends[i])
  for (std::size_t hi = 0, bytes = 0, lo = 0; hi < sources.size(); ++hi) {
    const std::size_t n = size_of(sources[hi]);
    if (hi > lo && bytes + n > kBatchBytes) {
      ends.push_back(hi);
      lo = hi;
      bytes = 0;
    }
    bytes += n;
  }
  if (!sources.empty()) ends.push_back(sources.size());
  for (std::size_t b = 0, lo = 0; b < ends.size(); lo = ends[b++]) {
    if (b + 1 < ends.size()) prefetch(sources, ends[b], ends[b + 1]);
    a.batch(sources, lo, ends[b]);
  }
  sorted_into(report.offenders, a.offenders);
  sorted_into(report.records, a.records);
  sorted_into(report.errors, a.job_errors);
  // Keep what was named and what holds CUDA code; count the rest.
  report.files_read = report.inputs.size();
  std::vector<InputSummary> kept;
  for (std::size_t i = 0; i < report.inputs.size(); ++i) {
    report.files_with_cuda += report.inputs[i].has_cuda();
    if (files[i].named || report.inputs[i].has_cuda()) kept.push_back(std::move(report.inputs[i]));
  }
  report.inputs = std::move(kept);
  return report;
}

}  // namespace

AuditReport audit_bytes(Bytes bytes, const std::string& name, const AuditOptions& options) {
  return run({{name, true, true, bytes}}, {{name, name, true}}, 0, options, {});
}

AuditReport audit_inputs(const std::vector<InputFile>& files, std::size_t files_skipped, const AuditOptions& options) {
  std::vector<Source> sources;
  for (const InputFile& f : files) sources.push_back({f.path, f.named, false, {}});
  return run(sources, files, files_skipped, options, {});
}

AuditReport audit_files(const std::vector<std::string>& paths, const AuditOptions& options) {
  std::vector<WalkRoot> roots;
  for (const std::string& p : paths) roots.push_back({p, ""});
  Expanded e = expand_inputs(roots);
  std::vector<Source> sources;
  for (const InputFile& f : e.files) sources.push_back({f.path, f.named, false, {}});
  return run(sources, e.files, e.skipped, options, std::move(e.errors));
}

}  // namespace fp8kit::audit
