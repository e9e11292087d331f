#!/bin/sh
# Runs on a GPU machine, from a directory holding `fp8kit`, the planted
# programs in bin/ and the coredump GPU test: the seed's story under
# `fp8kit run`, the other planted faults, and cuda-gdb on the same dumps.
# Usage: device_run.sh OUT
set -u
out=$1
keep=$(mktemp -d)
gdb=$(command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)
./fp8kit run --keep-core "$keep/seed" -- ./bin/seed >"$out/run_seed.txt" 2>&1
echo "exit $?" >>"$out/run_seed.txt"
./fp8kit run --keep-core "$keep/oob" -- ./bin/oob_store >"$out/run_oob.txt" 2>&1
echo "exit $?" >>"$out/run_oob.txt"
{
  ./fp8kit run --exit-code explain -- ./bin/device_assert 2>&1 | grep -v "Assertion .* failed"
  echo "exit $?"
  ./fp8kit run --json -- ./bin/misaligned 2>&1
  echo "exit $?"
  echo "== timing: seed alone, then under fp8kit run"
  for cmd in "./bin/seed" "./fp8kit run -- ./bin/seed"; do
    t0=$(date +%s.%N); $cmd >/dev/null 2>&1; t1=$(date +%s.%N)
    echo "$cmd: $(awk "BEGIN{print $t1 - $t0}") s"
  done
  FP8KIT_TEST_CLI=$PWD/fp8kit FP8KIT_TEST_PLANTED=$PWD/bin ./fp8kit_coredump_gpu_tests 2>&1 | tail -5
} >"$out/run_others.txt" 2>&1
for d in seed oob; do
  for f in "$keep/$d"/*; do
    [ -f "$f" ] || continue
    xz -9 -c "$f" >"$out/$d.nvcudmp.xz"
    echo "== $d" >>"$out/cuda-gdb.txt"
    timeout 60 "$gdb" -batch -ex "target cudacore $f" -ex 'info cuda kernels' -ex 'bt' -ex 'x/6i $pc-0x20' \
      >>"$out/cuda-gdb.txt" 2>&1
  done
done
