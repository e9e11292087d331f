#!/usr/bin/env python3
"""fp8kit's block mode beside DeepGEMM's fp8_gemm_nt, on the same inputs in one process.

    FP8KIT_LIBRARY=build/src/libfp8kit.so PYTHONPATH=python:<DeepGEMM build> \
        python3 bench/deepgemm_beside.py [--json out.json] [--m 512,4096] [--warm-workers 16]
                                         [--protocol steady|bursty] [--print-configs]

D[M, N] bf16 = A[M, K] e4m3 . B[N, K]^T e4m3 with 1x128 activation scales and
128x128 weight scales (f32), the one block recipe both libraries take on SM90.
One scale tensor serves both: scale_a is [M, K/128] with strides (1, M), which is
fp8kit's layout and DeepGEMM's MN-major TMA-aligned one when M % 4 == 0 (so neither
side copies it); scale_b is [N/128, K/128] row-major for both.

DeepGEMM is not part of fp8kit: this script only imports `deep_gemm` when it is on
the path and otherwise writes a "skipped" record. Its JIT compiles one kernel per
shape class on first use, so the shapes are first run once each in parallel worker
processes (--warm-workers) that fill its cache (DG_JIT_CACHE_DIR, set under /tmp
when unset); the timed process then only loads the cubins.

Each shape: both results are checked against each other and against a float64
reference on a sample of rows (dequantised FP8 values, so the reference is exact
up to float64 rounding). Times: CUDA events around a CUDA graph of R calls that
rotate through input sets larger than the 60 MB L2, replayed after warm-up, median
of the replays, divided by R (kernel time without host overhead); the same for
back-to-back eager calls (what a caller without graphs sees). ratio = DeepGEMM
time / fp8kit time (> 1: fp8kit faster). That is the steady protocol. --protocol
bursty times as DeepGEMM's own tests do (deep_gemm/testing/bench.py): before each
call an 8 GB memset ("chill time", which lets the clocks recover and flushes the
L2), CUDA events around the call alone, the median over the calls; its figures
are the "bursty" mode. --print-configs sets DG_PRINT_CONFIGS=1 and keeps what
DeepGEMM prints about its launch (BLOCK_N, cluster, stages) for each shape's
first call, as the entry's "deepgemm_config".
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

BLOCK = 128
L2_BYTES = 60 * 2**20
ROTATE_BYTES = 2 * L2_BYTES
MAX_SETS = 16
GRAPH_MIN_CALLS = 20
REPLAYS = 7
BURSTY_FLUSH_BYTES = 8 * 10**9  # DeepGEMM's chill memset (its bench's flush_l2_size: 8e9 bytes of int32)
BURSTY_CALLS = 30
SAMPLE_ROWS = 64
# |D - ref| <= REL_TOL |ref| + MAG_TOL sum_k |a_k b_k| (bf16 output rounding, then f32 accumulation).
REL_TOL = 2.0**-7
MAG_TOL = 2.0**-10
DEFAULT_MODELS = ("DeepSeek-V3", "Llama-3-8B/gate_up_proj")
DEFAULT_M = (512, 4096)


def ceil_div(a, b):
    return -(-a // b)


def select_shapes(path, models, ms):
    """[(m, n, k, label)]: every chosen (N, K) pair at every M, then the suite's first peak shape."""
    with open(path) as f:
        suite = json.load(f)
    shapes = []
    for nk in suite["nk"]:
        if any(sel == nk["model"] or sel == f"{nk['model']}/{nk['layer']}" for sel in models):
            shapes += [(m, nk["n"], nk["k"], f"{nk['model']} {nk['layer']}") for m in ms]
    peak = suite["peak"][0]
    shapes.append((peak["m"], peak["n"], peak["k"], "peak"))
    return shapes


def fp8_values(shape, gen):
    """N(0, 1) quantised to e4m3, a few large ones, as fp8kit's tests draw them."""
    x = torch.randn(shape, device="cuda", generator=gen)
    x[torch.rand(shape, device="cuda", generator=gen) < 0.02] *= 50
    return x.clamp(-400, 400).to(torch.float8_e4m3fn)


