// Static archives (ar, GNU and BSD names): the members, in order.
#pragma once

#include <string>
#include <vector>

#include "audit/bytes.hpp"

namespace fp8kit::audit {

struct ArchiveMember {
  std::string name;
  Bytes bytes;
};

bool is_archive(Bytes b);
// Throws FormatError on a malformed header or a member running past the end.
std::vector<ArchiveMember> archive_members(Bytes b);

}  // namespace fp8kit::audit
