#!/usr/bin/env python3
"""NVFP4 soak: random fp8kit NVFP4 calls for N minutes on one GPU, then a report.

    python3 scripts/nvfp4_soak.py --minutes 10 [--seed S] [--check-every 300] [--json out.json]
                                  [--progress running.json]

Each step draws one of: quantise (bf16 / f16, swizzled or linear, with or without
RMSNorm), dense W4A4 or W4A16 GEMM (odd M, N and K at the smallest legal
granules: K % 32, 16-byte rows), grouped GEMM (masked or contiguous, experts of
decode or prefill size, ragged and
empty experts), or a CUDA graph of a few GEMMs replayed with new inputs. Every
`--check-every` calls one result is compared with a float64 reference of the
dequantised operands; device memory (torch's allocator and cudaMemGetInfo) is
sampled every few seconds. The report gives calls per kind, errors (fp8kit.Error
or CUDA errors, with the first message), wrong results, the memory drift over the
whole run and its second half, and the sampled device memory.
`--progress` rewrites the report so far (atomically, "finished": false) at every
memory sample, so a soak that outlives its terminal can be read part-way.
Exit status 0 only with no error and no wrong result.

Needs torch with CUDA and the fp8kit package (PYTHONPATH=python, FP8KIT_LIBRARY=
build/src/libfp8kit.so in a source tree).
"""

import argparse
import json
import os
import random
import sys
import time

import torch

import fp8kit
from fp8kit import compat

E2M1 = torch.tensor([0, 0.5, 1, 1.5, 2, 3, 4, 6], dtype=torch.float64)
GLOBAL_SCALE = 448.0 * 6 / 4  # maps |x| ~ 4 to the top of the E4M3 scale range
BOUND_REL, BOUND_ABS = 2 ** -7, 1e-3  # bf16 output rounding; accumulation, relative to max |ref|
MEMORY_EVERY_S = 5.0
MIB = 1 << 20


