#!/bin/sh
# Runs on a GPU machine: each planted program in BIN with the driver's core
# dump variables, then compresses the dumps (zstd -19) into OUT and keeps
# cuda-gdb's view of each for comparison. Usage: make_dumps.sh BIN OUT
set -u
bin=$1
out=$2
tmp=$(mktemp -d)
log=$out/make_dumps.log
{
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
  echo "== seed without core dumps"
  "$bin/seed"; echo "exit $?"
  for p in seed oob_store misaligned device_assert; do
    echo "== $p with core dumps"
    CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_ENABLE_LIGHTWEIGHT_COREDUMP=1 \
      CUDA_COREDUMP_FILE="$tmp/$p.%p.nvcudmp" "$bin/$p"
    echo "exit $?"
  done
  echo "== seed with skip_abort"
  CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 \
    CUDA_COREDUMP_GENERATION_FLAGS=skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_local_memory,skip_constbank_memory,skip_abort \
    CUDA_COREDUMP_FILE="$tmp/seed_noabort.%p.nvcudmp" "$bin/seed"
  echo "exit $?"
  ls -la "$tmp"
} >"$log" 2>&1
gdb=$(command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)
for f in "$tmp"/*.nvcudmp; do
  name=$(basename "$f" | sed 's/\.[0-9]*\.nvcudmp$//')
  if command -v zstd >/dev/null; then zstd -q -19 -T0 "$f" -o "$out/$name.nvcudmp.zst"; else xz -9 -c "$f" >"$out/$name.nvcudmp.xz"; fi
  echo "== $name" >>"$out/cuda-gdb.txt"
  timeout 60 "$gdb" -batch -ex "target cudacore $f" -ex 'info cuda kernels' -ex 'bt' -ex 'x/4i $pc' \
    -ex 'info cuda warps' >>"$out/cuda-gdb.txt" 2>&1
done
ls -la "$out" >>"$log"
