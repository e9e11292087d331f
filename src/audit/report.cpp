// The audit report's values: their names, the parsing of GPU names, and the
// report's counts.
#include "audit/report.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "arch/config.hpp"
#include "core/text.hpp"

namespace fp8kit::audit {

std::size_t AuditReport::count(Severity s) const {
  return static_cast<std::size_t>(
      std::count_if(offenders.begin(), offenders.end(), [s](const KernelRecord& r) { return r.severity == s; }));
}

bool AuditReport::has_findings(bool strict) const {
  return std::any_of(offenders.begin(), offenders.end(),
                     [strict](const KernelRecord& r) { return counts_as_finding(r.severity, strict); });
}

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

std::string image_name(const arch::Image& im) { return im.name(); }

std::string capability_name(int cap) { return capability_text(cap); }

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

std::vector<int> default_gpus() {
  return {std::begin(arch::kShippedCapabilities), std::end(arch::kShippedCapabilities)};
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

}  // namespace fp8kit::audit
