#!/bin/bash
# Steps of one device call for the sm90 harness (build: -DFP8KIT_BUILD_DEV=ON,
# target sm90_harness). Results under $OUT.
# Usage: dev/sm90/run_device.sh HARNESS SUITE step...   (steps: check quick memcheck racecheck synccheck
#        bench-MODE sweep-MODE, MODE = tensor|channel|block)
H=$1 SUITE=$2
shift 2
set -o pipefail
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee $OUT/gpu.txt
for s in "$@"; do
  case $s in
    check | quick) timeout 240 $H $s 2>&1 | tee $OUT/$s.txt | grep -E "FAIL|passed" ;;
    memcheck | racecheck | synccheck)
      timeout 150 compute-sanitizer --tool $s $H sanitize 2>&1 | tee $OUT/$s.txt | tail -3 ;;
    bench-* | sweep-*) timeout 200 $H ${s%%-*} ${s#*-} $SUITE 2>&1 | tee $OUT/$s.txt | tail -3 ;;
  esac
  echo "step $s rc=$?"
done
