#!/bin/sh
# Builds the planted programs into DIR (default: ./bin). They made the dumps
# in ../fixtures on the lent H200 (docs/explain.md says how); the seed has
# two images, sm_80 (real code) and sm_90 (the trap stub an H200 loads).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/bin}
mkdir -p "$out"
nvcc=${NVCC:-nvcc}
sm90="-gencode=arch=compute_90,code=sm_90"
$nvcc -O2 -cudart static -gencode=arch=compute_80,code=sm_80 $sm90 -DSEED_GUARD=800 \
  -o "$out/seed" "$here/seed.cu"
for p in oob_store misaligned device_assert real_fault; do
  $nvcc -O2 -cudart static $sm90 -o "$out/$p" "$here/$p.cu"
done
