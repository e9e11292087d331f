#!/usr/bin/env python3
"""Grouped FP8 GEMM benchmark: fp8kit_grouped_gemm beside torch._scaled_grouped_mm
and a loop of fp8kit's dense GEMM per expert, on the same inputs in one run.

    FP8KIT_LIBRARY=build/src/libfp8kit.so python3 bench/grouped_bench.py \
        [--suite bench/grouped_shapes.json] [--json out.json] [--quick] [--decode-only] [--diagnose]

Row-wise scales (per token x per channel), bf16 out, e4m3 inputs; promoted
accumulation, or with --fast-accum FAST in all three (fp8kit's
options.accumulation, torch's use_fast_accum=True), like for like. Contiguous
layout for the prefill cases (tokens x routing), masked layout for decode,
captured in a CUDA graph and replayed. Times: CUDA events around each call
after warm-up, median of the repetitions. Every suite shape's weights B
(>= 200 MB) exceed the H200's 60 MB L2, so each call streams B from memory.
TFLOP/s counts 2 * T * N * K useful flops; decode GB/s counts the bytes of the
experts actually touched (B_e of every expert with rows, A and D rows).

Each decode row is timed twice. `graph_ms`: a graph of the one call, replayed
(the graph launch and the CTA ramp are in it, and the small cases' touched
weights, 6-25 MB, stay L2-warm across replays). `layers_graph_ms`: per call in
one graph of G distinct masked calls, as consecutive MoE layers of a server
run them (G = --layers, 32), each call with its own counts, A, a_scale and D,
and weights that no call finds in L2 from the calls before it. The weights
come from two sources, combined as `layer_plan` says: the expert sets of one
weight tensor (the routing rolled by the span of experts it touches, so call
s of a tensor reads experts [s*span, (s+1)*span): disjoint memory, same byte
count), and further weight tensors [E, N, K] (the base XOR a per-tensor
constant: distinct bytes, still finite e4m3; own scales) up to LAYER_BYTES of
weights per GEMM. Disjoint experts in one tensor are as faithful as distinct
layers for the memory system (a layer's experts are separate allocations
either way; the kernel reads only the experts with rows) and cost no memory,
so they are used first; tensors are added only where sets run out (Mixtral's
8 experts, DeepSeek-V3 at 16 tokens: 128 of 256 experts). DeepSeek-V3's
3.8-7.5 GB per GEMM caps the tensors at 8-17, so G is 16 there at 16 tokens
(gate/up); every replay streams >= 400 MB, so call 0 finds nothing left in
L2 from the previous replay either. The row's layers figure: the bytes
touched by all G calls over the graph's time. The last call's D is checked
against the same call run alone (`layers_check_rel_err`).
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


# The C descriptors, packed by the package (this checkout's, when it is not
# installed) as the header lays them out.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from fp8kit._lib import Options, gemm_desc, grouped_desc as pack_grouped  # noqa: E402


def load_library():
    lib = ctypes.CDLL(os.environ.get("FP8KIT_LIBRARY", "libfp8kit.so"))
    # (descriptor, options or None, stream), the first two packed by fp8kit._lib
    lib.fp8kit_gemm.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
    lib.fp8kit_grouped_gemm.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
    lib.fp8kit_last_error.restype = ctypes.c_char_p
    return lib


LIB = None
# The prefill cases' accumulation (--fast-accum): fp8kit's packed options
# (None: the defaults, promoted) and torch's use_fast_accum.
OPTIONS = None
FAST_ACCUM = False


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


# The layers graph: G calls, and at most this many bytes of weight tensors per
# GEMM (about half the H200's memory, leaving room for A, D and the allocator).
LAYERS = 32
LAYER_BYTES = 64e9


class Weights:
    """B [E, N, K] e4m3 and per-channel scales [E, N] for one expert GEMM, and
    the further weight tensors of the layers graph, made on first use."""

    def __init__(self, experts, n, k, gen):
        self.experts, self.n, self.k = experts, n, k
        bits = torch.empty((experts, n, k), dtype=torch.uint8, device="cuda")
        for e in range(experts):  # one expert at a time keeps the temporaries small
            bits[e] = random_bits((n, k), gen)
        self.b = bits.view(torch.float8_e4m3fn)
        self.scale = torch.rand((experts, n), device="cuda", generator=gen) * 0.01 + 0.001
        self.tensors = [(self.b, self.scale)]

    def nbytes(self):
        return self.experts * self.n * self.k

    def tensor(self, i, gen):
        """(B, scale) of weight tensor i: the base XOR (i % 63 + 1), which keeps
        0x00-0x3f magnitudes (finite e4m3) and makes every tensor's bytes distinct."""
        while len(self.tensors) <= i:
            j = len(self.tensors)
            bits = torch.bitwise_xor(self.b.view(torch.uint8), j % 63 + 1)
            scale = torch.rand((self.experts, self.n), device="cuda", generator=gen) * 0.01 + 0.001
            self.tensors.append((bits.view(torch.float8_e4m3fn), scale))
        return self.tensors[i]


