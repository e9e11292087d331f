#!/usr/bin/env python3
"""Fits the Hopper NVFP4 prefill plan's costs (src/gemm/nvfp4/nvfp4_sm90_config.hpp,
choose_plan: kDecodeTokens, kFixedBlocks, kRankTokens) to a forced sweep, and
replays the plan's choice over the sweep's own times.

    fit_prefill_plan.py DIR [--sms 132] [--waves 132,132,117,124,115,114,112,120]
                            [--costs DECODE,FIXED,RANK]

DIR holds `fp8kit_nvfp4_bench --json` files named t{128,256}_s{S}.json, each a
run with FP8KIT_NVFP4_SM90_TOKENS and FP8KIT_NVFP4_SM90_SPLIT forced; the
W4A16 rows are the data. Model (choose_plan): time = c x (waves of clusters x
(a CTA's K blocks + FIXED) x (tokens + DECODE) + (S - 1) x tokens x RANK),
c fitted per candidate in closed form; least squares on log time over every
(shape, tile, split); a grid search. `--waves`: CTAs resident at once in
clusters of 1 .. 8 (the device's answers; the default is an H200's halved
decode answers, one CTA per SM). Replay: per shape, the plan the costs pick
against the fastest measured, as the geomean of their time ratios.
"""
import argparse
import glob
import json
import math
import os
import re

BLOCK_W = 128
BLOCK_K = 64


def ceil_div(a, b):
    return -(-a // b)


def load(directory):
    times = {}  # (m, n, k) -> {(tokens, splits): us}
    for path in glob.glob(os.path.join(directory, "t*_s*.json")):
        g = re.match(r"t(\d+)_s(\d+)\.json$", os.path.basename(path))
        if not g:
            continue
        plan = (int(g.group(1)), int(g.group(2)))
        with open(path) as f:
            rows = json.load(f)["rows"]
        for r in rows:
            if r.get("contender") != "nvfp4_w4a16" or r.get("path") != "sm90_wgmma":
                continue
            m, n, k = (int(x) for x in r["shape"].split("x"))
            times.setdefault((m, n, k), {})[plan] = r["us"]
    return times


def units(shape, plan, waves, decode, fixed, rank):
    m, n, k = shape
    tokens, s = plan
    tiles = ceil_div(n, BLOCK_W) * ceil_div(m, tokens)
    nkb = ceil_div(k, BLOCK_K)
    per = ceil_div(nkb, s)
    return ceil_div(tiles * s, waves[s]) * (per + fixed) * (tokens + decode) + (s - 1) * tokens * rank


def valid(shape, plan, waves):
    _, _, k = shape
    _, s = plan
    nkb = ceil_div(k, BLOCK_K)
    per = ceil_div(nkb, s)
    return waves[s] > 0 and (s == 1 or (s - 1) * per < nkb)


def log_fit(pts):
    """(log time, log model units) pairs -> (mean squared log error, time per
    unit), the scale fitted in closed form."""
    log_c = sum(t - u for t, u in pts) / len(pts)
    return sum((t - u - log_c) ** 2 for t, u in pts) / len(pts), math.exp(log_c)


def fit_error(times, waves, costs):
    return log_fit([(math.log(us), math.log(units(sh, p, waves, *costs)))
                    for sh, by in times.items() for p, us in by.items() if valid(sh, p, waves)])


def choose(shape, waves, costs, plans):
    best, best_cost = None, None
    for p in plans:  # 256 before 128, smaller splits first: ties keep them, as choose_plan
        if not valid(shape, p, waves):
            continue
        c = units(shape, p, waves, *costs)
        if best_cost is None or c < best_cost:
            best, best_cost = p, c
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--waves", default="132,132,117,124,115,114,112,120")
    ap.add_argument("--costs", help="DECODE,FIXED,RANK to replay instead of fitting")
    args = ap.parse_args()
    waves = [0] + [int(x) for x in args.waves.split(",")]
    times = load(args.dir)
    if args.costs:
        costs = tuple(float(x) for x in args.costs.split(","))
    else:
        grid = [(d, f, r) for d in range(0, 801, 20) for f in range(0, 41, 2) for r in (0, 2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48)]
        costs = min(grid, key=lambda c: fit_error(times, waves, c)[0])
    err, c = fit_error(times, waves, costs)
    print(f"costs DECODE={costs[0]:g} FIXED={costs[1]:g} RANK={costs[2]:g}: rms log error {math.sqrt(err):.3f}, "
          f"{c * 1e3:.3f} ns per unit")
    plans = sorted({p for by in times.values() for p in by}, key=lambda p: (-p[0], p[1]))
    ratios = []
    for sh in sorted(times):
        by = times[sh]
        fastest = min(by, key=by.get)
        pick = choose(sh, waves, costs, [p for p in plans if p in by])
        ratios.append(by[pick] / by[fastest])
        print(f"{'x'.join(map(str, sh)):>18}  plan {pick[0]:>3}/{pick[1]} {by[pick]:8.1f} us   "
              f"fastest {fastest[0]:>3}/{fastest[1]} {by[fastest]:8.1f} us   {by[pick] / by[fastest]:.3f}")
    print(f"replay: plan / fastest geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.4f}, "
          f"worst {max(ratios):.3f}")


if __name__ == "__main__":
    main()
