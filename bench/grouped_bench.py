#!/usr/bin/env python3
"""Grouped FP8 GEMM benchmark: fp8kit_grouped_gemm beside torch._scaled_grouped_mm
and a loop of fp8kit's dense GEMM per expert, on the same inputs in one run.

    FP8KIT_LIBRARY=build/src/libfp8kit.so python3 bench/grouped_bench.py \
        [--suite bench/grouped_shapes.json] [--json out.json] [--quick] [--decode-only] [--diagnose]

Row-wise scales (per token x per channel), bf16 out, e4m3 inputs. Contiguous
layout for the prefill cases (tokens x routing), masked layout for decode,
captured in a CUDA graph and replayed. Times: CUDA events around each call
after warm-up, median of the repetitions. Every suite shape's weights B
(>= 200 MB) exceed the H200's 60 MB L2, so each call streams B from memory.
TFLOP/s counts 2 * T * N * K useful flops; decode GB/s counts the bytes of the
experts actually touched (B_e of every expert with rows, A and D rows).
"""

import argparse
import ctypes
import json
import math
import os
import statistics
import sys

import torch

# fp8kit.h enums
E4M3, BF16 = 0, 2
SCALE_ROW, SCALE_COL = 2, 3
CONTIGUOUS, MASKED = 0, 1
PATH_AUTO = 0


# The C descriptors, defined once in the package (this checkout's, when it is
# not installed).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from fp8kit._lib import GemmDesc, GroupedDesc  # noqa: E402


def load_library():
    lib = ctypes.CDLL(os.environ.get("FP8KIT_LIBRARY", "libfp8kit.so"))
    lib.fp8kit_gemm.argtypes = [ctypes.POINTER(GemmDesc), ctypes.c_void_p, ctypes.c_void_p]
    lib.fp8kit_grouped_gemm.argtypes = [ctypes.POINTER(GroupedDesc), ctypes.c_void_p, ctypes.c_void_p]
    lib.fp8kit_last_error.restype = ctypes.c_char_p
    return lib


LIB = None


def check(status):
    if status != 0:
        raise RuntimeError(f"fp8kit status {status}: {LIB.fp8kit_last_error().decode()}")


def stream_handle():
    return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)


def route(tokens, experts, top_k, routing, exponent, gen):
    """Rows per expert for `tokens` tokens, each sent to top_k distinct experts."""
    if routing == "balanced":
        picks = (torch.arange(tokens * top_k) % experts)
    else:
        weights = 1.0 / torch.arange(1, experts + 1, dtype=torch.float64) ** exponent
        picks = torch.multinomial(weights.expand(tokens, experts), top_k, replacement=False, generator=gen).flatten()
    return torch.bincount(picks, minlength=experts).tolist()


def random_bits(shape, gen):
    """Bytes of finite e4m3 values of magnitude <= 2 (0x00-0x3f, random sign)."""
    bits = torch.randint(0, 0x40, shape, dtype=torch.uint8, device="cuda", generator=gen)
    bits |= (torch.randint(0, 2, shape, dtype=torch.uint8, device="cuda", generator=gen) << 7)
    return bits


def random_fp8(shape, gen):
    return random_bits(shape, gen).view(torch.float8_e4m3fn)


