#!/usr/bin/env python3
"""Decode through Python, as a vLLM user runs it: fp8kit.scaled_mm beside
torch._scaled_mm (cuBLASLt) on the same inputs in one run.

    FP8KIT_LIBRARY=build/src/libfp8kit.so python3 bench/python_decode.py [--json out.json] [--layers 32]

Protocol (steady): per shape and library, one CUDA graph of `--layers`
distinct calls (call i reads weight set i, and the sets together exceed the
60 MB L2 several times, so no call finds its weights in L2), captured after
warm-up, replayed `--warmups` times, then `--reps` replays timed one by one
with CUDA events; the figure is the median replay over the layer count.
GB/s counts the bytes a call must move (B, A, D and the scales) and is given
as a fraction of the copy roof measured in the same run (a device-to-device
copy of 512 MiB). Host overhead: the time to return to Python per eager call of a
1 x 256 x 256 GEMM (too small for the GPU to be the bound), 2000 calls, no
synchronisation inside the loop. Inputs: e4m3 uniform bytes of magnitude
0x00-0x3f (finite), scales in [0.001, 0.011].
"""

import argparse
import json
import statistics

import torch

import fp8kit
from torch_overhead import _time as torch_overhead_time  # bench/ is this script's directory

SHAPES = [(1, 4096, 4096), (4, 2048, 7168), (16, 7168, 2048), (1, 14336, 4096), (8, 4096, 14336),
          (16, 24576, 1536), (1, 7168, 16384)]
L2_BYTES = 60 << 20
HOST_SHAPE = (1, 256, 256)


def random_fp8(shape, gen):
    bits = torch.randint(0, 0x40, shape, dtype=torch.uint8, device="cuda", generator=gen)
    sign = torch.randint(0, 2, shape, dtype=torch.uint8, device="cuda", generator=gen) << 7
    return (bits | sign).view(torch.float8_e4m3fn)


def scales(n, gen):
    return torch.rand(n, device="cuda", generator=gen) * 0.01 + 0.001


def copy_roof_gbps():
    src = torch.empty(1 << 29, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(10):
        start.record()
        dst.copy_(src)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return 2 * src.numel() / statistics.median(times) / 1e6


def graph_us_per_call(calls, warmups, reps):
    """Median replay time of one graph of `calls`, per call, in microseconds."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for fn in calls:  # warm-up outside capture: workspaces, lazy loading
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for fn in calls:
            fn()
    for _ in range(warmups):
        graph.replay()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times) * 1e3 / len(calls)


def host_us_per_call(fn, calls=2000):
    """The time to return to Python per call, as bench/torch_overhead.py measures it."""
    for _ in range(50):
        fn()
    return torch_overhead_time(fn, calls)[1]


def fast_accum_supported():
    try:
        import inspect
        return "use_fast_accum" in inspect.signature(fp8kit.scaled_mm).parameters
    except (TypeError, ValueError):
        return False


def variants(fast):
    """name -> (library, builder(a, b, sa_row, sa_t, sb_col, sb_t) -> call)."""
    out = {
        "fp8kit token-channel": lambda a, b, sar, sat, sbc, sbt: lambda: fp8kit.scaled_mm(a, b, sar, sbc),
        "fp8kit tensor": lambda a, b, sar, sat, sbc, sbt: lambda: fp8kit.scaled_mm(a, b, sat, sbt),
        "torch tensor": lambda a, b, sar, sat, sbc, sbt: lambda: torch._scaled_mm(
            a, b.t(), sat, sbt, out_dtype=torch.bfloat16),
        "torch tensor fast": lambda a, b, sar, sat, sbc, sbt: lambda: torch._scaled_mm(
            a, b.t(), sat, sbt, out_dtype=torch.bfloat16, use_fast_accum=True),
        "torch token-channel": lambda a, b, sar, sat, sbc, sbt: lambda: torch._scaled_mm(
            a, b.t(), sar.view(-1, 1), sbc.view(1, -1), out_dtype=torch.bfloat16),
    }
    if fast:
        out["fp8kit tensor fast"] = lambda a, b, sar, sat, sbc, sbt: lambda: fp8kit.scaled_mm(
            a, b, sat, sbt, use_fast_accum=True)
        out["fp8kit token-channel fast"] = lambda a, b, sar, sat, sbc, sbt: lambda: fp8kit.scaled_mm(
            a, b, sar, sbc, use_fast_accum=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json")
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--warmups", type=int, default=5)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--workspace", choices=["per_call", "per_stream"], default="per_call",
                    help="fp8kit.configure(workspace=...)")
    ap.add_argument("--pdl", action="store_true", help="fp8kit.configure(programmatic_launch=True)")
    args = ap.parse_args()
    fp8kit.configure(workspace=args.workspace, programmatic_launch=args.pdl)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    roof = copy_roof_gbps()
    fast = fast_accum_supported()
    vs = variants(fast)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "fp8kit": fp8kit.__version__,
              "copy_roof_gbps": roof, "layers": args.layers, "protocol": "steady", "workspace": args.workspace,
              "programmatic_launch": args.pdl, "rows": []}
    print(f"# {result['device']}, torch {torch.__version__}, fp8kit {fp8kit.__version__}, copy roof {roof:.0f} GB/s, "
          f"{args.layers} layers per graph, workspace {args.workspace}, programmatic launch {args.pdl}")
    for m, n, k in SHAPES:
        bytes_per_call = n * k + m * k + 2 * m * n + 4 * (m + n)
        assert args.layers * n * k >= 3 * L2_BYTES, "the weight sets must exceed the L2"
        ws = [(random_fp8((n, k), gen), scales(n, gen), scales(1, gen)) for _ in range(args.layers)]
        xs = [(random_fp8((m, k), gen), scales(m, gen), scales(1, gen)) for _ in range(args.layers)]
        row = {"m": m, "n": n, "k": k, "bytes_per_call": bytes_per_call}
        for name, build in vs.items():
            calls = [build(a, ws[i][0], sar, sat, ws[i][1], ws[i][2])
                     for i, (a, sar, sat) in enumerate(xs)]
            try:
                us = graph_us_per_call(calls, args.warmups, args.reps)
            except (RuntimeError, fp8kit.Error) as e:
                row[name] = {"note": str(e).splitlines()[0]}
                continue
            gbs = bytes_per_call / us / 1e3
            row[name] = {"us": us, "gbs": gbs, "roof_fraction": gbs / roof}
        result["rows"].append(row)
        cells = "  ".join(f"{nm} {row[nm]['us']:.2f}us {row[nm]['roof_fraction']:.3f}" if "us" in row[nm]
                          else f"{nm} n/a" for nm in vs)
        print(f"{m}x{n}x{k}: {cells}", flush=True)
    hm, hn, hk = HOST_SHAPE
    a, b = random_fp8((hm, hk), gen), random_fp8((hn, hk), gen)
    sar, sbc, st = scales(hm, gen), scales(hn, gen), scales(1, gen)
    result["host_us_per_call"] = {
        "fp8kit token-channel": host_us_per_call(lambda: fp8kit.scaled_mm(a, b, sar, sbc)),
        "fp8kit tensor": host_us_per_call(lambda: fp8kit.scaled_mm(a, b, st, st)),
        "torch tensor": host_us_per_call(lambda: torch._scaled_mm(a, b.t(), st, st, out_dtype=torch.bfloat16)),
    }
    print("host us per eager call: " + ", ".join(f"{k} {v:.2f}" for k, v in result["host_us_per_call"].items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
