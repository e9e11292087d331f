// Stage 0 of the audit: paths -> the files to read, each with the library it
// is reported under. Directories are walked recursively (directory symlinks
// are not followed; a file reached twice, by a link or a second path, is read
// once); a walked file whose first bytes are not ELF, ar or fatbin is skipped
// unread and counted.
//
// Library of a walked file, from its path relative to the walk's base
// (site-packages for --python): the first directory ("torch", "jax_plugins");
// under nvidia/ the second ("nvidia/cudnn"), or for CUDA 13 wheels, which
// share nvidia/cu13/, the file's stem ("nvidia/libcublasLt"); a file directly
// in the base is its own library.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "audit/report.hpp"

namespace fp8kit::audit {

struct WalkRoot {
  std::string path;  // a file or a directory
  std::string base;  // libraries are named relative to this; empty: path itself
};

struct Expanded {
  std::vector<InputFile> files;
  std::size_t skipped = 0;  // walked files of a kind audit does not read
  std::vector<InputError> errors;  // paths that do not exist or cannot be listed
};

Expanded expand_inputs(const std::vector<WalkRoot>& roots);

}  // namespace fp8kit::audit
