#!/bin/bash
# The audit's checks on the lent GPU machine (docs/audit.md "On real binaries"),
# from a directory holding fp8kit, audit_extract and the dev/audit_*.py
# scripts: whole site-packages timed (cold, then warm), PyTorch / cuDNN /
# cuBLAS / NCCL for 9.0 and 12.1, and cuobjdump on samples of every class.
# Usage: audit_device_run.sh OUT
set -u
out=$1
here=$(cd "$(dirname "$0")" && pwd)
fp=$here/fp8kit
ldd "$fp" | grep -q 'not found' && export LD_LIBRARY_PATH=$here/lib
site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cuobj=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump "$site"/nvidia/cu*/bin/cuobjdump 2>/dev/null | head -1)
torch=$(python3 -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("torch").origin))')
timed() { python3 "$here/audit_timed.py" "$@" | tee -a "$out/times.txt"; }
{
  echo "site=$site torch=$torch cpus=$(nproc)"
  du -sh "$site" 2>/dev/null
  ls "$site" | tr '\n' ' '; echo
  ls "$site/nvidia" 2>/dev/null | tr '\n' ' '; echo
  ls -la "$torch/lib" | grep -E 'libtorch_cuda|libc10_cuda'
  "$cuobj" --version | tail -2
} >"$out/env.txt" 2>&1
timed "python cold" /tmp/py.json timeout 60 "$fp" audit --python --json
libs() { find "$site/nvidia" -maxdepth 4 -name "lib$1*.so*" \( -type f -o -type l \) 2>/dev/null | sort; }
timed "libtorch_cuda 9.0 12.1" /tmp/torch.json "$fp" audit "$torch/lib/libtorch_cuda.so" --gpu 9.0 --gpu 12.1 --json
"$fp" audit "$torch/lib/libtorch_cuda.so" --gpu 9.0 --gpu 12.1 2>&1 | head -c 100000 >"$out/torch.txt"
: >"$out/libs.txt"
for l in cudnn cublasLt nccl; do
  files=$(libs $l)
  echo "== $l: $files" >>"$out/libs.txt"
  timed "$l 9.0 12.1" /tmp/$l.json "$fp" audit $files --gpu 9.0 --gpu 12.1 --json
  "$fp" audit $files --gpu 9.0 --gpu 12.1 2>&1 | head -c 60000 >>"$out/libs.txt"
done
"$fp" audit "$torch/lib/libtorch_cuda.so" --gpu 9.0 --all --kernel 'flash_fwd|flash_bwd' --json >/tmp/flash.json
timeout 100 python3 "$here/audit_check.py" "$out/check.json" "$here/audit_extract" "$cuobj" \
  torch=/tmp/torch.json cudnn=/tmp/cudnn.json cublasLt=/tmp/cublasLt.json nccl=/tmp/nccl.json \
  real:flash=/tmp/flash.json sum:python=/tmp/py.json
echo "check rc=$?" >>"$out/times.txt"
timed "python warm (text)" /tmp/py.txt "$fp" audit --python
head -c 150000 /tmp/py.txt >"$out/python.txt"
