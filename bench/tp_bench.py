#!/usr/bin/env python3
"""Tensor-parallel FP8 GEMM benchmark: each rank's GEMM and its collective for a
70B-class model's layers (bench/tp_shapes.json), beside the unsplit TP = 1 GEMM.

    FP8KIT_LIBRARY=build/src/libfp8kit.so PYTHONPATH=python python3 bench/tp_bench.py [--tp 2] [--json out.json]
    FP8KIT_LIBRARY=... PYTHONPATH=python torchrun --nproc-per-node 2 bench/tp_bench.py --json out.json

One process (no torchrun): the per-rank GEMMs of the --tp shards (rank 0's shard
shapes; every rank's are the same) and the TP = 1 GEMM, no collective (its bytes
are reported, its time is null). Under torchrun with W >= 2 ranks (NCCL, one GPU
each): W is the TP degree and the collective is timed too, on every rank, and
rank 0 writes the JSON.

What is timed is what fp8kit.distributed runs: column-parallel layers
fp8kit.scaled_mm [M, N/W] in bf16, then all_gather_into_tensor of that output;
row-parallel layers fp8kit.scaled_mm [M, N] of the K/W slice in f32 (the default
reduce_dtype), then all_reduce of the f32 partial. Scale modes: "row" (per-token
x per-channel) and "block" (1x128 x 128x128), also "tensor". GEMMs: a CUDA graph
of calls rotating over enough copies of A, B, scales and D that every call
streams its weights from memory (each copy set >= 60 MB, the H200's L2, and the
rotation spans >= 120 MB), after a warm-up replay; the time per call is the
median over --reps replays divided by the calls per replay. Collectives: CUDA
events around --calls back-to-back calls on rotating buffers, median over --reps.
NVLink multicast is off (fp8kit.distributed.NO_MULTICAST_ENV).
"""

import argparse
import json
import math
import os
import statistics
import sys

import torch
import torch.distributed as dist

import fp8kit
from fp8kit import distributed as tp
from fp8kit._lib import BLOCK

L2_BYTES = 60 << 20
ROTATION_BYTES = 2 * L2_BYTES
MAX_COPIES = 16


def random_fp8(shape, gen):
    """Finite e4m3 values of magnitude <= 2 (bytes 0x00-0x3f, random sign)."""
    bits = torch.randint(0, 0x40, shape, dtype=torch.uint8, device="cuda", generator=gen)
    bits |= torch.randint(0, 2, shape, dtype=torch.uint8, device="cuda", generator=gen) << 7
    return bits.view(torch.float8_e4m3fn)


