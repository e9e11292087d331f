#include "audit/module.hpp"

#include "audit/cubin.hpp"
#include "audit/ptx.hpp"

namespace fp8kit::audit {

namespace {

// Reads an image: its kernel names and, with `classify`, every kernel's class.
void read_image(ModuleImage& im, bool classify, std::size_t max_bytes) {
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

void make_images(const Job& job, Module& m, ModuleStats& stats) {
  if (job.is_cubin) {
    ModuleImage im;
    im.standalone = job.bytes;
    const Cubin c = parse_cubin(job.bytes);
    im.image = {arch::ImageKind::Sass, c.arch, c.variant};
    m.images.push_back(std::move(im));
    return;
  }
  m.container = parse_fatbin(job.bytes, 0);
  ++stats.containers;
  m.images.reserve(m.container.entries.size());
  for (const FatbinEntry& e : m.container.entries) {
    if (e.kind == EntryKind::Other) continue;
    ModuleImage im;
    im.entry = &e;
    const bool sass = e.kind == EntryKind::Elf;
    im.image = {sass ? arch::ImageKind::Sass : arch::ImageKind::Ptx, static_cast<int>(e.arch), e.variant};
    m.images.push_back(std::move(im));
  }
}

}  // namespace

const SassSummary& Module::summary(std::size_t i, std::string_view k) {
  ModuleImage& im = images[i];
  const std::size_t at = im.index.at(k);
  if (!im.summarised[at]) read_image(im, true, max_image_bytes);
  return im.summaries[at];
}

void open_module(const Job& job, const std::vector<int>& gpus, std::size_t max_image_bytes, Module& m,
                 ModuleStats& stats, std::vector<InputError>& errors) {
  m.max_image_bytes = max_image_bytes;
  make_images(job, m, stats);
  // The loader's choice needs only the entry headers.
  std::vector<arch::Image> model;
  bool any_sass = false;
  for (const ModuleImage& im : m.images) {
    model.push_back(im.image);
    any_sass |= im.image.kind == arch::ImageKind::Sass;
  }
  m.chosen.resize(gpus.size());
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    m.chosen[g] = arch::select_image(gpus[g], model);
    if (m.chosen[g] >= 0) m.images[static_cast<std::size_t>(m.chosen[g])].chosen = true;
  }
  // PTX is read only when loaded or when there is no SASS at all.
  for (std::size_t i = 0; i < m.images.size(); ++i) {
    ModuleImage& im = m.images[i];
    const bool sass = im.image.kind == arch::ImageKind::Sass;
    sass ? ++stats.cubins : ++stats.ptx;
    if (!sass && !im.chosen && any_sass) continue;
    try {
      read_image(im, im.chosen, max_image_bytes);
    } catch (const FormatError& err) {
      errors.push_back({job.where + " entry " + image_name(im.image), err.what()});
      for (int& c : m.chosen)
        if (c == static_cast<int>(i)) c = -1;
    }
  }
  std::unordered_map<std::string_view, bool> seen;
  for (const ModuleImage& im : m.images)
    for (const std::string& n : im.names)
      if (seen.emplace(n, true).second) m.kernels.push_back(n);
}

}  // namespace fp8kit::audit
