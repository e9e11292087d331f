#!/usr/bin/env python3
"""Tabulates a forced sweep of Hopper FP8 decode's cluster split and replays
the plan's rule (src/gemm/sm90/plan.hpp, cluster_split_size) over it at each
per-CTA floor of K blocks (kMinClusterKBlocksDecode).

    fit_cluster_split.py DIR [--field graph_us] [--ctas 132,132,...]

DIR holds `fp8kit_bench --graph --json` files named split_{S}.json, each a
run with FP8KIT_SM90_CLUSTER_SPLIT=S (S = 1: no cluster split; 0 or a
missing file: the rule). The rows' fp8kit time (graph µs by default: decode
as servers run it) per (M, N, K, mode) and S is the data. `--ctas`: CTAs
resident at once in clusters of 2 .. 8 (cudaOccupancyMaxActiveClusters x S;
the default is an H100's or H200's 132 SMs at one CTA each, as the one-wave
test reads it). A split S applies only where tiles x S fits those CTAs, so a
forced S that does not fit measured the rule's plan and is dropped. Replay:
per floor, per row, the split the rule picks against the fastest measured,
as the geomean of their time ratios.
"""
import argparse
import glob
import json
import math
import os
import re

BLOCK_K = 128
MAX_SPLIT = 8


def ceil_div(a, b):
    return -(-a // b)


def load(directory, field):
    times = {}  # (m, n, k, mode) -> {S: us}
    cublas = {}
    for path in glob.glob(os.path.join(directory, "split_*.json")):
        g = re.match(r"split_(\d+)\.json$", os.path.basename(path))
        if not g or int(g.group(1)) == 0:
            continue
        with open(path) as f:
            rows = json.load(f)["rows"]
        for r in rows:
            mine = r.get("fp8kit", {})
            if mine.get("status") != "ok" or not mine.get(field):
                continue
            key = (r["m"], r["n"], r["k"], r["mode"])
            times.setdefault(key, {})[int(g.group(1))] = mine[field]
            lt = r.get("cublaslt", {})
            if lt.get("status") == "ok" and lt.get(field):
                cublas.setdefault(key, []).append(lt[field])
    return times, cublas


def tiles_of(n, block_n=128):
    return ceil_div(n, block_n)  # the swapped decode tile: one tile along the tokens


def rule(n, k, floor, ctas):
    tiles, kb = tiles_of(n), ceil_div(k, BLOCK_K)
    for s in range(MAX_SPLIT, 1, -1):
        if tiles * s <= ctas[s] and kb // s >= floor and (s - 1) * ceil_div(kb, s) < kb:
            return s
    return 1


def fits(n, k, s, ctas):
    tiles, kb = tiles_of(n), ceil_div(k, BLOCK_K)
    return s == 1 or (tiles * s <= ctas[s] and (s - 1) * ceil_div(kb, s) < kb)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--field", default="graph_us", help="the fp8kit time: graph_us or us")
    ap.add_argument("--ctas", default=",".join(["132"] * (MAX_SPLIT - 1)),
                    help="CTAs resident at once in clusters of 2 .. 8")
    args = ap.parse_args()
    ctas = [0, 0] + [int(x) for x in args.ctas.split(",")]
    times, cublas = load(args.dir, args.field)
    if not times:
        raise SystemExit(f"no fp8kit rows with {args.field} in {args.dir}/split_*.json")
    for key in times:
        times[key] = {s: us for s, us in times[key].items() if fits(key[1], key[2], s, ctas)}
    print(f"{'shape':>24} " + " ".join(f"{'S=' + str(s):>6}" for s in range(1, MAX_SPLIT + 1)) + "  cuBLASLt")
    for key in sorted(times):
        by = times[key]
        lt = cublas.get(key)
        cells = " ".join(f"{by[s]:6.2f}" if s in by else f"{'-':>6}" for s in range(1, MAX_SPLIT + 1))
        ref = f"{sorted(lt)[len(lt) // 2]:8.2f}" if lt else f"{'-':>8}"
        print(f"{'x'.join(map(str, key[:3])) + ' ' + key[3]:>24} {cells}  {ref}")
    for floor in range(2, 17):
        ratios = []
        for key, by in times.items():
            pick = rule(key[1], key[2], floor, ctas)
            if pick in by:
                ratios.append(by[pick] / min(by.values()))
        if ratios:
            geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            print(f"floor {floor:2d}: rule / fastest geomean {geo:.4f}, worst {max(ratios):.3f} over {len(ratios)} rows")


if __name__ == "__main__":
    main()