def swizzled_index(rows, k, device):
    kb4 = -(-(k // 16) // 4) * 4
    r = torch.arange(rows, device=device).view(-1, 1)
    kb = torch.arange(k // 16, device=device).view(1, -1)
    return ((r // 128) * (kb4 // 4) + kb // 4) * 512 + (r % 32) * 16 + ((r % 128) // 32) * 4 + kb % 4


def dequant(q, s, k, swizzled=True):
    rows = q.shape[0]
    codes = torch.stack([(q & 0xF).long(), (q >> 4).long()], dim=-1).reshape(rows, k)
    vals = E2M1.to(q.device)[codes & 7] * torch.where(codes >= 8, -1.0, 1.0).double()
    flat = s.contiguous().view(torch.uint8).flatten()
    idx = (swizzled_index(rows, k, q.device) if swizzled
           else torch.arange(rows * (k // 16), device=q.device).view(rows, -1))
    scales = flat[idx].view(torch.float8_e4m3fn).double()
    return vals * scales.repeat_interleave(16, dim=1)


def close(got, ref):
    err = (got.double() - ref).abs()
    if ref.numel() == 0:  # no rows (every expert empty): nothing to compare
        return True, 0.0
    tol = BOUND_REL * ref.abs() + BOUND_ABS * max(ref.abs().max().item(), 1.0)
    return bool((err <= tol).all()), err.max().item() if err.numel() else 0.0


class Soak:
    def __init__(self, rng, check_every):
        self.rng = rng
        self.check_every = check_every
        self.calls, self.errors, self.wrong, self.checked = {}, 0, 0, 0
        self.first_error = None
        self.worst = 0.0
        self.since_check = 0

    def due(self):
        self.since_check += 1
        if self.since_check >= self.check_every:
            self.since_check = 0
            return True
        return False

    def note(self, kind):
        self.calls[kind] = self.calls.get(kind, 0) + 1

    def verdict(self, ok, worst, what):
        self.checked += 1
        self.worst = max(self.worst, worst)
        if not ok:
            self.wrong += 1
            if self.first_error is None:
                self.first_error = f"wrong result: {what} (max error {worst:.3g})"

    def weights(self, n, k):
        x = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        g = torch.tensor([GLOBAL_SCALE], device="cuda")
        return compat.scaled_fp4_quant(x, g)

    def shape(self):
        r = self.rng
        m = r.choice([1, 2, 3, 7, 9, 12, 16, 17, 31, 33, 64, 127, 129, 257, 513])
        n = 8 * r.randint(1, 160)           # 16-byte output rows (bf16)
        k = 32 * r.randint(1, 48)           # the GEMM's K granule
        return m, n, k

    def quantize(self):
        m, _, k = self.shape()
        k = 16 * self.rng.randint(1, 96)     # the quantiser's granule
        dtype = self.rng.choice([torch.bfloat16, torch.float16])
        swizzled = self.rng.random() < 0.7
        x = torch.randn(m, k, device="cuda", dtype=dtype)
        w = torch.ones(k, device="cuda", dtype=dtype) if self.rng.random() < 0.3 else None
        g = torch.tensor([GLOBAL_SCALE], device="cuda")
        q, s = fp8kit.nvfp4_quantize(x, g, swizzled, w)
        self.note("quantize")
        if self.due() and w is None:
            back = dequant(q, s, k, swizzled) / GLOBAL_SCALE
            # A static global scale saturates: past E2M1_MAX x E4M3_MAX / GLOBAL_SCALE
            # (4.0) the quantiser clamps by design, so that is the value to compare.
            limit = 6.0 * 448.0 / GLOBAL_SCALE
            ref = x.double().clamp(-limit, limit)
            amax = ref.view(m, k // 16, 16).abs().amax(-1).repeat_interleave(16, dim=1)
            ok = bool(((back - ref).abs() <= 0.3 * amax + 1e-6).all())
            self.verdict(ok, 0.0, f"quantize {m}x{k} {dtype} swizzled={swizzled}")

    def dense(self):
        m, n, k = self.shape()
        qb, sb = self.weights(n, k)
        alpha = torch.tensor([1.0 / k], device="cuda")
        if self.rng.random() < 0.5:
            a = torch.randn(m, k, device="cuda", dtype=self.rng.choice([torch.bfloat16, torch.float16]))
            d = fp8kit.nvfp4_mm(a, qb, None, sb, alpha)
            self.note("w4a16")
            if self.due():
                self.verdict(*close(d, a.double() @ dequant(qb, sb, k).t() / k), f"w4a16 {m}x{n}x{k}")
        else:
            qa, sa = self.weights(m, k)
            d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            compat.cutlass_scaled_fp4_mm(d, qa, qb, sa, sb, alpha)
            self.note("w4a4")
            if self.due():
                self.verdict(*close(d, dequant(qa, sa, k) @ dequant(qb, sb, k).t() / k), f"w4a4 {m}x{n}x{k}")

    def grouped(self):
        r = self.rng
        e = r.randint(1, 12)
        n, k = 8 * r.randint(1, 64), 32 * r.randint(1, 16)
        # Decode-sized experts, or prefill-sized ones (from 20 rows per expert
        # Hopper's host sends a grouped problem to the wgmma grouped kernel),
        # ragged and some empty.
        sizes = [0, 20, 21, 40, 64, 65, 129, 257] if r.random() < 0.3 else [0, 0, 1, 3, 8, 16, 33]
        counts = [r.choice(sizes) for _ in range(e)]
        b, bs = [], []
        for _ in range(e):
            q, s = self.weights(n, k)
            b.append(q), bs.append(s.view(torch.uint8).flatten())
        b, bs = torch.stack(b), torch.cat(bs)
        alpha = torch.full((e,), 1.0 / k, device="cuda")
        per = bs.numel() // e
        if r.random() < 0.5:
            max_m = max(1, max(counts))
            a = torch.randn(e, max_m, k, device="cuda", dtype=torch.bfloat16)
            d = fp8kit.nvfp4_grouped_mm(a, b, None, bs, alpha, torch.tensor(counts, device="cuda",
                                                                             dtype=torch.int32))
            self.note("grouped_masked")
            if self.due():
                for i, c in enumerate(counts):
                    ref = a[i, :c].double() @ dequant(b[i], bs[i * per:(i + 1) * per], k).t() / k
                    self.verdict(*close(d[i, :c], ref), f"grouped masked expert {i} of {counts}")
        else:
            t = sum(counts)
            a = torch.randn(max(t, 1), k, device="cuda", dtype=torch.bfloat16)[:t]
            ends = torch.tensor(counts, device="cuda", dtype=torch.int32).cumsum(0).to(torch.int32)
            d = fp8kit.nvfp4_grouped_mm(a, b, None, bs, alpha, ends)
            self.note("grouped_contiguous")
            if self.due():
                start = 0
                for i, c in enumerate(counts):
                    ref = a[start:start + c].double() @ dequant(b[i], bs[i * per:(i + 1) * per], k).t() / k
                    self.verdict(*close(d[start:start + c], ref), f"grouped contiguous expert {i} of {counts}")
                    start += c

    def graph(self):
        m, n, k = self.rng.choice([1, 4, 16]), 8 * self.rng.randint(8, 128), 32 * self.rng.randint(4, 64)
        layers = [self.weights(n, k) for _ in range(4)]
        alpha = torch.tensor([1.0 / k], device="cuda")
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        for q, s in layers:
            fp8kit.nvfp4_mm(x, q, None, s, alpha)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            outs = [fp8kit.nvfp4_mm(x, q, None, s, alpha) for q, s in layers]
        for _ in range(self.rng.randint(2, 8)):
            x.copy_(torch.randn_like(x))
            g.replay()
            self.note("graph_replay")
        if self.due():
            for (q, s), out in zip(layers, outs):
                self.verdict(*close(out, x.double() @ dequant(q, s, k).t() / k), f"graph {m}x{n}x{k}")

    def step(self):
        kind = self.rng.choices([self.quantize, self.dense, self.grouped, self.graph], weights=[3, 5, 3, 1])[0]
        try:
            kind()
        except (fp8kit.Error, RuntimeError) as e:  # RuntimeError: a CUDA error surfacing in torch
            self.errors += 1
            if self.first_error is None:
                self.first_error = f"{kind.__name__}: {e}"


def memory():
    free, total = torch.cuda.mem_get_info()
    return {"allocated": torch.cuda.memory_allocated(), "reserved": torch.cuda.memory_reserved(),
            "device_used": total - free}


def report_of(seed, minutes, soak, start_mem, samples, end_mem, elapsed_s, finished):
    return {
        "seed": seed, "minutes": minutes, "elapsed_s": round(elapsed_s, 1), "finished": finished,
        "calls": dict(soak.calls), "total_calls": sum(soak.calls.values()),
        "errors": soak.errors, "wrong_results": soak.wrong, "results_checked": soak.checked,
        "first_error": soak.first_error,
        "memory_drift_bytes": {key: end_mem[key] - start_mem[key] for key in end_mem},
        "memory_peak_device_used": max([s["device_used"] for s in samples] + [end_mem["device_used"]]),
        # A leak grows with the calls; the allocator's one-time steps (a larger shape drawn
        # late) do not: the second half's drift and the series tell them apart.
        "memory_drift_second_half_bytes": {key: end_mem[key] - samples[len(samples) // 2][key]
                                           for key in end_mem} if samples else None,
        "memory_device_used_mib": [round(s["device_used"] / MIB, 1) for s in samples],
        "device": torch.cuda.get_device_name(), "capability": list(torch.cuda.get_device_capability()),
    }


def write_json(path, report):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(report, f, indent=2)
    os.replace(tmp, path)  # a reader never sees half a report


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--check-every", type=int, default=300)
    p.add_argument("--json", default=None, help="write the report here too")
    p.add_argument("--progress", default=None, help="rewrite the report so far here at every memory sample")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("nvfp4_soak: no CUDA GPU", file=sys.stderr)
        return 77
    seed = args.seed if args.seed is not None else random.randrange(2 ** 31)
    torch.manual_seed(seed)
    soak = Soak(random.Random(seed), args.check_every)
    # Warm up every kind once, then take the memory baseline.
    for kind in (soak.quantize, soak.dense, soak.grouped, soak.graph):
        kind()
    torch.cuda.synchronize()
    start_mem, samples = memory(), []
    t0 = last = time.time()
    while time.time() - t0 < args.minutes * 60:
        soak.step()
        if time.time() - last >= MEMORY_EVERY_S:
            torch.cuda.synchronize()
            samples.append(memory())
            last = time.time()
            if args.progress:
                write_json(args.progress,
                           report_of(seed, args.minutes, soak, start_mem, samples, samples[-1], last - t0, False))
    torch.cuda.synchronize()
    end_mem = memory()
    report = report_of(seed, args.minutes, soak, start_mem, samples, end_mem, time.time() - t0, True)
    print(json.dumps(report, indent=2))
    for path in (args.json, args.progress):
        if path:
            write_json(path, report)
    return 0 if soak.errors == 0 and soak.wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
