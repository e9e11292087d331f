// The audit's driver: files in batches of bounded size (mapped, read, unmapped
// again, so the peak resident set stays near one batch), each batch discovered
// in parallel over its files, then audited in parallel over its modules (the
// largest first), the workers' partial results merged back in input order;
// a read-ahead thread (prefetch.hpp) keeps the disk busy up to two batches ahead.
#include "audit/audit.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <regex>
#include <thread>

#include "audit/discover.hpp"
#include "audit/mapped_file.hpp"
#include "audit/parallel.hpp"
#include "audit/prefetch.hpp"
#include "audit/tally.hpp"
#include "audit/walk.hpp"

namespace fp8kit::audit {

namespace {

// Files mapped at once: a batch takes files while they fit in this many
// bytes (a larger file is a batch of its own). Bounds the resident set, since
// the embedded-cubin scan touches every page of a file.
constexpr std::size_t kBatchBytes = std::size_t{1} << 30;
// How far the read-ahead runs past the start of the batch in work: this
// batch and the next.
constexpr std::size_t kPrefetchWindow = 2 * kBatchBytes;

// One input: a file to map, or bytes the caller holds.
struct Source {
  std::string label;
  bool named = true;
  bool in_memory = false;
  Bytes bytes;
};

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

  void batch(const std::vector<Source>& sources, const std::vector<std::size_t>& order, std::size_t lo,
             std::size_t hi);
  void run_jobs(const std::vector<Job>& jobs);
  void merge(std::vector<Partial>& partials);
};

// Sources [lo, hi) in input order; `order` holds the same indices, largest
// file first (the order they are read in, so the longest scan starts first).
void Auditor::batch(const std::vector<Source>& sources, const std::vector<std::size_t>& order, std::size_t lo,
                    std::size_t hi) {
  const std::size_t n = hi - lo;
  std::vector<std::unique_ptr<MappedFile>> maps(n);
  std::vector<std::vector<Job>> jobs(n);
  std::vector<std::vector<InputError>> errors(n), unread(n);
  parallel_for(n, threads, [&](unsigned, std::size_t o) {
    const std::size_t i = order[lo + o];
    const std::size_t k = i - lo;
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
  // Largest module first, so the longest one does not start last.
  std::vector<std::size_t> by_size(jobs.size());
  std::iota(by_size.begin(), by_size.end(), std::size_t{0});
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](std::size_t x, std::size_t y) { return jobs[x].bytes.size > jobs[y].bytes.size; });
  parallel_for(jobs.size(), t, [&](unsigned w, std::size_t o) {
    const std::size_t j = by_size[o];
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

// Batches in input order, each taking files while they fit in kBatchBytes;
// within a batch the files are read largest first.
struct Plan {
  std::vector<std::size_t> sizes;  // by source
  std::vector<std::size_t> ends;   // batch b is [ends[b-1], ends[b])
  std::vector<std::size_t> order;  // source indices, batch by batch, each batch's largest first
};

Plan plan_batches(const std::vector<Source>& sources) {
  Plan p;
  for (const Source& s : sources) p.sizes.push_back(size_of(s));
  for (std::size_t hi = 0, bytes = 0, lo = 0; hi < sources.size(); ++hi) {
    if (hi > lo && bytes + p.sizes[hi] > kBatchBytes) {
      p.ends.push_back(hi);
      lo = hi;
      bytes = 0;
    }
    bytes += p.sizes[hi];
  }
  if (!sources.empty()) p.ends.push_back(sources.size());
  p.order.resize(sources.size());
  std::iota(p.order.begin(), p.order.end(), std::size_t{0});
  for (std::size_t b = 0, lo = 0; b < p.ends.size(); lo = p.ends[b++])
    std::stable_sort(p.order.begin() + static_cast<std::ptrdiff_t>(lo),
                     p.order.begin() + static_cast<std::ptrdiff_t>(p.ends[b]),
                     [&](std::size_t x, std::size_t y) { return p.sizes[x] > p.sizes[y]; });
  return p;
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
  const Plan plan = plan_batches(sources);
  std::vector<Prefetcher::File> ahead;
  for (std::size_t i : plan.order)
    ahead.push_back({sources[i].in_memory ? std::string() : sources[i].label, plan.sizes[i]});
  Prefetcher prefetcher(std::move(ahead), kPrefetchWindow);
  for (std::size_t b = 0, lo = 0; b < plan.ends.size(); lo = plan.ends[b++]) {
    prefetcher.reached(lo);
    a.batch(sources, plan.order, lo, plan.ends[b]);
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
