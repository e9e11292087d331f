#!/usr/bin/env python3
"""Per-kernel resource usage and SASS instruction-class counts of the sm90
object, to compare two builds of the kernel (a refactor must not move them).

  sass_profile.py OBJECT > profile.txt      ($CUOBJDUMP, cuobjdump on PATH, or the nvidia wheel's)
  diff before.txt after.txt

A kernel is named by its template arguments (shape name from the tile table,
problem kind, X type, Y type), so renamed types and argument structs still
line up. An instruction class is
the opcode without its modifiers (QGMMA, LDS, BAR, ...)."""
import collections
import glob
import os
import shutil
import site
import re
import subprocess
import sys

FP8 = {"0": "e4m3", "1": "e5m2"}
# _ZN...sm90_fp8_gemm_kernelINS0_10TileConfigILNS0_5ShapeE<s>ELNS0_4KindE<k>EEEL12fp8kit_dtype<x>ELS6_<y>EE...
KERNEL = re.compile(r"sm90_fp8_gemm_kernelI\w+?ShapeE(\d+)E\w+?KindE(\d)EEEL12fp8kit_dtype(\d)ELS\d_(\d)EE")
TILE_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "gemm", "sm90", "tile_config.hpp")


def shape_names():
    """The shapes' names in Shape order, from the tile table (tile_config.hpp's kShapes)."""
    text = open(TILE_TABLE).read()
    return re.findall(r'\{Shape::k\w+,\s*"([^"]+)"', text)


SHAPES = shape_names()


def kernel_label(mangled):
    """<shape,x,y> for a dense kernel, <grouped,shape,x,y> for a grouped one."""
    m = KERNEL.search(mangled)
    if not m:
        return mangled
    kind = "grouped," if m.group(2) == "1" else ""
    return f"<{kind}{SHAPES[int(m.group(1))]},{FP8[m.group(3)]},{FP8[m.group(4)]}>"


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
