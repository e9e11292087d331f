#!/bin/sh
# CTest Vllm.Plugin: tests/vllm (pytest) in the pinned vLLM environment of
# scripts/vllm-env (made once, minutes; reused after). fp8kit is not installed into that
# environment: its sources and a dist-info generated from pyproject.toml (the entry point
# vLLM's plugin loader looks for) go on PYTHONPATH, so every clone shares one environment.
# Without an NVIDIA driver, the CUDA toolkit's stub libcuda lets vLLM's native op library
# load (its ops are registered; none runs). Exit 77 (skipped) when the environment cannot
# be made because PyPI is unreachable, or no stub libcuda is found.
#   run.sh SOURCE_DIR BINARY_DIR [pytest arguments]
set -u
src=$1
bin=$2
shift 2
py=$("$src/scripts/vllm-env")
rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -ne 0 ] && { echo "scripts/vllm-env failed ($rc)"; exit 1; }
overlay="$bin/vllm-overlay"
"$py" "$src/tests/vllm/dist_info.py" "$src" "$overlay" || exit 1
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  root=$(dirname "$(dirname "$nvcc")")
  stub=""
  for s in "$root/lib64/stubs/libcuda.so" "$root"/targets/*/lib/stubs/libcuda.so; do
    [ -f "$s" ] && { stub=$s; break; }
  done
  [ -n "$stub" ] || { echo "skipped: no NVIDIA driver and no stub libcuda.so under $root"; exit 77; }
  mkdir -p "$bin/vllm-stub"
  ln -sf "$stub" "$bin/vllm-stub/libcuda.so.1"
  LD_LIBRARY_PATH="$bin/vllm-stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi
PYTHONPATH="$src/python:$overlay" HF_HUB_OFFLINE=1 VLLM_NO_USAGE_STATS=1 \
  exec "$py" -m pytest -q -p no:cacheprovider "$@" "$src/tests/vllm"
