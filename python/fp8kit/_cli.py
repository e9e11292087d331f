"""The `fp8kit` console command of a pip-installed fp8kit: runs the CLI binary
installed inside this package (bin/fp8kit, statically linked)."""

import os
import sys
from pathlib import Path


def binary_path():
    return Path(__file__).resolve().parent / "bin" / "fp8kit"


def main():
    exe = binary_path()
    if not exe.exists():
        sys.stderr.write(f"fp8kit: the command-line tool is not installed ({exe} is missing); "
                         "this fp8kit was installed without it\n")
        return 2
    os.execv(str(exe), [str(exe)] + sys.argv[1:])
    return 0