def time_ms(fn, reps, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


class Weights:
    """B [E, N, K] e4m3 and per-channel scales [E, N] for one expert GEMM."""

    def __init__(self, experts, n, k, gen):
        self.experts, self.n, self.k = experts, n, k
        bits = torch.empty((experts, n, k), dtype=torch.uint8, device="cuda")
        for e in range(experts):  # one expert at a time keeps the temporaries small
            bits[e] = random_bits((n, k), gen)
        self.b = bits.view(torch.float8_e4m3fn)
        self.scale = torch.rand((experts, n), device="cuda", generator=gen) * 0.01 + 0.001


def grouped_desc(layout, w, rows, groups, a, a_scale, d):
    desc = GroupedDesc()
    desc.layout, desc.experts, desc.rows, desc.n, desc.k = layout, w.experts, rows, w.n, w.k
    if layout == CONTIGUOUS:
        desc.offs = groups.data_ptr()
    else:
        desc.counts = groups.data_ptr()
    desc.a, desc.lda, desc.a_type = a.data_ptr(), w.k, E4M3
    desc.b, desc.ldb, desc.b_type = w.b.data_ptr(), w.k, E4M3
    desc.d, desc.ldd, desc.d_type = d.data_ptr(), w.n, BF16
    desc.a_scale_mode, desc.a_scale = SCALE_ROW, a_scale.data_ptr()
    desc.b_scale_mode, desc.b_scale = SCALE_COL, w.scale.data_ptr()
    return desc


def dense_loop(w, sizes, a, a_scale, d):
    """One fp8kit_gemm per expert with rows (sizes known on the host)."""
    descs, start = [], 0
    for e, rows in enumerate(sizes):
        if rows:
            g = GemmDesc()
            g.m, g.n, g.k = rows, w.n, w.k
            g.a, g.lda, g.a_type = a.data_ptr() + start * w.k, w.k, E4M3
            g.b, g.ldb, g.b_type = w.b[e].data_ptr(), w.k, E4M3
            g.d, g.ldd, g.d_type = d.data_ptr() + start * w.n * 2, w.n, BF16
            g.a_scale_mode, g.a_scale = SCALE_ROW, a_scale.data_ptr() + start * 4
            g.b_scale_mode, g.b_scale = SCALE_COL, w.scale[e].data_ptr()
            descs.append(g)
        start += rows

    def run():
        s = stream_handle()
        for g in descs:
            check(LIB.fp8kit_gemm(ctypes.byref(g), None, s))
    return run


def prefill_case(w, tokens, top_k, routing, exponent, gen, route_gen, reps):
    sizes = route(tokens, w.experts, top_k, routing, exponent, route_gen)
    t = sum(sizes)
    a = random_fp8((t, w.k), gen)
    a_scale = torch.rand(t, device="cuda", generator=gen) * 0.01 + 0.001
    offs = torch.tensor(sizes, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
    d = torch.empty((t, w.n), dtype=torch.bfloat16, device="cuda")
    desc = grouped_desc(CONTIGUOUS, w, t, offs, a, a_scale, d)
    flops = 2.0 * t * w.n * w.k
    row = {"tokens": tokens, "routed_rows": t, "routing": routing, "max_rows": max(sizes),
           "active_experts": sum(1 for s in sizes if s)}
    ms = time_ms(lambda: check(LIB.fp8kit_grouped_gemm(ctypes.byref(desc), None, stream_handle())), reps)
    row["fp8kit_ms"], row["fp8kit_tflops"] = ms, flops / ms / 1e9
    ref = d.clone()
    try:
        bt = w.b.transpose(-2, -1)  # [E, K, N], K-major: what _scaled_grouped_mm takes
        out = torch._scaled_grouped_mm(a, bt, a_scale, w.scale, offs=offs, out_dtype=torch.bfloat16)
        row["agree_with_torch"] = float((out.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-30))
        ms = time_ms(lambda: torch._scaled_grouped_mm(a, bt, a_scale, w.scale, offs=offs, out_dtype=torch.bfloat16),
                     reps)
        row["torch_ms"], row["torch_tflops"] = ms, flops / ms / 1e9
    except Exception as err:  # noqa: BLE001 - any refusal of torch is a result to record
        row["torch_error"] = str(err).splitlines()[0][:160]
    if t / max(1, row["active_experts"]) <= 64 or w.experts <= 8:
        ms = time_ms(dense_loop(w, sizes, a, a_scale, d), max(2, reps // 2), warmup=1)
        row["loop_ms"], row["loop_tflops"] = ms, flops / ms / 1e9
    return row


GRAPH_CALLS = 8


def decode_case(w, tokens, top_k, max_m, gen, route_gen, reps, diagnose=False):
    sizes = route(tokens, w.experts, top_k, "balanced", 0, route_gen)
    a = random_fp8((w.experts * max_m, w.k), gen)
    a_scale = torch.rand(w.experts * max_m, device="cuda", generator=gen) * 0.01 + 0.001
    counts = torch.tensor([min(s, max_m) for s in sizes], dtype=torch.int32).cuda()
    d = torch.empty((w.experts * max_m, w.n), dtype=torch.bfloat16, device="cuda")
    desc = grouped_desc(MASKED, w, max_m, counts, a, a_scale, d)
    stream = torch.cuda.Stream()

    def capture(calls):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            check(LIB.fp8kit_grouped_gemm(ctypes.byref(desc), None, stream_handle()))  # warm (attributes, image)
            torch.cuda.synchronize()
            with torch.cuda.graph(graph, stream=stream):
                for _ in range(calls):
                    check(LIB.fp8kit_grouped_gemm(ctypes.byref(desc), None, stream_handle()))
        return graph

    active = sum(1 for s in sizes if s)
    rows = sum(min(s, max_m) for s in sizes)
    touched = active * w.n * w.k + rows * w.k + rows * w.n * 2 + w.experts * 4
    ms = time_ms(capture(1).replay, reps)
    row = {"tokens": tokens, "routed_rows": rows, "active_experts": active, "graph_ms": ms,
           "gbps": touched / ms / 1e6}
    if diagnose:
        # Where the time goes: the same call GRAPH_CALLS times in one graph
        # (per call: the kernel with the launch gaps of a graph, weights
        # L2-warm as above), and the one-call graph with every count zero
        # (launch, CTA start and unit table, no unit: the floor).
        row["in_graph_ms"] = time_ms(capture(GRAPH_CALLS).replay, reps) / GRAPH_CALLS
        counts.zero_()
        row["floor_ms"] = time_ms(capture(1).replay, reps)
    return row


def copy_roof_gbps(gen):
    src = torch.empty(1 << 29, dtype=torch.uint8, device="cuda")  # 512 MiB
    dst = torch.empty_like(src)
    ms = time_ms(lambda: dst.copy_(src), 10)
    return 2 * src.numel() / ms / 1e6


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    global LIB
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default=os.path.join(here, "grouped_shapes.json"))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--quick", action="store_true", help="fewer token counts and repetitions")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--decode-only", action="store_true", help="only the masked decode cases")
    ap.add_argument("--decode-max-m", type=int, nargs="+", help="slab rows of the decode cases (default: the suite's)")
    ap.add_argument("--pdl", choices=["env", "off", "on", "both"], default="env",
                    help="decode cases with FP8KIT_PDL as set, unset, =1, or both in turn")
    ap.add_argument("--diagnose", action="store_true",
                    help="decode rows also time the call %d times in one graph and the all-zero-counts floor"
                    % GRAPH_CALLS)
    args = ap.parse_args()
    LIB = load_library()
    suite = json.load(open(args.suite))
    gen = torch.Generator(device="cuda").manual_seed(2026)
    cpu_gen = torch.Generator().manual_seed(2026)
    tokens_list = suite["tokens"][::2] + suite["tokens"][-1:] if args.quick else suite["tokens"]
    reps = 3 if args.quick else args.reps
    pdl_settings = {"env": [None], "off": ["0"], "on": ["1"], "both": ["0", "1"]}[args.pdl]
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "copy_roof_gbps": copy_roof_gbps(gen), "cases": [], "decode": []}
    print(f"# {result['device']}, torch {result['torch']}, copy roof {result['copy_roof_gbps']:.0f} GB/s")
    for model in suite["models"]:
        for gemm in model["gemms"]:
            w = Weights(model["experts"], gemm["n"], gemm["k"], gen)
            for tokens in [] if args.decode_only else sorted(set(tokens_list)):
                for routing in suite["routings"]:
                    row = prefill_case(w, tokens, model["top_k"], routing, suite["zipf_exponent"], gen, cpu_gen, reps)
                    row.update(model=model["name"], gemm=gemm["name"], n=w.n, k=w.k, experts=w.experts)
                    result["cases"].append(row)
                    print(json.dumps(row), flush=True)
            for tokens in suite["decode_tokens"]:
                for max_m in args.decode_max_m or [suite["decode_max_m"]]:
                    for pdl in pdl_settings:
                        if pdl is not None:
                            os.environ["FP8KIT_PDL"] = pdl
                        row = decode_case(w, tokens, model["top_k"], max_m, gen, cpu_gen, max(reps, 5), args.diagnose)
                        row.update(model=model["name"], gemm=gemm["name"], n=w.n, k=w.k, experts=w.experts,
                                   max_m=max_m, pdl=os.environ.get("FP8KIT_PDL", "") == "1")
                        row["copy_fraction"] = row["gbps"] / result["copy_roof_gbps"]
                        result["decode"].append(row)
                        print(json.dumps(row), flush=True)
            del w
            torch.cuda.empty_cache()
    cases = result["cases"]
    both = [c for c in cases if "torch_tflops" in c]
    small = [c for c in cases if "loop_tflops" in c and c["routed_rows"] / max(1, c["active_experts"]) <= 64]
    decode = result["decode"]
    result["summary"] = {"decode_copy_fraction_geomean": geomean([c["copy_fraction"] for c in decode])}
    by_variant = {}  # (max_m, PDL) -> its rows
    for c in decode:
        by_variant.setdefault((c["max_m"], c["pdl"]), []).append(c)
    if len(by_variant) > 1 or args.diagnose:
        summary = result["summary"]["decode_by_variant"] = {}
        for (m, p), rows in sorted(by_variant.items()):
            v = summary[f"max_m={m},pdl={int(p)}"] = {"copy_fraction_geomean": geomean([c["copy_fraction"] for c in rows])}
            if args.diagnose:  # the same bytes over the per-call time in an 8-call graph
                v["in_graph_copy_fraction_geomean"] = geomean(
                    [c["copy_fraction"] * c["graph_ms"] / c["in_graph_ms"] for c in rows])
                v["floor_us_median"] = statistics.median(c["floor_ms"] * 1e3 for c in rows)
    if cases:
        result["summary"].update({
            "fp8kit_over_torch_geomean": geomean([c["fp8kit_tflops"] / c["torch_tflops"] for c in both]),
            "fp8kit_over_loop_geomean_le64_rows": geomean([c["fp8kit_tflops"] / c["loop_tflops"] for c in small]),
            "fp8kit_tflops_best": max(c["fp8kit_tflops"] for c in cases),
            "torch_tflops_best": max((c["torch_tflops"] for c in both), default=float("nan")),
        })

    print(json.dumps(result["summary"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
