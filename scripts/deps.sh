#!/usr/bin/env bash
# Installs what fp8kit builds and tests with, from Debian and PyPI, when it is
# missing. Sourced by scripts/doctor and scripts/test. The CUDA toolkit (nvcc,
# 12.9 or newer; 13.0 used here) is expected on the machine already.
set -euo pipefail

FP8KIT_APT_PACKAGES=(cmake ninja-build g++ clang libgtest-dev libcli11-dev nlohmann-json3-dev
                     liblz4-dev libzstd-dev libfuzzer-14-dev libclang-rt-14-dev pkg-config)
# cuobjdump/nvdisasm cross-check the SASS self-check; the toolkit here lacks them.
FP8KIT_PIP_PACKAGES=(nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)

fp8kit_find_nvcc() {
  if command -v nvcc >/dev/null 2>&1; then return 0; fi
  for d in /usr/local/cuda/bin /usr/local/cuda-13*/bin; do
    if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; return 0; fi
  done
  echo "fp8kit: nvcc not found; install the CUDA toolkit (12.9 or newer) and put nvcc on PATH" >&2
  return 1
}

fp8kit_install_deps() {
  local missing=()
  for p in "${FP8KIT_APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "fp8kit: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  local py=python3
  if ! $py -c 'import importlib.util as u, sys; sys.exit(0 if u.find_spec("nvidia") else 1)' 2>/dev/null ||
     [ -z "$(fp8kit_pip_bin cuobjdump)" ]; then
    $py -m pip install -q "${FP8KIT_PIP_PACKAGES[@]}" 2>/dev/null ||
      echo "fp8kit: could not pip-install cuobjdump/nvdisasm; the SASS cross-check will be skipped" >&2
  fi
  # The Python package's CPU tests (tests/python) run under pytest.
  $py -c 'import pytest' 2>/dev/null || $py -m pip install -q pytest 2>/dev/null ||
    echo "fp8kit: could not pip-install pytest; the Python tests will be skipped" >&2
  local bin
  bin="$(fp8kit_pip_bin cuobjdump)"
  [ -n "$bin" ] && export PATH="$(dirname "$bin"):$PATH"
  fp8kit_find_nvcc
}

# Path of a binary shipped by an nvidia-* wheel, or nothing.
fp8kit_pip_bin() {
  python3 - "$1" <<'PY' 2>/dev/null || true
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for p in glob.glob(os.path.join(r, "nvidia", "*", "bin", sys.argv[1])):
        print(p)
        sys.exit(0)
PY
}

# Configures and builds into $FP8KIT_BUILD_DIR (default: build) for the
# default target set, or FP8KIT_CUDA_TARGETS if set (e.g. "90").
fp8kit_build() {
  local dir="${FP8KIT_BUILD_DIR:-build}"
  local args=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
  [ -n "${FP8KIT_CUDA_TARGETS:-}" ] && args+=("-DFP8KIT_CUDA_TARGETS=${FP8KIT_CUDA_TARGETS}")
  cmake -S . -B "$dir" "${args[@]}" "$@" >/dev/null
  cmake --build "$dir" -j "$(nproc)"
}
