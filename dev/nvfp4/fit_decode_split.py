#!/usr/bin/env python3
"""Fits the Hopper NVFP4 decode kernel's K-split rule
(src/gemm/nvfp4/nvfp4_sm90_decode_config.hpp, choose_decode_split:
kDecodeFixedBlocks, kDecodeRankBlocks) to a forced sweep, and replays the
rule's choice over the sweep's own times.

    fit_decode_split.py DIR [--waves 264,264,237,248,235,234,224,240]
                            [--costs FIXED,RANK] [--field graph_us_per_gemm]
                            [--contender nvfp4_w4a16]

DIR holds `fp8kit_nvfp4_bench --no-grouped --json` files named split_{S}.json,
each a run with FP8KIT_NVFP4_SM90_SPLIT=S (on the device:
    for S in 1 2 3 4 5 6 7 8; do FP8KIT_PDL=1 FP8KIT_NVFP4_SM90_SPLIT=$S \
      fp8kit_nvfp4_bench --no-grouped --shapes 16x4096x4096,... --json DIR/split_$S.json; done
); the contender's rows (W4A16 by default) on sm90_wgmma are
the data (graph time per GEMM by default: decode as servers run it). Model
(choose_decode_split): time = c x (waves of clusters x (a CTA's K blocks +
FIXED) + (S - 1) x RANK), c fitted per candidate in closed form; least
squares on log time over every (shape, split); a grid search in quarter
blocks. `--waves`: CTAs resident at once in clusters of 1 .. 8 (the device's
answers, cudaOccupancyMaxActiveClusters x S; the default is the H200's, as
docs/perf/log/2026-12-04-nvfp4-decode-profile.md lists them). Replay: per
shape, the split the costs pick against the fastest measured, as the geomean
of their time ratios.
"""
import argparse
import glob
import json
import math
import os
import re

from fit_prefill_plan import BLOCK_K, BLOCK_W, ceil_div, log_fit


def load(directory, field, contender):
    times = {}  # (m, n, k) -> {S: us}
    for path in glob.glob(os.path.join(directory, "split_*.json")):
        g = re.match(r"split_(\d+)\.json$", os.path.basename(path))
        if not g:
            continue
        with open(path) as f:
            rows = json.load(f)["rows"]
        for r in rows:
            if r.get("contender") != contender or r.get("path") != "sm90_wgmma" or not r.get(field):
                continue
            m, n, k = (int(x) for x in r["shape"].split("x"))
            times.setdefault((m, n, k), {})[int(g.group(1))] = r[field]
    return times


def valid(shape, s, waves):
    nkb = ceil_div(shape[2], BLOCK_K)
    return waves[s] > 0 and (s - 1) * ceil_div(nkb, s) < nkb


def units(shape, s, waves, fixed, rank):
    _, n, k = shape
    tiles = ceil_div(n, BLOCK_W)
    per = ceil_div(ceil_div(k, BLOCK_K), s)
    return ceil_div(tiles * s, waves[s]) * (per + fixed) + (s - 1) * rank


def fit_error(times, waves, costs):
    return log_fit([(math.log(us), math.log(units(sh, s, waves, *costs)))
                    for sh, by in times.items() for s, us in by.items() if valid(sh, s, waves)])


def choose(shape, waves, costs, splits):
    best, best_cost = None, None
    for s in sorted(splits):  # ties keep the smaller split, as choose_decode_split
        if valid(shape, s, waves):
            c = units(shape, s, waves, *costs)
            if best_cost is None or c < best_cost:
                best, best_cost = s, c
    return best


def replay(times, waves, costs):
    """Per shape (rule's split, fastest split, their time ratio), and the geomean ratio."""
    picks = []
    for sh in sorted(times):
        by = times[sh]
        fastest = min(by, key=by.get)
        pick = choose(sh, waves, costs, by)
        picks.append((sh, pick, fastest, by[pick] / by[fastest]))
    return picks, math.exp(sum(math.log(p[3]) for p in picks) / len(picks))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--waves", default="264,264,237,248,235,234,224,240")
    ap.add_argument("--costs", help="FIXED,RANK to replay instead of fitting")
    ap.add_argument("--field", default="graph_us_per_gemm", help="the rows' time: graph_us_per_gemm or us")
    ap.add_argument("--contender", default="nvfp4_w4a16",
                    help="the rows fitted: nvfp4_w4a16, or nvfp4_w4a4 (a forced split runs past the W4A4 cap)")
    args = ap.parse_args()
    waves = [0] + [int(x) for x in args.waves.split(",")]
    times = load(args.dir, args.field, args.contender)
    if not times:
        raise SystemExit(f"no {args.contender} sm90_wgmma rows with {args.field} in {args.dir}/split_*.json")
    if args.costs:
        candidates = {"given": tuple(float(x) for x in args.costs.split(","))}
    else:
        # Quarter blocks: the fixed cost 0-20, a rank 0-4. Two objectives: the
        # model's fit (log least squares) and the rule's replay (what the
        # choice costs); the replay decides, the fit's error breaks its ties.
        quarters = [q / 4 for q in range(0, 81)]
        grid = [(f, r) for f in quarters for r in quarters if r <= 4]
        candidates = {
            "least squares": min(grid, key=lambda c: fit_error(times, waves, c)[0]),
            "best replay": min(grid, key=lambda c: (replay(times, waves, c)[1], fit_error(times, waves, c)[0])),
        }
    for name, costs in candidates.items():
        err, c = fit_error(times, waves, costs)
        picks, geo = replay(times, waves, costs)
        print(f"{name}: FIXED={costs[0]:g} RANK={costs[1]:g}, rms log error {math.sqrt(err):.3f}, "
              f"{c:.3f} us per K block of a CTA's stream")
        for sh, pick, fastest, ratio in picks:
            by = times[sh]
            print(f"{'x'.join(map(str, sh)):>18}  rule S={pick} {by[pick]:7.2f} us   "
                  f"fastest S={fastest} {by[fastest]:7.2f} us   {ratio:.3f}")
        print(f"replay: rule / fastest geomean {geo:.4f}, worst {max(p[3] for p in picks):.3f}")


if __name__ == "__main__":
    main()