def scales(mode, m, n, k, gen):
    rand = lambda *s: torch.rand(s, device="cuda", generator=gen) * 0.01 + 0.001  # noqa: E731
    if mode == "tensor":
        return rand(1), rand(1)
    if mode == "row":
        return rand(m, 1), rand(n)
    kb = -(-k // BLOCK)
    return rand(kb, m).t(), rand(-(-n // BLOCK), kb)   # A's [M, kb] M-contiguous, as quantize gives it


def gemm_ms(m, n, k, mode, out_dtype, gen, reps):
    """Median time per fp8kit.scaled_mm call of [M, K] x [N, K]^T, weights streamed from memory."""
    set_bytes = n * k + m * k + m * n * out_dtype.itemsize
    copies = min(MAX_COPIES, max(2, math.ceil(ROTATION_BYTES / set_bytes)))
    sets = []
    for _ in range(copies):
        sa, sb = scales(mode, m, n, k, gen)
        sets.append((random_fp8((m, k), gen), random_fp8((n, k), gen), sa, sb))
    call = lambda s: fp8kit.scaled_mm(s[0], s[1], s[2], s[3], out_dtype=out_dtype)  # noqa: E731
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for s in sets:      # warm-up outside the graph (kernel attributes, image load)
            call(s)
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = [call(s) for s in sets]
    graph.replay()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / copies)
    del graph, outs, sets
    return statistics.median(times), copies


def collective_ms(kind, m, n_out, world, calls, reps):
    """Median time per all_gather_into_tensor ([M, N/W] bf16 per rank) or all_reduce ([M, N] f32)."""
    if kind == "column":
        bufs = [(torch.randn((m, n_out), device="cuda").to(torch.bfloat16),
                 torch.empty((world * m, n_out), device="cuda", dtype=torch.bfloat16)) for _ in range(2)]
        op = lambda b: dist.all_gather_into_tensor(b[1], b[0])  # noqa: E731
    else:
        bufs = [(torch.randn((m, n_out), device="cuda"),) for _ in range(2)]
        op = lambda b: dist.all_reduce(b[0])  # noqa: E731
    for b in bufs:
        op(b)
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        dist.barrier()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for i in range(calls):
            op(bufs[i % 2])
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def case(layer, m, mode, world_tp, world, gen, args):
    n, k, kind = layer["n"], layer["k"], layer["kind"]
    if kind == "column":
        sm, sn, sk, out_dtype, coll_bytes = m, n // world_tp, k, torch.bfloat16, m * (n // world_tp) * 2
    else:
        sm, sn, sk, out_dtype, coll_bytes = m, n, k // world_tp, torch.float32, m * n * 4
    shard, copies = gemm_ms(sm, sn, sk, mode, out_dtype, gen, args.reps)
    full, _ = gemm_ms(m, n, k, mode, torch.bfloat16, gen, args.reps)
    row = {"layer": layer["layer"], "kind": kind, "m": m, "mode": mode, "tp": world_tp,
           "shard": {"m": sm, "n": sn, "k": sk, "out": str(out_dtype).replace("torch.", "")},
           "shard_gemm_ms": shard, "shard_tflops": 2.0 * sm * sn * sk / shard / 1e9,
           "shard_weight_gbps": sn * sk / shard / 1e6, "copies": copies,
           "tp1_gemm_ms": full, "tp1_tflops": 2.0 * m * n * k / full / 1e9,
           "split_efficiency": full / (world_tp * shard),
           "collective": {"op": "all_gather_into_tensor" if kind == "column" else "all_reduce",
                          "bytes_per_rank": coll_bytes, "dtype": "bfloat16" if kind == "column" else "float32",
                          "ms": None}}
    if world > 1:
        ms = collective_ms(kind, m, sn, world, args.calls, args.reps)
        row["collective"]["ms"] = ms
        row["rank_ms"] = shard + ms
    return row


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def summary(rows):
    out = {}
    for mode in sorted({r["mode"] for r in rows}):
        mine = [r for r in rows if r["mode"] == mode]
        out[mode] = {"split_efficiency_geomean_decode_m_le_16":
                     geomean([r["split_efficiency"] for r in mine if r["m"] <= 16]),
                     "split_efficiency_geomean_prefill_m_ge_512":
                     geomean([r["split_efficiency"] for r in mine if r["m"] >= 512])}
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default=os.path.join(here, "tp_shapes.json"))
    ap.add_argument("--tp", type=int, help="TP degree of the shards without torchrun (default: the suite's)")
    ap.add_argument("--modes", default="row,block,tensor")
    ap.add_argument("--m", help="comma-separated M values (default: the suite's)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--calls", type=int, default=20, help="collective calls per timed round")
    ap.add_argument("--json", help="write the results here (rewritten after every case)")
    args = ap.parse_args()
    tp.disable_multicast()
    suite = json.load(open(args.suite))
    world, rank = 1, 0
    if "RANK" in os.environ and int(os.environ.get("WORLD_SIZE", "1")) > 1:
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        dist.init_process_group("nccl", device_id=torch.device("cuda", int(os.environ["LOCAL_RANK"])))
        world, rank = dist.get_world_size(), dist.get_rank()
    world_tp = world if world > 1 else (args.tp or suite["tp"])
    ms = [int(x) for x in args.m.split(",")] if args.m else suite["m"]
    gen = torch.Generator(device="cuda").manual_seed(2026 + rank)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "model": suite["model"],
              "tp": world_tp, "world_size": world, "library": fp8kit.library_path(), "cases": []}
    if rank == 0:
        print(f"# {result['device']}, torch {result['torch']}, {suite['model']} at TP = {world_tp}, "
              f"{world} process(es)", flush=True)
    for layer in suite["layers"]:
        for m in ms:
            for mode in args.modes.split(","):
                row = case(layer, m, mode, world_tp, world, gen, args)
                result["cases"].append(row)
                if rank == 0:
                    print(json.dumps(row), flush=True)
                    if args.json:
                        result["summary"] = summary(result["cases"])
                        with open(args.json, "w") as f:
                            json.dump(result, f, indent=1)
        torch.cuda.empty_cache()
    if rank == 0:
        print(json.dumps(summary(result["cases"])), flush=True)
    if world > 1:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
