#!/usr/bin/env python3
"""Reads an A/B of bench binaries (dev/ab_rotate.sh: DIR/LABEL_ROUND.json) and
prints, per shape and contender, each label's median time over its rounds,
its spread, and its ratio to the first label's (time, < 1 faster).

Usage: dev/ab_compare.py [--field NAME] DIR [LABEL...]   (default: every label, sorted)
  --field: the row's time to compare (default us; graph_us_per_gemm: the
  decode rows' time per GEMM in a graph of distinct layers)
"""
import collections
import json
import pathlib
import re
import statistics
import sys


def load(directory, field):
    times = collections.defaultdict(lambda: collections.defaultdict(list))  # (shape, contender) -> label -> [us]
    for f in sorted(pathlib.Path(directory).glob("*_*.json")):
        m = re.fullmatch(r"(.+)_(\d+)\.json", f.name)
        if not m:
            continue
        try:
            rows = json.loads(f.read_text())["rows"]
        except (ValueError, KeyError):
            continue  # a run cut short by its limit
        for row in rows:
            if row.get(field):
                times[(row["shape"], row["contender"])][m.group(1)].append(row[field])
    return times


def main(argv):
    field = "us"
    if len(argv) > 2 and argv[1] == "--field":
        field, argv = argv[2], argv[:1] + argv[3:]
    if len(argv) < 2:
        sys.exit(__doc__)
    times = load(argv[1], field)
    labels = argv[2:] or sorted({label for per in times.values() for label in per})
    base = labels[0]
    width = 25
    print(f"{'shape':<20} {'contender':<16}" + "".join(f" {label + ' us':>{width}}" for label in labels)
          + "".join(f" {label + '/' + base:>12}" for label in labels[1:]))
    logs = collections.defaultdict(list)
    for (shape, contender), per in sorted(times.items()):
        med = {label: statistics.median(per[label]) for label in labels if per.get(label)}
        cells = "".join(" " + (f"{med[l]:.1f} ({min(per[l]):.1f}-{max(per[l]):.1f})" if l in med else "-").rjust(width)
                        for l in labels)
        ratios = ""
        for label in labels[1:]:
            if label in med and base in med:
                ratio = med[label] / med[base]
                logs[(label, contender)].append(ratio)
                ratios += f" {ratio:>12.3f}"
            else:
                ratios += f" {'-':>12}"
        print(f"{shape:<20} {contender:<16}{cells}{ratios}")
    for (label, contender), rs in sorted(logs.items()):
        print(f"geomean {label}/{base} {contender}: {statistics.geometric_mean(rs):.3f} over {len(rs)} shapes")


if __name__ == "__main__":
    main(sys.argv)
