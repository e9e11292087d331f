#!/usr/bin/env python3
"""Fits the Hopper plan's tile costs (src/gemm/sm90/plan.hpp, TileCosts) to a
sweep of `sm90_harness sweep MODE SUITE [--accumulate fast]`, and replays the
plan's choice over the sweep's own times.

    fit_tile_costs.py SWEEP.txt [--sms 132] [--fit 128x256] [--costs TILE=BLOCK,OVERHEAD ...]
    fit_tile_costs.py SWEEP.txt --block-scales [--fit 128x160] [--costs TILE=WAVE ...]

Model (plan.hpp): a tile's makespan is waves x (K blocks x block + overhead)
in times of one 128 x 128 K block; 128 x 128 is fixed at 1.0 / 4.0. The fit
is least squares on log(time of the tile / time of 128 x 128) over the
shapes whose 128 x 128 grid is full (>= one wave), unsplit plans only; a
grid search, coarse enough to be stable (0.01 on the block cost, 0.5 on the
overhead). With --block-scales the model is the block plan's: waves x one
cost per wave (WaveCostBlockScales), 128 x 128 at 1.0. Replay: per shape, the tile the costs pick against the fastest
measured, as the geomean of their time ratios.
"""
import argparse
import math
import re
import sys

LINE = re.compile(r"^\S+\s*(?:,fast)?\s+(\d+)\s+(\d+)\s+(\d+)\s+sm90_fp8_gemm<(\d+)x(\d+)[^>]*>\s+splits\s+(\d+)"
                  r"(?: cluster)?\s+units\s+\d+\s+([\d.]+) us")
BLOCK_K = 128


def ceil_div(a, b):
    return -(-a // b)


def load(path):
    times = {}  # (m, n, k) -> {tile: us}
    with open(path) as f:
        for line in f:
            g = LINE.match(line)
            if not g or int(g.group(6)) != 1:
                continue
            m, n, k, bm, bn = (int(g.group(i)) for i in range(1, 6))
            times.setdefault((m, n, k), {})[f"{bm}x{bn}"] = float(g.group(7))
    return times


def cost(tile, c, m, n, k, sms):
    bm, bn = (int(x) for x in tile.split("x"))
    waves = ceil_div(ceil_div(m, bm) * ceil_div(n, bn), sms)
    if len(c) == 1:  # block scales: a cost per wave
        return waves * c[0]
    return waves * (ceil_div(k, BLOCK_K) * c[0] + c[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sweep")
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--fit", default="128x256", help="the tile whose costs are fitted")
    ap.add_argument("--costs", nargs="*", help="the other tiles' costs (plan.hpp; defaults: FAST, or block scales)")
    ap.add_argument("--replay", nargs="*", default=[], help="more costs of the fitted tile to replay (plan.hpp's)")
    ap.add_argument("--block-scales", action="store_true", help="the block plan's model: a cost per wave")
    a = ap.parse_args()
    if a.costs is None:
        a.costs = (["128x128=1.0", "256x128=1.8", "128x192=1.55"] if a.block_scales
                   else ["128x128=1.0,4.0", "256x128=1.98,5.5", "128x192=1.43,5.0"])
    costs = {t: tuple(float(x) for x in v.split(",")) for t, v in (c.split("=") for c in a.costs)}
    times = {s: t for s, t in load(a.sweep).items()
             if "128x128" in t and a.fit in t and ceil_div(s[0], 128) * ceil_div(s[1], 128) >= a.sms}
    if not times:
        sys.exit("no full-grid shape with both 128x128 and " + a.fit)

    def err(c):
        return sum((math.log(t[a.fit] / t["128x128"]) -
                    math.log(cost(a.fit, c, *s, a.sms) / cost("128x128", costs["128x128"], *s, a.sms))) ** 2
                   for s, t in times.items())

    grid = ([(b / 100,) for b in range(100, 300)] if a.block_scales
            else [(b / 100, o / 2) for b in range(100, 300) for o in range(0, 25)])
    best = min(grid, key=err)
    print(f"{len(times)} full-grid shapes; {a.fit} fitted: " + ", ".join(f"{x:.2f}" for x in best) +
          f" (rms log error {math.sqrt(err(best) / len(times)):.3f})")
    geo = {t: math.exp(sum(math.log(v[t] / v["128x128"]) for v in times.values()) / len(times))
           for t in costs | {a.fit: best} if all(t in v for v in times.values())}
    print("geomean time of each tile / 128x128:", ", ".join(f"{t} {g:.3f}" for t, g in geo.items()))
    tables = [("without " + a.fit, costs), ("with it", costs | {a.fit: best})]
    tables += [(f"with it at {c}", costs | {a.fit: tuple(float(x) for x in c.split(","))}) for c in a.replay]
    for label, table in tables:
        logs = []
        for s, t in times.items():
            cand = [x for x in table if x in t]
            pick = min(cand, key=lambda x: cost(x, table[x], *s, a.sms))
            logs.append(math.log(t[pick] / min(t.values())))
        print(f"replay {label}: the pick's time / the fastest tile's, geomean {math.exp(sum(logs) / len(logs)):.4f}, "
              f"worst {math.exp(max(logs)):.3f}")


if __name__ == "__main__":
    main()
