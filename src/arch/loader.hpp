// The CUDA driver's choice of image for a kernel, as a pure function.
//
// A fatbinary carries, per kernel, SASS images (cubins) for some targets and
// PTX for others. For a GPU of capability `cap` the driver loads (CUDA 12.9+
// rules; sources in docs/loader.md):
//   1. SASS whose target is binary-compatible with cap, the highest such:
//        plain sm_XY  loads on X.Z for Z >= Y   (same major)
//        sm_XYf       loads on X.Z for Z >= Y   (the family; `f` marks it)
//        sm_XYa       loads on X.Y only         (a range one capability wide)
//   2. else PTX compute_XY with XY <= cap, the highest, JIT-compiled
//        (compute_XYa PTX only for X.Y, compute_XYf only within major X);
//   3. else nothing: "no kernel image is available for execution".
// fp8kit's dispatch and `fp8kit audit` both use this one function.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "arch/config.hpp"

namespace fp8kit::arch {

enum class ImageKind { Sass, Ptx };
enum class Variant { Plain, ArchSpecific /* a */, FamilySpecific /* f */ };

struct Image {
  ImageKind kind;
  int arch;  // capability units: 120 for sm_120 / compute_120
  Variant variant;

  // "sm_90a", "compute_120": the name nvcc and cuobjdump use.
  std::string name() const {
    std::string s = (kind == ImageKind::Sass ? "sm_" : "compute_") + std::to_string(arch);
    if (variant == Variant::ArchSpecific) s += 'a';
    if (variant == Variant::FamilySpecific) s += 'f';
    return s;
  }
};

// The capabilities an image can run on, as a range.
constexpr Range image_range(const Image& im) {
  const int major_end = (im.arch / 10 + 1) * 10;
  if (im.variant == Variant::ArchSpecific) return Range{im.arch, im.arch + 1};
  if (im.kind == ImageKind::Sass || im.variant == Variant::FamilySpecific)
    return Range{im.arch, major_end};
  return Range{im.arch, kOpenEnd};  // plain PTX: JIT for any newer GPU
}

// How narrowly an image targets its GPUs: `a` (one capability) before `f`
// (a family) before plain. Breaks ties between images of one arch, so the
// choice does not depend on the order of the entries in the fatbinary.
constexpr int specificity(Variant v) {
  return v == Variant::ArchSpecific ? 2 : v == Variant::FamilySpecific ? 1 : 0;
}

// Index into `images` of the image the driver would load on `cap`, or -1.
inline int select_image(int cap, const Image* images, std::size_t count) {
  int best = -1;
  for (ImageKind pass : {ImageKind::Sass, ImageKind::Ptx}) {
    for (std::size_t i = 0; i < count; ++i) {
      const Image& im = images[i];
      if (im.kind != pass || !image_range(im).contains(cap)) continue;
      const bool better = best < 0 || im.arch > images[best].arch ||
                          (im.arch >= images[best].arch &&
                           specificity(im.variant) > specificity(images[best].variant));
      if (better) best = static_cast<int>(i);
    }
    if (best >= 0) return best;
  }
  return -1;
}

inline int select_image(int cap, const std::vector<Image>& images) {
  return select_image(cap, images.data(), images.size());
}

// "sass sm_90a", "ptx compute_120 (JIT)": how reports name a loaded image.
inline std::string image_text(const Image& im) {
  const bool sass = im.kind == ImageKind::Sass;
  return (sass ? "sass " : "ptx ") + im.name() + (sass ? "" : " (JIT)");
}

}  // namespace fp8kit::arch
