// Stage 2 of the audit: one job as the driver sees it, a module. Its images
// are parsed, the loader model picks one per GPU from the entry headers alone,
// and every image is read: kernel names of all SASS images (they tell a kernel
// missing from the loaded image), the class of every kernel of the images some
// GPU loads. Sibling images are classified later, on demand (offenders only).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "arch/loader.hpp"
#include "audit/discover.hpp"
#include "audit/fatbin.hpp"
#include "audit/sass.hpp"

namespace fp8kit::audit {

// One image of a module. Its bytes are decompressed, read and dropped again:
// what stays is the kernel names and, once classified, every kernel's class.
// Peak memory is one decompressed image per worker.
struct ModuleImage {
  arch::Image image{arch::ImageKind::Sass, 0, arch::Variant::Plain};
  const FatbinEntry* entry = nullptr;  // null for a standalone cubin
  Bytes standalone;                    // the cubin, when entry is null
  bool listed = false;                 // kernel names read
  bool chosen = false;                 // some GPU loads it
  std::vector<std::string> names;
  std::unordered_map<std::string_view, std::size_t> index;  // views into names
  std::vector<SassSummary> summaries;
  std::vector<bool> summarised;

  bool has(std::string_view k) const { return index.count(k) != 0; }
};

struct Module {
  FatbinContainer container;        // entries the images point into
  std::vector<ModuleImage> images;  // SASS and PTX, in entry order
  std::vector<int> chosen;          // per GPU: index into images, or -1
  std::vector<std::string_view> kernels;  // first-seen order over the images
  std::size_t max_image_bytes = 0;

  // The class of kernel `k` in image `i`, classifying that image first if needed.
  const SassSummary& summary(std::size_t i, std::string_view k);
};

struct ModuleStats {
  std::size_t containers = 0, cubins = 0, ptx = 0;
};

// Builds the module of a job for `gpus`. An image that does not parse is an
// error in `errors` and loads nowhere; a container that does not parse throws.
// Modules are not movable once built (kernels and index view into names).
void open_module(const Job& job, const std::vector<int>& gpus, std::size_t max_image_bytes, Module& m,
                 ModuleStats& stats, std::vector<InputError>& errors);

}  // namespace fp8kit::audit
