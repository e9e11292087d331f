#!/usr/bin/env bash
# Runs fp8kit_bench (arguments passed through) from the repository root. If the
# loader knows no libcublasLt.so.13, it looks for one in the CUDA toolkit and
# in Python's nvidia-* wheels (PyTorch's nvidia-cublas) and puts it on
# LD_LIBRARY_PATH first. FP8KIT_BENCH overrides the binary's path.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=${FP8KIT_BENCH:-$root/build-bench/bench/fp8kit_bench}
if ! ldconfig -p 2>/dev/null | grep -q 'libcublasLt\.so\.13 '; then
  dirs="/usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib"
  if command -v python3 >/dev/null; then
    dirs="$dirs $(python3 -c 'import glob, os, site
print(" ".join(sorted({os.path.dirname(p) for d in site.getsitepackages()
                        for p in glob.glob(d + "/nvidia/**/libcublasLt.so.13", recursive=True)})))' 2>/dev/null || true)"
  fi
  for d in $dirs; do
    if [ -e "$d/libcublasLt.so.13" ]; then
      export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      break
    fi
  done
fi
cd "$root"
exec "$bench" "$@"
