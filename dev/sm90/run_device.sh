#!/bin/bash
# One device call: correctness, sanitizers, timing. Results under $OUT.
# Usage: dev/sm90/run_device.sh <harness> [steps...]  (steps: check sanitize race bench ncu)
H=$1; shift
set -o pipefail
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee $OUT/gpu.txt
for s in "$@"; do
  case $s in
    smoke) timeout 40 $H sanitize 2>&1 | tee /tmp/smoke.txt | tail -15; [ ${PIPESTATUS[0]} -eq 124 ] && { echo "smoke hung: stop"; exit 1; } ;;
    check) timeout 240 $H check 2>&1 | tee $OUT/check.txt | grep -E "FAIL|check:|REFUSED|error" ;;
    quick) timeout 120 $H quick 2>&1 | tee $OUT/quick.txt | grep -E "FAIL|check:|REFUSED|error" ;;
    sanitize) timeout 150 compute-sanitizer --tool memcheck $H sanitize 2>&1 | tee $OUT/memcheck.txt | tail -4 ;;
    race) timeout 150 compute-sanitizer --tool racecheck $H sanitize 2>&1 | tee $OUT/racecheck.txt | tail -4 ;;
    sync) timeout 150 compute-sanitizer --tool synccheck $H sanitize 2>&1 | tee $OUT/synccheck.txt | tail -4 ;;
    ncu) for sh in "tensor 8192 8192 8192" "block 8192 8192 8192"; do
           set -- $sh
           timeout 120 ncu --clock-control none -k regex:sm90_fp8 --launch-skip 3 --launch-count 1 \
             --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
             --section WarpStateStats --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" $H bench $1 - $2 $3 $4 > /tmp/ncu.txt 2>&1; echo "=== $sh" >> $OUT/ncu.txt; cat /tmp/ncu.txt >> $OUT/ncu.txt
           grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|DRAM Throughput|Memory Throughput" /tmp/ncu.txt | head -6
         done ;;
    bench) timeout 300 $H bench all $OUT/bench.csv 2>&1 | tee $OUT/bench.txt | grep -E "SUMMARY|FLOOR|error" ;;
    bench-*) timeout 200 $H bench ${s#bench-} $OUT/bench_${s#bench-}.csv 2>&1 | tee $OUT/bench_${s#bench-}.txt | grep -E "SUMMARY|FLOOR|error" ;;
  esac
  echo "step $s rc=$?"
done
