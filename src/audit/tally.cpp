#include "audit/tally.hpp"

#include "arch/config.hpp"
#include "audit/grade.hpp"
#include "audit/module.hpp"

namespace fp8kit::audit {

namespace {

bool same_family(int a, int b) {
  const arch::Family* fa = arch::family_of(a);
  return fa && fa == arch::family_of(b);
}

// Tensor cores a GPU gets from an image: FP8 mma.sync in PTX becomes what
// ptxas makes of it on that family (native QMMA or an HMMA emulation).
TensorCores loaded_tensor_cores(const arch::Image& im, std::uint32_t ops, int gpu) {
  if (im.kind == arch::ImageKind::Ptx && (ops & tc::kQmma)) {
    const arch::Family* fam = arch::family_of(gpu);
    const bool native = fam && fam->fp8_mma_sync == arch::Family::Fp8MmaSync::Native;
    if (!native) ops = (ops & ~tc::kQmma) | tc::kHmma;
  }
  return tensor_cores_of(ops);
}

// The outcome of kernel k on GPU number g, without names or siblings.
// A cubin found loose in a library's data is one of a set the library picks
// from at run time (one per target): no image for a GPU is no claim there.
KernelRecord outcome_of(Module& m, std::string_view k, std::size_t g, int gpu, bool loose_cubin) {
  KernelRecord r;
  r.gpu = gpu;
  const int idx = m.chosen[g];
  if (idx < 0 || !m.images[static_cast<std::size_t>(idx)].has(k)) {
    bool targeted = false;
    for (const ModuleImage& im : m.images) targeted |= im.has(k) && same_family(im.image.arch, gpu);
    r.outcome = targeted && !loose_cubin ? Outcome::Missing : Outcome::NotBuilt;
    if (idx >= 0) {
      r.has_image = true;
      r.image = m.images[static_cast<std::size_t>(idx)].image;
    }
    return r;
  }
  const std::size_t i = static_cast<std::size_t>(idx);
  const SassSummary& s = m.summary(i, k);
  r.has_image = true;
  r.image = m.images[i].image;
  r.tensor_ops = s.tensor_ops;
  r.tensor_cores = loaded_tensor_cores(r.image, s.tensor_ops, gpu);
  switch (s.body) {
    case Body::TrapStub:
      r.outcome = Outcome::TrapStub;
      break;
    case Body::Empty:
      r.outcome = Outcome::Empty;
      break;
    case Body::Real:
      r.outcome = r.image.kind == arch::ImageKind::Ptx ? Outcome::Jit : Outcome::Sass;
      break;
  }
  return r;
}

void count(GpuSummary& sum, const KernelRecord& r) {
  ++sum.kernels;
  std::size_t* slot[] = {&sum.sass, &sum.jit, &sum.trap, &sum.empty, &sum.missing, &sum.not_built};
  ++*slot[static_cast<std::size_t>(r.outcome)];
  if (r.outcome == Outcome::Sass || r.outcome == Outcome::Jit) {
    if (r.tensor_cores == TensorCores::Native) ++sum.tc_native;
    if (r.tensor_cores == TensorCores::Emulated) ++sum.tc_emulated;
  }
}

// The module's other images in which kernel k is real code.
std::vector<arch::Image> real_siblings(Module& m, std::string_view k, int loaded) {
  std::vector<arch::Image> out;
  for (std::size_t j = 0; j < m.images.size(); ++j) {
    if (static_cast<int>(j) == loaded || !m.images[j].has(k)) continue;
    try {
      if (m.summary(j, k).body == Body::Real) out.push_back(m.images[j].image);
    } catch (const FormatError&) {
      // Already reported when the image was first read.
    }
  }
  return out;
}

}  // namespace

void tally_job(std::size_t job_index, const Job& job, const TallyContext& ctx, Partial& out) {
  InputSummary& stats = out.inputs[job.input];
  Module m;
  ModuleStats ms;
  std::vector<InputError> errors;
  try {
    open_module(job, ctx.gpus, ctx.options.max_image_bytes, m, ms, errors);
  } catch (...) {
    stats.containers += ms.containers;
    throw;
  }
  stats.containers += ms.containers;
  stats.cubins += ms.cubins;
  stats.ptx += ms.ptx;
  stats.kernels += m.kernels.size();
  for (InputError& e : errors) out.errors.push_back({job_index, std::move(e)});

  for (std::string_view kv : m.kernels) {
    const std::string name(kv);
    std::string pretty;
    if (ctx.filter) {
      pretty = demangle(name);
      if (!std::regex_search(name, *ctx.filter) && !std::regex_search(pretty, *ctx.filter)) continue;
    }
    for (std::size_t g = 0; g < ctx.gpus.size(); ++g) {
      KernelRecord r = outcome_of(m, kv, g, ctx.gpus[g], job.is_cubin && job.embedded);
      count(out.per_gpu[g], r);
      const bool offender =
          r.outcome == Outcome::TrapStub || r.outcome == Outcome::Missing || r.outcome == Outcome::Empty;
      if (offender) r.real_on = real_siblings(m, kv, m.chosen[g]);
      const bool report_it = r.outcome == Outcome::TrapStub || r.outcome == Outcome::Missing ||
                             (r.outcome == Outcome::Empty && !r.real_on.empty());
      if (!report_it && !ctx.options.keep_records) continue;
      if (report_it) grade(r, ctx.gpus_requested);
      r.kernel = name;
      if (pretty.empty()) pretty = demangle(name);
      r.demangled = pretty;
      r.where = job.where;
      if (job.input < ctx.libraries.size()) r.library = ctx.libraries[job.input];
      if (ctx.options.keep_records) out.records.push_back({job_index, r});
      if (report_it) out.offenders.push_back({job_index, std::move(r)});
    }
  }
}

}  // namespace fp8kit::audit
