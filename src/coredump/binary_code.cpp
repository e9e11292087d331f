#include "coredump/binary_code.hpp"

#include "audit/cubin.hpp"
#include "audit/discover.hpp"
#include "audit/fatbin.hpp"
#include "audit/mapped_file.hpp"

namespace fp8kit::coredump {

namespace {

constexpr std::size_t kMaxImageBytes = std::size_t{1} << 30;

std::optional<std::vector<std::uint8_t>> in_cubin(audit::Bytes cubin, const std::string& kernel, int arch,
                                                  arch::Variant variant) {
  const audit::Cubin c = audit::parse_cubin(cubin);
  if (c.arch != arch || (c.variant_from_note && c.variant != variant)) return std::nullopt;
  for (const audit::CubinKernel& k : c.kernels)
    if (k.name == kernel) return std::vector<std::uint8_t>(k.text.data, k.text.data + k.text.size);
  return std::nullopt;
}

}  // namespace

std::optional<BinaryCode> kernel_code(const std::vector<std::string>& binaries, const std::string& kernel, int arch,
                                      arch::Variant variant) {
  for (const std::string& path : binaries) {
    try {
      const audit::MappedFile file(path);
      std::vector<audit::Job> jobs;
      std::vector<audit::InputError> errors;
      audit::discover(file.bytes(), path, 0, audit::AuditOptions{}, jobs, errors);
      for (const audit::Job& job : jobs) {
        if (job.is_cubin) {
          if (auto text = in_cubin(job.bytes, kernel, arch, variant)) return BinaryCode{std::move(*text), job.where};
          continue;
        }
        const audit::FatbinContainer c = audit::parse_fatbin(job.bytes, 0);
        for (const audit::FatbinEntry& e : c.entries) {
          if (e.kind != audit::EntryKind::Elf || static_cast<int>(e.arch) != arch || e.variant != variant) continue;
          std::vector<std::uint8_t> storage;
          if (auto text = in_cubin(audit::entry_image(e, storage, kMaxImageBytes), kernel, arch, variant))
            return BinaryCode{std::move(*text), job.where};
        }
      }
    } catch (const audit::FormatError&) {
      continue;  // not a binary explain can read: the notes of check_siblings say so
    }
  }
  return std::nullopt;
}

}  // namespace fp8kit::coredump
