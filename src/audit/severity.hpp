// How much a finding of `fp8kit audit` or `fp8kit lint` matters, by the family
// rule (docs/audit.md):
//   Error    a GPU that exists today in the same family is mis-served
//            (12.0 vs 12.1, 10.0 vs 10.3; a trap or empty image where a sibling
//            of the same family has real code; a missing image for a GPU the
//            user named).
//   Warning  only a future member of the family would be (an exact check in a
//            one-member family, a list without a future minor).
//   Note     arch-specific code stubbed on other families by design.
// Both tools exit 1 on errors only; --strict makes warnings count.
#pragma once

#include <cstdint>

namespace fp8kit::audit {

enum class Severity : std::uint8_t { Note, Warning, Error };

constexpr const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "?";
}

// Whether a finding of severity `s` makes the tool exit 1.
constexpr bool counts_as_finding(Severity s, bool strict) {
  return s == Severity::Error || (strict && s == Severity::Warning);
}

}  // namespace fp8kit::audit
