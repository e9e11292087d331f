// Stage 3 of the audit: one module's kernels x GPUs -> outcomes, summary
// counts, and offenders with their real-code siblings and severity.
#pragma once

#include <cstddef>
#include <memory>
#include <regex>
#include <utility>
#include <vector>

#include "audit/report.hpp"
#include "audit/discover.hpp"

namespace fp8kit::audit {

// What one worker collects; merged into the report in job order.
struct Partial {
  std::vector<GpuSummary> per_gpu;
  std::vector<std::pair<std::size_t, KernelRecord>> offenders, records;  // (job, record)
  std::vector<std::pair<std::size_t, InputError>> errors;
  std::vector<InputSummary> inputs;  // counters only, indexed like the report's inputs
};

struct TallyContext {
  const AuditOptions& options;
  std::vector<int> gpus;
  bool gpus_requested = false;
  std::unique_ptr<std::regex> filter;  // --kernel
  std::vector<std::string> libraries;  // per input
};

// Audits job `job_index`; throws FormatError when its container does not parse.
void tally_job(std::size_t job_index, const Job& job, const TallyContext& ctx, Partial& out);

}  // namespace fp8kit::audit