def grouped_desc(layout, w, rows, groups, a, a_scale, d, weights=None):
    """The call's descriptor; `weights` (B, scale) replaces w's own."""
    b, b_scale = weights or (w.b, w.scale)
    offs, counts = (groups.data_ptr(), 0) if layout == CONTIGUOUS else (0, groups.data_ptr())
    return pack_grouped(layout, w.experts, rows, w.n, w.k, offs, counts, a.data_ptr(), w.k, E4M3, b.data_ptr(), w.k,
                        E4M3, d.data_ptr(), w.n, BF16, SCALE_ROW, a_scale.data_ptr(), SCALE_COL, b_scale.data_ptr(),
                        0, 0)


def dense_loop(w, sizes, a, a_scale, d):
    """One fp8kit_gemm per expert with rows (sizes known on the host)."""
    descs, start = [], 0
    for e, rows in enumerate(sizes):
        if rows:
            descs.append(gemm_desc(rows, w.n, w.k, a.data_ptr() + start * w.k, w.k, E4M3, w.b[e].data_ptr(), w.k,
                                   E4M3, d.data_ptr() + start * w.n * 2, w.n, BF16, SCALE_ROW,
                                   a_scale.data_ptr() + start * 4, SCALE_COL, w.scale[e].data_ptr(), 0, 0))
        start += rows

    def run():
        s = stream_handle()
        for g in descs:
            check(LIB.fp8kit_gemm(g, OPTIONS, s))
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
    ms = time_ms(lambda: check(LIB.fp8kit_grouped_gemm(desc, OPTIONS, stream_handle())), reps)
    row["fp8kit_ms"], row["fp8kit_tflops"] = ms, flops / ms / 1e9
    ref = d.clone()
    try:
        bt = w.b.transpose(-2, -1)  # [E, K, N], K-major: what _scaled_grouped_mm takes
        def torch_call():
            return torch._scaled_grouped_mm(a, bt, a_scale, w.scale, offs=offs, out_dtype=torch.bfloat16,
                                            use_fast_accum=FAST_ACCUM)
        out = torch_call()
        row["agree_with_torch"] = float((out.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-30))
        ms = time_ms(torch_call, reps)
        row["torch_ms"], row["torch_tflops"] = ms, flops / ms / 1e9
    except Exception as err:  # noqa: BLE001 - any refusal of torch is a result to record
        row["torch_error"] = str(err).splitlines()[0][:160]
    if t / max(1, row["active_experts"]) <= 64 or w.experts <= 8:
        ms = time_ms(dense_loop(w, sizes, a, a_scale, d), max(2, reps // 2), warmup=1)
        row["loop_ms"], row["loop_tflops"] = ms, flops / ms / 1e9
    return row


GRAPH_CALLS = 8
# Room left beside the layers graph's weight tensors (its A, D, the allocator).
LAYER_RESERVE = 8e9
# Largest relative difference (max |diff| / max |one-call D|) the layers check accepts.
LAYER_CHECK_TOL = 1e-3


def capture(descs, stream):
    """One graph of the calls `descs`, in order, after one eager call (attributes, image)."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.stream(stream):
        check(LIB.fp8kit_grouped_gemm(descs[0], None, stream_handle()))
        torch.cuda.synchronize()
        with torch.cuda.graph(graph, stream=stream):
            for desc in descs:
                check(LIB.fp8kit_grouped_gemm(desc, None, stream_handle()))
    return graph


def touched_bytes(w, counts):
    """Bytes one masked call reads and writes: B_e of each expert with rows, A and D rows, the counts."""
    rows = sum(counts)
    return sum(1 for c in counts if c) * w.n * w.k + rows * w.k + rows * w.n * 2 + w.experts * 4


def decode_case(w, tokens, top_k, max_m, gen, route_gen, reps, diagnose=False, layers=LAYERS):
    sizes = route(tokens, w.experts, top_k, "balanced", 0, route_gen)
    counts_list = [min(s, max_m) for s in sizes]
    a = random_fp8((w.experts * max_m, w.k), gen)
    a_scale = torch.rand(w.experts * max_m, device="cuda", generator=gen) * 0.01 + 0.001
    counts = torch.tensor(counts_list, dtype=torch.int32).cuda()
    d = torch.empty((w.experts * max_m, w.n), dtype=torch.bfloat16, device="cuda")
    desc = grouped_desc(MASKED, w, max_m, counts, a, a_scale, d)
    stream = torch.cuda.Stream()
    touched = touched_bytes(w, counts_list)
    ms = time_ms(capture([desc], stream).replay, reps)
    row = {"tokens": tokens, "routed_rows": sum(counts_list), "active_experts": sum(1 for c in counts_list if c),
           "graph_ms": ms, "gbps": touched / ms / 1e6}
    if layers:
        row.update(layers_case(w, counts_list, max_m, gen, reps, layers, stream))
    if diagnose:
        # Where the time goes: the same call GRAPH_CALLS times in one graph
        # (per call: the kernel with the launch gaps of a graph, weights
        # L2-warm as above), and the one-call graph with every count zero
        # (launch, CTA start and unit table, no unit: the floor).
        row["in_graph_ms"] = time_ms(capture([desc] * GRAPH_CALLS, stream).replay, reps) / GRAPH_CALLS
        counts.zero_()
        row["floor_ms"] = time_ms(capture([desc], stream).replay, reps)
    return row


def layer_plan(experts, span, weight_bytes, free_bytes, built, layers):
    """(calls, weight tensors, expert sets per tensor) of the layers graph: a
    call's rows lie on experts [0, span), so one tensor holds experts // span
    disjoint sets; tensors are added (at most LAYER_BYTES of them, and what
    free memory holds beside LAYER_RESERVE) until the calls reach `layers`."""
    sets = max(1, experts // span)
    room = built + int(max(0.0, free_bytes - LAYER_RESERVE) // weight_bytes)
    fit = max(1, built, min(int(LAYER_BYTES // weight_bytes), room))
    tensors = min(-(-layers // sets), fit)
    return min(layers, tensors * sets), tensors, sets


def layers_case(w, counts, max_m, gen, reps, layers, stream):
    """Per-call time in one graph of distinct masked calls (the module docstring
    says how they are made), and the last call's D against the same call alone."""
    span = max(e for e, c in enumerate(counts) if c) + 1
    calls, tensors, sets = layer_plan(w.experts, span, w.nbytes(), torch.cuda.mem_get_info()[0],
                                      len(w.tensors), layers)
    base = torch.tensor(counts, dtype=torch.int32)
    descs, inputs = [], []
    for call in range(calls):
        tensor, expert_set = divmod(call, sets)
        call_counts = torch.roll(base, expert_set * span).cuda()
        a = random_fp8((w.experts * max_m, w.k), gen)
        a_scale = torch.rand(w.experts * max_m, device="cuda", generator=gen) * 0.01 + 0.001
        d = torch.full((w.experts * max_m, w.n), float("nan"), dtype=torch.bfloat16, device="cuda")
        descs.append(grouped_desc(MASKED, w, max_m, call_counts, a, a_scale, d, w.tensor(tensor, gen)))
        inputs.append((call_counts, a, a_scale, d, tensor))
    ms = time_ms(capture(descs, stream).replay, reps) / calls
    row = {"layers": calls, "layers_weight_tensors": tensors, "layers_expert_sets": sets,
           "layers_graph_ms": ms, "layers_gbps": touched_bytes(w, counts) / ms / 1e6}
    # The check: the last call (its own tensor and expert set where there are
    # several) run alone into a NaN-poisoned D, its valid rows against the graph's.
    call_counts, a, a_scale, d, tensor = inputs[-1]
    ref = torch.full_like(d, float("nan"))
    alone = grouped_desc(MASKED, w, max_m, call_counts, a, a_scale, ref, w.tensor(tensor, gen))
    check(LIB.fp8kit_grouped_gemm(alone, None, stream_handle()))
    torch.cuda.synchronize()
    valid = (torch.arange(max_m, device="cuda")[None, :] < call_counts[:, None]).flatten()
    got, want = d[valid].float(), ref[valid].float()
    err = float((got - want).abs().max() / want.abs().max().clamp_min(1e-30))
    row["layers_check_rel_err"] = err
    row["layers_check_ok"] = err <= LAYER_CHECK_TOL  # False for NaN: a row either run left unwritten
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
    global LIB, OPTIONS, FAST_ACCUM
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default=os.path.join(here, "grouped_shapes.json"))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--quick", action="store_true", help="fewer token counts and repetitions")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--decode-only", action="store_true", help="only the masked decode cases")
    ap.add_argument("--prefill-only", action="store_true", help="only the contiguous prefill cases")
    ap.add_argument("--tokens", type=int, nargs="+", help="token counts of the prefill cases (default: the suite's)")
    ap.add_argument("--decode-max-m", type=int, nargs="+", help="slab rows of the decode cases (default: the suite's)")
    ap.add_argument("--pdl", choices=["env", "off", "on", "both"], default="env",
                    help="decode cases with FP8KIT_PDL as set, unset, =1, or both in turn")
    ap.add_argument("--layers", type=int, default=LAYERS,
                    help="calls in the decode rows' graph of distinct layers (0: only the one-call graph)")
    ap.add_argument("--fast-accum", action="store_true",
                    help="prefill cases with FAST accumulation in fp8kit, its dense loop and torch (use_fast_accum)")
    ap.add_argument("--diagnose", action="store_true",
                    help="decode rows also time the call %d times in one graph and the all-zero-counts floor"
                    % GRAPH_CALLS)
    args = ap.parse_args()
    FAST_ACCUM = args.fast_accum
    OPTIONS = Options().pack(fast_accum=True) if FAST_ACCUM else None
    LIB = load_library()
    suite = json.load(open(args.suite))
    gen = torch.Generator(device="cuda").manual_seed(2026)
    cpu_gen = torch.Generator().manual_seed(2026)
    tokens_list = args.tokens or (suite["tokens"][::2] + suite["tokens"][-1:] if args.quick else suite["tokens"])
    reps = 3 if args.quick else args.reps
    pdl_settings = {"env": [None], "off": ["0"], "on": ["1"], "both": ["0", "1"]}[args.pdl]
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "accumulation": "fast" if FAST_ACCUM else "promoted",
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
            for tokens in [] if args.prefill_only else suite["decode_tokens"]:
                for max_m in args.decode_max_m or [suite["decode_max_m"]]:
                    for pdl in pdl_settings:
                        if pdl is not None:
                            os.environ["FP8KIT_PDL"] = pdl
                        row = decode_case(w, tokens, model["top_k"], max_m, gen, cpu_gen, max(reps, 5), args.diagnose,
                                          args.layers)
                        row.update(model=model["name"], gemm=gemm["name"], n=w.n, k=w.k, experts=w.experts,
                                   max_m=max_m, pdl=os.environ.get("FP8KIT_PDL", "") == "1")
                        row["copy_fraction"] = row["gbps"] / result["copy_roof_gbps"]
                        if "layers_gbps" in row:
                            row["layers_copy_fraction"] = row["layers_gbps"] / result["copy_roof_gbps"]
                        result["decode"].append(row)
                        print(json.dumps(row), flush=True)
            del w
            torch.cuda.empty_cache()
    cases = result["cases"]
    both = [c for c in cases if "torch_tflops" in c]
    small = [c for c in cases if "loop_tflops" in c and c["routed_rows"] / max(1, c["active_experts"]) <= 64]
    decode = result["decode"]
    result["summary"] = {"decode_copy_fraction_geomean": geomean([c["copy_fraction"] for c in decode])}
    layered = [c for c in decode if "layers_copy_fraction" in c]
    if layered:
        result["summary"].update({
            "decode_layers_copy_fraction_geomean": geomean([c["layers_copy_fraction"] for c in layered]),
            "decode_layers_check_failures": sum(1 for c in layered if not c["layers_check_ok"]),
            "decode_layers_calls_min": min(c["layers"] for c in layered)})
    by_variant = {}  # (max_m, PDL) -> its rows
    for c in decode:
        by_variant.setdefault((c["max_m"], c["pdl"]), []).append(c)
    if len(by_variant) > 1 or args.diagnose:
        summary = result["summary"]["decode_by_variant"] = {}
        for (m, p), rows in sorted(by_variant.items()):
            v = summary[f"max_m={m},pdl={int(p)}"] = {"copy_fraction_geomean": geomean([c["copy_fraction"] for c in rows])}
            if layered:
                v["layers_copy_fraction_geomean"] = geomean([c.get("layers_copy_fraction") for c in rows])
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
