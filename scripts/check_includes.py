#!/usr/bin/env python3
"""Checks that every #include "..." of fp8kit's sources follows the folder map
of docs/design.md: a file may include its own folder, the public header, the
generated build configuration and the folders its row names. Prints each
include against the arrows and exits 1 if there is any."""
import pathlib
import re
import sys

# Folder -> the folders (or single headers) its files may include. Keep in
# step with the table "Map" of docs/design.md.
ALLOWED = {
    "src/arch": [],
    "src/core": ["arch"],
    "src/gemm": ["core", "arch"],
    "src/quant": ["core", "arch"],
    "src/api": ["gemm", "quant", "core", "arch"],
    "src/reference": ["core"],
    "src/audit": ["arch", "core/text.hpp", "core/math.hpp"],
    "src/coredump": ["audit", "arch", "core/text.hpp", "core/math.hpp"],
    "src/tools": ["core"],
    "programs": ["tools", "reference", "audit", "coredump", "core", "arch", "api/kernel_catalog.hpp"],
    "bench": ["tools", "reference", "core"],
}
ALWAYS = ("fp8kit/fp8kit.h", "fp8kit_build_config.hpp")
SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".in"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def owner(path: pathlib.Path, root: pathlib.Path):
    rel = path.relative_to(root).as_posix()
    for folder in sorted(ALLOWED, key=len, reverse=True):
        if rel.startswith(folder + "/"):
            return folder
    return None


def allowed(folder: str, path: pathlib.Path, root: pathlib.Path, target: str) -> bool:
    if target in ALWAYS or (path.parent / target).exists():
        return True  # the public header, the generated config, a sibling file
    top = folder.split("/")[-1]
    if target.startswith(top + "/"):
        return True  # its own folder, spelled from src/
    return any(target == a or target.startswith(a + "/") for a in ALLOWED[folder])


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    bad = []
    paths = {p for folder in ALLOWED for p in (root / folder).glob("**/*")}
    for path in sorted(paths):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
            continue
        folder = owner(path, root)
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            if not allowed(folder, path, root, target):
                bad.append(f"{path.relative_to(root)}: includes {target}, against the map ({folder} -> "
                           f"{', '.join(ALLOWED[folder]) or 'nothing'})")
    print("\n".join(bad) if bad else "includes follow the map of docs/design.md")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
