#!/bin/sh
# CTest Python.PipInstall: `pip install SOURCE_DIR` into a fresh virtual environment
# (GPU target 89 only, to stay within a few minutes), then `import fp8kit` from it
# (it must load the library bundled in the package) and `fp8kit --version`.
# Exit 77 (skipped) when no virtual environment can be made or PyPI is unreachable.
#   pip_install.sh SOURCE_DIR
set -u
src=$1
unset PYTHONPATH FP8KIT_LIBRARY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv" > /dev/null 2>&1 || { echo "skipped: python3 -m venv does not work here"; exit 77; }
py="$tmp/venv/bin/python"
"$py" -m pip download -q --no-deps -d "$tmp/wheels" "scikit-build-core>=0.10" > /dev/null 2>&1 ||
  { echo "skipped: PyPI is unreachable (scikit-build-core cannot be downloaded)"; exit 77; }
FP8KIT_CUDA_TARGETS=${FP8KIT_PIP_TEST_TARGETS:-89} \
  "$py" -m pip install --find-links "$tmp/wheels" "$src" > "$tmp/pip.log" 2>&1 ||
  { tail -n 60 "$tmp/pip.log"; echo "pip install failed"; exit 1; }
cd "$tmp" || exit 1
"$py" -c "
import os, fp8kit
lib = fp8kit.library_path()
assert os.path.dirname(lib) == os.path.dirname(fp8kit.__file__), lib
print('fp8kit', fp8kit.__version__, 'from', lib)
print(fp8kit.build_targets())
from importlib.metadata import entry_points
plugin = [e.value for e in entry_points(group='vllm.general_plugins') if e.name == 'fp8kit']
assert plugin == ['fp8kit.vllm:register'], plugin
" || exit 1
"$tmp/venv/bin/fp8kit" --version || exit 1
