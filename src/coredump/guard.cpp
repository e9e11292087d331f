#include "coredump/guard.hpp"

#include <cctype>
#include <map>

#include "arch/config.hpp"
#include "audit/audit.hpp"

namespace fp8kit::coredump {

namespace {

constexpr int kDeviceUnits = 10;  // __CUDA_ARCH__ = 10 x capability

std::string range_text(const arch::Range& r) {
  std::string s = "__CUDA_ARCH__ >= " + std::to_string(r.lo * kDeviceUnits);
  if (r.hi < arch::kOpenEnd) s += " && __CUDA_ARCH__ < " + std::to_string(r.hi * kDeviceUnits);
  return s;
}

std::string regex_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') out += '\\';
    out += c;
  }
  return out;
}

// What the audit says about one kernel on one GPU, over the binaries given.
struct SiblingResult {
  bool found = false;
  audit::KernelRecord record;
  std::vector<std::string> errors;
};

SiblingResult audit_kernel(const std::string& kernel, int gpu, const std::vector<std::string>& binaries) {
  audit::AuditOptions ao;
  ao.gpus = {gpu};
  ao.kernel_regex = "^" + regex_escape(kernel) + "$";
  ao.keep_records = true;
  ao.threads = 1;
  const audit::AuditReport r = audit::audit_files(binaries, ao);
  SiblingResult out;
  for (const audit::InputError& e : r.errors) out.errors.push_back(e.where + ": " + e.message);
  for (const audit::KernelRecord& rec : r.records) {
    if (rec.kernel != kernel || rec.gpu != gpu) continue;
    // Prefer the record that tells the story: a stub with real siblings.
    if (!out.found || (out.record.real_on.empty() && !rec.real_on.empty())) {
      out.found = true;
      out.record = rec;
    }
  }
  return out;
}

}  // namespace

GuardAdvice advise(int gpu, const std::string& loaded, const std::vector<arch::Image>& real_on) {
  GuardAdvice a;
  const arch::Family* mine = arch::family_of(gpu);
  std::string eq;
  std::vector<const arch::Family*> families;
  for (const arch::Image& im : real_on) {
    eq += (eq.empty() ? "" : " || ") + std::string("__CUDA_ARCH__ == ") + std::to_string(im.arch * kDeviceUnits);
    const arch::Family* f = arch::family_of(im.arch);
    if (f != nullptr && f == mine) a.same_family = true;
    if (f != nullptr && (families.empty() || families.back() != f)) families.push_back(f);
  }
  a.guard = "`#if " + eq + "` real code `#else asm(\"trap;\")`, and the build made " + loaded + " too";
  const std::string gpu_name = audit::capability_name(gpu);
  if (a.same_family) {
    a.fix = "test the family range instead: `#if " + range_text(mine->range) + "` (" + mine->name +
            "), which holds " + gpu_name + "; one range-guarded image then serves the whole family";
    return a;
  }
  std::string where;
  for (const arch::Family* f : families)
    where += (where.empty() ? "" : ", ") + std::string(f->name) + " `" + range_text(f->range) + "`";
  a.fix = "the real code is for " + (where.empty() ? std::string("other targets") : where) +
          " only: guard it by that range, compile the source only for targets inside it (a wrong target is then "
          "a compile error, not a stub), and let the host refuse " + gpu_name +
          (mine ? std::string(" (") + mine->name + ")" : std::string()) + " with a status or give it its own path";
  return a;
}

void check_siblings(Explanation& ex, const CoreDump& dump, const ExplainOptions& options) {
  std::map<std::pair<std::string, int>, SiblingResult> cache;
  bool noted_no_binary = false;
  for (Fault& f : ex.faults) {
    if (!f.has_image || f.kernel.empty()) continue;
    if (f.body == audit::Body::Real) {
      f.sibling = SiblingVerdict::LoadedIsReal;
      continue;
    }
    if (options.binaries.empty()) {
      if (!noted_no_binary)
        ex.notes.push_back("a core dump holds only the image the driver loaded for each module; to see whether a "
                           "sibling target has real code, give the program: --binary FILE (fp8kit run does)");
      noted_no_binary = true;
      continue;
    }
    const Device* d = dump.device(f.device);
    const int gpu = d != nullptr ? d->capability() : f.image_arch;
    const auto key = std::make_pair(f.kernel, gpu);
    auto it = cache.find(key);
    if (it == cache.end()) {
      it = cache.emplace(key, audit_kernel(f.kernel, gpu, options.binaries)).first;
      for (const std::string& e : it->second.errors) ex.notes.push_back(e);
    }
    const SiblingResult& r = it->second;
    if (!r.found) {
      ex.notes.push_back(f.demangled + " is in none of the binaries given");
      continue;
    }
    if (!r.record.has_image) {
      ex.notes.push_back(r.record.where + " has no image of " + f.demangled + " that a " +
                         audit::capability_name(gpu) + " GPU loads: not the binary the process ran");
      continue;
    }
    f.sibling_where = r.record.where;
    if (audit::image_name(r.record.image) != f.image)
      ex.notes.push_back("the audit of " + r.record.where + " says a " + audit::capability_name(gpu) + " GPU loads " +
                         audit::image_name(r.record.image) + ", but the dump ran " + f.image);
    if (r.record.real_on.empty()) {
      f.sibling = SiblingVerdict::NoRealSibling;
      continue;
    }
    f.sibling = SiblingVerdict::RealSibling;
    for (const arch::Image& im : r.record.real_on) f.real_on.push_back(audit::image_name(im));
    const GuardAdvice a = advise(gpu, f.image, r.record.real_on);
    f.same_family = a.same_family;
    f.guard = a.guard;
    f.fix = a.fix;
  }
}

}  // namespace fp8kit::coredump
