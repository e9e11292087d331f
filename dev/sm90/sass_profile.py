#!/usr/bin/env python3
"""Per-kernel resource usage and SASS instruction-class counts of the sm90
object, to compare two builds of the kernel (a refactor must not move them).

  sass_profile.py OBJECT > profile.txt      ($CUOBJDUMP, cuobjdump on PATH, or the nvidia wheel's)
  diff before.txt after.txt

A kernel is named by its template arguments (tile index, X type, Y type), so
renamed types and argument structs still line up. An instruction class is
the opcode without its modifiers (QGMMA, LDS, BAR, ...)."""
import collections
import glob
import os
import shutil
import site
import re
import subprocess
import sys

# fp8kit::sm90::Tile in order (tile_config.hpp): the dense tiles, then the grouped ones.
TILES = ["128x128", "128x128,block", "128x64,swap", "128x64,swap,block", "256x128", "256x128,block", "128x192",
         "128x192,block", "grouped,128x128", "grouped,128x128,block", "grouped,128x64,swap",
         "grouped,128x64,swap,block", "grouped,128x16,swap"]
FP8 = {"0": "e4m3", "1": "e5m2"}
# _ZN...sm90_fp8_gemm_kernelILNS0_4TileE<t>EL12fp8kit_dtype<x>ELS3_<y>EE...
KERNEL = re.compile(r"sm90_fp8_gemm_kernelILN\w+?TileE(\d+)EL12fp8kit_dtype(\d)ELS\d_(\d)EE")


def kernel_label(mangled):
    m = KERNEL.search(mangled)
    if not m:
        return mangled
    return f"<{TILES[int(m.group(1))]},{FP8[m.group(2)]},{FP8[m.group(3)]}>"


def cuobjdump():
    tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if tool:
        return tool
    for root in site.getsitepackages() + [site.getusersitepackages()]:
        found = glob.glob(os.path.join(root, "nvidia", "*", "bin", "cuobjdump"))
        if found:
            return found[0]
    sys.exit("sass_profile.py: no cuobjdump (scripts/deps.sh installs it from pip)")


def run(args):
    tool = cuobjdump()
    return subprocess.run([tool] + args, check=True, capture_output=True, text=True).stdout


def main():
    obj = sys.argv[1]
    usage = {}
    current = None
    for line in run(["-res-usage", obj]).splitlines():
        m = re.match(r"\s*Function (\S+):", line)
        if m:
            current = kernel_label(m.group(1))
        elif current and "REG:" in line:
            fields = dict(f.split(":") for f in line.split())
            usage[current] = f"REG {fields['REG']} STACK {fields['STACK']} LOCAL {fields['LOCAL']}"
    classes = collections.defaultdict(collections.Counter)
    current = None
    for line in run(["-sass", obj]).splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            current = kernel_label(m.group(1))
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", line)
        if current and m:
            classes[current][m.group(1)] += 1
    for k in sorted(set(usage) | set(classes)):
        counts = classes[k]
        print(f"{k} {usage.get(k, '?')} instructions {sum(counts.values())}")
        print("  " + " ".join(f"{op}:{n}" for op, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
