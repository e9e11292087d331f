#!/bin/bash
# Builds the sm90 path object and the standalone harness into build-sm90/harness
# (the CMake build dir must be configured first, for fp8kit_build_config.hpp).
set -e
cd "$(dirname "$0")/../.."
B=build-sm90/harness
mkdir -p $B
FLAGS="-std=c++17 -gencode=arch=compute_90a,code=sm_90a -O3 --expt-relaxed-constexpr -lineinfo -Iinclude -Isrc -Ibuild-sm90/generated"
nvcc $FLAGS -Xptxas -v,-warn-spills -c src/gemm/sm90_fp8_gemm.cu -o $B/sm90_fp8_gemm.o 2> $B/ptxas.txt
nvcc $FLAGS -cudart static -o $B/sm90_harness dev/sm90/sm90_harness.cu $B/sm90_fp8_gemm.o
grep -E "registers|spill" $B/ptxas.txt | sort | uniq -c
grep -iE "warning|error" $B/ptxas.txt | grep -v deprecat | head -5 || true
