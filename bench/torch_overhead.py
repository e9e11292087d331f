"""Eager per-call cost of fp8kit's PyTorch entry points beside torch._scaled_mm's,
on the same small GEMM (docs/python.md, "Host overhead").

    PYTHONPATH=python FP8KIT_LIBRARY=build/src/libfp8kit.so python3 bench/torch_overhead.py [--json out.json]

Each entry: the mean wall time per call over --calls back-to-back calls,
synchronised once at the end, and the mean time to return to Python (the
host's submission cost, without the final synchronisation); the median of
--rounds such means, the entries interleaved round by round, after a warm-up
of every entry and a second of GPU work that brings the clocks up. At
M = 16, N = K = 4096 the GPU time of the GEMM itself is a few microseconds, so
the submission cost is what differs between the entry points; N = K = 256 makes
the GPU time negligible.
"""

import argparse
import json
import time

import torch

import fp8kit
from fp8kit import _lib, compat


def _time(fn, calls):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    return (t2 - t0) / calls * 1e6, (t1 - t0) / calls * 1e6


def _spin_up(seconds=1.0):
    """Busy GPU for a while, so the clocks are up before anything is timed."""
    x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        x @ x
        torch.cuda.synchronize()


def _measure(entries, calls, warmup, rounds):
    """Median over `rounds` of each entry's mean, the entries interleaved round by round."""
    for fn in entries.values():
        for _ in range(warmup):
            fn()
    samples = {name: [] for name in entries}
    for _ in range(rounds):
        for name, fn in entries.items():
            samples[name].append(_time(fn, calls))
    result = {}
    for name, pairs in samples.items():
        walls, submits = sorted(p[0] for p in pairs), sorted(p[1] for p in pairs)
        result[name] = {"wall_us": walls[len(walls) // 2], "submit_us": submits[len(submits) // 2]}
    return result


def _entries(m, n, k):
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    w = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    st, sw = torch.tensor(0.5, device="cuda"), torch.tensor(0.25, device="cuda")
    row_a, col_b = torch.rand(m, 1, device="cuda"), torch.rand(1, n, device="cuda")
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    d_ptr, st_ptr, sw_ptr = out.data_ptr(), st.data_ptr(), sw.data_ptr()
    stream = torch.cuda.current_stream().cuda_stream

    def bare_c():  # the C call alone, descriptor packed per call, no checks: the floor of any ctypes path
        _lib.gemm(m, n, k, a.data_ptr(), k, 0, w.data_ptr(), k, 0, d_ptr, n, 2, 1, st_ptr, 1, sw_ptr, 0, 2, stream)

    return {
        "torch._scaled_mm per-tensor": lambda: torch._scaled_mm(a, w.t(), scale_a=st, scale_b=sw,
                                                                out_dtype=torch.bfloat16),
        "torch._scaled_mm row-wise": lambda: torch._scaled_mm(a, w.t(), scale_a=row_a, scale_b=col_b,
                                                              out_dtype=torch.bfloat16),
        "fp8kit.scaled_mm per-tensor": lambda: fp8kit.scaled_mm(a, w, st, sw),
        "fp8kit.scaled_mm row-wise": lambda: fp8kit.scaled_mm(a, w, row_a, col_b),
        "torch.ops.fp8kit.scaled_mm per-tensor": lambda: torch.ops.fp8kit.scaled_mm(a, w, st, sw, None,
                                                                                    torch.bfloat16),
        "torch.ops.fp8kit.cutlass_scaled_mm (out) row-wise": lambda: torch.ops.fp8kit.cutlass_scaled_mm(
            out, a, w.t(), row_a, col_b, None),
        "fp8kit.compat.cutlass_scaled_mm row-wise": lambda: compat.cutlass_scaled_mm(a, w.t(), row_a, col_b,
                                                                                     torch.bfloat16),
        "fp8kit C call alone (no checks, no allocation)": bare_c,
        "fp8kit.quantize row": lambda: fp8kit.quantize(x, "row"),
        "torch.ops.fp8kit.quantize row": lambda: torch.ops.fp8kit.quantize(x, "row", torch.float8_e4m3fn, None,
                                                                           None, 1e-6, True),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=1000)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json")
    args = p.parse_args()
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "calls": args.calls,
               "library": fp8kit.library_path(), "shapes": {}}
    _spin_up()
    for m, n, k in [(16, 4096, 4096), (16, 256, 256)]:
        shape = f"{m}x{n}x{k}"
        results["shapes"][shape] = _measure(_entries(m, n, k), args.calls, args.warmup, args.rounds)
        for name, r in results["shapes"][shape].items():
            print(f"{shape:>12}  {name:<52} wall {r['wall_us']:7.2f} us  submit {r['submit_us']:7.2f} us")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