def make_set(m, n, k, gen):
    """One input set: a, b, scale_a [M, kb] with strides (1, M), scale_b [nb, kb] row-major."""
    kb, nb = ceil_div(k, BLOCK), ceil_div(n, BLOCK)
    scale_a = (torch.rand((kb, m), device="cuda", generator=gen) + 0.5).t()
    scale_b = torch.rand((nb, kb), device="cuda", generator=gen) / 64 + 2**-7
    return {"a": fp8_values((m, k), gen), "b": fp8_values((n, k), gen), "sa": scale_a, "sb": scale_b}


def set_count(m, n, k):
    return max(1, min(MAX_SETS, ceil_div(ROTATE_BYTES, m * k + n * k + 2 * m * n)))


def deepgemm_call(dg, s, out):
    dg.fp8_gemm_nt((s["a"], s["sa"]), (s["b"], s["sb"]), out, disable_ue8m0_cast=True)
    return out


def fp8kit_call(fk, s, out):
    """fp8kit.scaled_mm allocates its result; out is unused (same signature as deepgemm_call)."""
    return fk.scaled_mm(s["a"], s["b"], s["sa"], s["sb"], out_dtype=torch.bfloat16)


def reference_rows(s, rows):
    """float64 D[rows, :] and sum_k |a b| (the magnitude rounding errors scale with)."""
    a = s["a"][rows].to(torch.float64) * s["sa"][rows].to(torch.float64).repeat_interleave(BLOCK, 1)[:, :s["a"].shape[1]]
    sb = s["sb"].to(torch.float64).repeat_interleave(BLOCK, 0)[:s["b"].shape[0]]
    b = s["b"].to(torch.float64) * sb.repeat_interleave(BLOCK, 1)[:, :s["b"].shape[1]]
    return a @ b.T, a.abs() @ b.abs().T


def check(s, d_dg, d_fk):
    """Worst error of each result over the sample rows, in units of the tolerance (<= 1 passes)."""
    m = s["a"].shape[0]
    rows = torch.linspace(0, m - 1, min(m, SAMPLE_ROWS), device="cuda").round().long()
    ref, mag = reference_rows(s, rows)
    bound = REL_TOL * ref.abs() + MAG_TOL * mag + torch.finfo(torch.float64).tiny
    worst = {name: ((d[rows].to(torch.float64) - ref).abs() / bound).max().item()
             for name, d in (("deepgemm", d_dg), ("fp8kit", d_fk))}
    diff = (d_dg.float() - d_fk.float()).abs().max().item()
    scale = d_fk.float().abs().max().item()
    return {"deepgemm_err_over_tol": worst["deepgemm"], "fp8kit_err_over_tol": worst["fp8kit"],
            "max_abs_diff_between": diff, "max_abs_fp8kit": scale,
            "pass": worst["deepgemm"] <= 1 and worst["fp8kit"] <= 1}


def time_graph(call, lib, sets, outs, calls):
    """Median seconds per call of a CUDA graph of `calls` calls rotating through the sets."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(len(sets)):
            call(lib, sets[i], outs[i])
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(calls):
            call(lib, sets[i % len(sets)], outs[i % len(sets)])
    return median_replay(graph.replay, calls)


def time_eager(call, lib, sets, outs, calls):
    """Median seconds per call of `calls` back-to-back eager calls."""
    def loop():
        for i in range(calls):
            call(lib, sets[i % len(sets)], outs[i % len(sets)])
    return median_replay(loop, calls)


def median_replay(run, calls):
    run()
    run()
    times = []
    for _ in range(REPLAYS):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3 / calls)
    return statistics.median(times)


def time_bursty(call, lib, sets, outs, flush):
    """Median seconds of one call after an 8 GB memset, as DeepGEMM's tests time."""
    call(lib, sets[0], outs[0])
    times = []
    for i in range(BURSTY_CALLS):
        flush.zero_()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call(lib, sets[i % len(sets)], outs[i % len(sets)])
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(times)


