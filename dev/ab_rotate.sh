#!/usr/bin/env bash
# An A/B of bench binaries on the device, in rotating order, inside a time
# limit: round r runs the labels starting at label r mod n, so no binary is
# always first (clocks drift within a call). Each run gets what is left
# minus the reserve the caller keeps for its later steps; a run that would
# not fit is skipped, and the results are always written.
#
# Usage: LIMIT=seconds RESERVE=seconds [FIRST=n] dev/ab_rotate.sh CARRY ROUNDS LABEL... -- BENCH_ARGS...
#   CARRY/LABEL/bench.xz: the xz-compressed bench binary of each label.
#   FIRST: the first round's number (a second call goes on where one stopped).
#   Writes $OUT/ab/LABEL_ROUND.{json,txt} and $OUT/ab/gpu.txt (clocks before
#   and after); dev/ab_compare.py reads them.
set -u
LIMIT=${LIMIT:-300}
RESERVE=${RESERVE:-0}
FIRST=${FIRST:-1}
T0=$SECONDS
carry=$1 rounds=$2
shift 2
labels=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do labels+=("$1"); shift; done
[ $# -gt 0 ] && shift
R=$OUT/ab
mkdir -p $R
left() { echo $((LIMIT - RESERVE - (SECONDS - T0))); }
smi() { nvidia-smi --query-gpu=name,clocks.current.sm,clocks.current.memory,power.draw,temperature.gpu "$@"; }
bin=$(mktemp -d)
for l in "${labels[@]}"; do xz -dc "$carry/$l/bench.xz" > "$bin/$l" && chmod +x "$bin/$l"; done
smi --format=csv >> $R/gpu.txt
n=${#labels[@]}
for ((r = FIRST; r < FIRST + rounds; ++r)); do
  for ((j = 0; j < n; ++j)); do
    l=${labels[$(((r - 1 + j) % n))]}
    [ "$(left)" -lt 20 ] && break 2
    timeout "$(left)" "$bin/$l" "$@" --json "$R/${l}_$r.json" > "$R/${l}_$r.txt" 2>&1
    echo "rc $? at $((SECONDS - T0)) s" >> "$R/${l}_$r.txt"
  done
done
smi --format=csv,noheader >> $R/gpu.txt
rm -rf "$bin"