def time_both(dg, fk, sets, outs, calls, flush):
    """{mode: {library: seconds}}: steady (flush None) graph and eager, graph left out for a
    library whose capture fails; bursty (flush: the memset's buffer) one mode."""
    result = {"bursty": {}} if flush is not None else {"graph": {}, "eager": {}}
    for name, call, lib in (("deepgemm", deepgemm_call, dg), ("fp8kit", fp8kit_call, fk)):
        if flush is not None:
            result["bursty"][name] = time_bursty(call, lib, sets, outs, flush)
            continue
        try:
            result["graph"][name] = time_graph(call, lib, sets, outs, calls)
        except RuntimeError as e:  # capture refused: keep the eager figure only
            result.setdefault("graph_errors", {})[name] = str(e).splitlines()[0]
            torch.cuda.synchronize()
        result["eager"][name] = time_eager(call, lib, sets, outs, calls)
    return result


def captured_stdout(fn):
    """fn()'s result and what it wrote to file descriptor 1 (DeepGEMM prints from C++)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+") as f:
        os.dup2(f.fileno(), 1)
        try:
            result = fn()
            torch.cuda.synchronize()
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        return result, f.read()


def run_shape(dg, fk, m, n, k, seed, flush=None):
    """One shape: checks and timings as a JSON-ready dict (flush: bursty, see time_both)."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    sets = [make_set(m, n, k, gen) for _ in range(set_count(m, n, k))]
    outs = [torch.empty((m, n), device="cuda", dtype=torch.bfloat16) for _ in sets]
    d_dg, printed = captured_stdout(lambda: deepgemm_call(dg, sets[0], outs[0]).clone())
    d_fk = fp8kit_call(fk, sets[0], None)
    torch.cuda.synchronize()
    entry = {"m": m, "n": n, "k": k, "sets": len(sets), "check": check(sets[0], d_dg, d_fk)}
    if printed.strip():
        entry["deepgemm_config"] = printed.strip().splitlines()
    calls = max(GRAPH_MIN_CALLS, len(sets))
    times = time_both(dg, fk, sets, outs, calls, flush)
    flop = 2.0 * m * n * k
    for mode in [x for x in ("graph", "eager", "bursty") if x in times]:
        t = times[mode]
        entry[mode] = {f"{lib}_us": sec * 1e6 for lib, sec in t.items()}
        entry[mode].update({f"{lib}_tflops": flop / sec / 1e12 for lib, sec in t.items()})
        if len(t) == 2:
            entry[mode]["ratio"] = t["deepgemm"] / t["fp8kit"]
    if "graph_errors" in times:
        entry["graph_errors"] = times["graph_errors"]
    return entry


def warm_one(dg, m, n, k):
    """Compile (or load) DeepGEMM's kernel for one shape: one call on one input set."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    s = make_set(m, n, k, gen)
    out = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
    start = time.time()
    deepgemm_call(dg, s, out)
    torch.cuda.synchronize()
    print(f"warm {m}x{n}x{k}: {time.time() - start:.1f} s", flush=True)


def warm_all(args, shapes):
    """Run each shape once in its own process, `workers` at a time, to fill DeepGEMM's JIT
    cache. Returns {index: return code}; a negative code is the signal that ended it."""
    codes, running, pending = {}, {}, list(range(len(shapes)))
    deadline = time.time() + args.warm_seconds
    base = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "--suite", args.suite,
            "--m", args.m, "--models", args.models]
    while (pending or running) and time.time() < deadline:
        while pending and len(running) < args.warm_workers:
            i = pending.pop(0)
            running[i] = subprocess.Popen(base + ["--warm-only", str(i)])
        for i, proc in list(running.items()):
            if proc.poll() is not None:
                codes[i] = proc.returncode
                del running[i]
        if any(code < 0 for code in codes.values()):  # a crash: every other worker would crash too
            break
        time.sleep(0.2)
    for i, proc in running.items():
        proc.kill()
        codes[i] = "killed"
    return codes


def versions(dg, fk):
    return {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "deepgemm": getattr(dg, "__version__", "?"), "deepgemm_path": os.path.dirname(dg.__file__),
            "deepgemm_jit_cache": os.environ.get("DG_JIT_CACHE_DIR"),
            "fp8kit_library": fk.library_path(), "fp8kit_targets": fk.build_targets()}


def summary(entries):
    out = {}
    for mode in ("graph", "eager", "bursty"):
        ratios = [e[mode]["ratio"] for e in entries if "ratio" in e.get(mode, {})]
        if ratios:
            out[f"{mode}_geomean_ratio"] = math.exp(sum(map(math.log, ratios)) / len(ratios))
            out[f"{mode}_shapes"] = len(ratios)
    out["all_checks_pass"] = all(e["check"]["pass"] for e in entries if "check" in e)
    out["shapes_not_run"] = sum(1 for e in entries if "check" not in e)
    return out


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--suite", default=os.path.join(here, "shapes.json"))
    p.add_argument("--models", default=",".join(DEFAULT_MODELS),
                   help="comma-separated 'model' or 'model/layer' names from the suite's nk list")
    p.add_argument("--m", default=",".join(map(str, DEFAULT_M)), help="comma-separated M values")
    p.add_argument("--json", help="write the results here")
    p.add_argument("--warm-workers", type=int, default=0, help="parallel JIT warm-up processes (0: none)")
    p.add_argument("--warm-seconds", type=float, default=240.0, help="stop warming after this long")
    p.add_argument("--warm-exit", action="store_true", help="exit after the warm-up (time in a later run)")
    p.add_argument("--warm-only", type=int, help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--protocol", choices=("steady", "bursty"), default="steady",
                   help="steady: graph and eager back to back; bursty: an 8 GB memset before each call")
    p.add_argument("--print-configs", action="store_true",
                   help="DG_PRINT_CONFIGS=1: keep DeepGEMM's printed launch configuration per shape")
    return p.parse_args()


def write(args, record):
    text = json.dumps(record, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(text)


def main():
    args = parse_args()
    os.environ.setdefault("DG_JIT_CACHE_DIR", "/tmp/deepgemm-jit-cache")
    if args.print_configs:
        os.environ["DG_PRINT_CONFIGS"] = "1"
    shapes = select_shapes(args.suite, args.models.split(","), [int(m) for m in args.m.split(",")])
    try:
        import deep_gemm as dg
    except ImportError as e:
        write(args, {"skipped": f"deep_gemm is not importable ({e}); build DeepGEMM and put it on PYTHONPATH"})
        return 0
    if args.warm_only is not None:
        warm_one(dg, *shapes[args.warm_only][:3])
        return 0
    import fp8kit as fk
    record = {"versions": versions(dg, fk), "protocol": args.protocol, "shapes": []}
    if args.warm_workers:
        start = time.time()
        codes = warm_all(args, shapes)
        record["warm"] = {"seconds": time.time() - start, "codes": {str(i): c for i, c in codes.items()}}
        if any(isinstance(c, int) and c < 0 for c in codes.values()):
            record["failed"] = "a DeepGEMM warm-up process died of a signal; see its output"
            write(args, record)
            return 1
        if args.warm_exit:
            write(args, record)
            return 0 if all(c == 0 for c in codes.values()) else 1
    warm_codes = record.get("warm", {}).get("codes", {})
    flush = (torch.empty(BURSTY_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
             if args.protocol == "bursty" else None)
    for i, (m, n, k, label) in enumerate(shapes):
        if warm_codes.get(str(i), 0) != 0:
            record["shapes"].append({"m": m, "n": n, "k": k, "label": label,
                                     "skipped": f"warm-up ended with {warm_codes[str(i)]}"})
            continue
        try:
            entry = run_shape(dg, fk, m, n, k, args.seed + i, flush)
        except RuntimeError as e:  # DeepGEMM refuses a shape with a RuntimeError (its host asserts)
            record["shapes"].append({"m": m, "n": n, "k": k, "label": label, "error": str(e)[:500]})
            continue
        entry["label"] = label
        record["shapes"].append(entry)
        g = entry["bursty" if flush is not None else "graph"]
        print(f"{m:5d} x {n:5d} x {k:5d}  DeepGEMM {g.get('deepgemm_tflops', 0):7.1f}  fp8kit "
              f"{g.get('fp8kit_tflops', 0):7.1f} TFLOP/s  ratio {g.get('ratio', float('nan')):.3f}  "
              f"check {'ok' if entry['check']['pass'] else 'FAIL'}", file=sys.stderr, flush=True)
    record["summary"] = summary(record["shapes"])
    write(args, record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
