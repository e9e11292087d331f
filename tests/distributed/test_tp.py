#!/usr/bin/env python3
"""fp8kit's tensor-parallel layers across processes, launched with torchrun:

    FP8KIT_LIBRARY=build/src/libfp8kit.so PYTHONPATH=python \
        torchrun --nproc-per-node 2 tests/distributed/test_tp.py            # NCCL, one GPU per rank
    ... torchrun --nproc-per-node 2 tests/distributed/test_tp.py --backend gloo   # every rank may share cuda:0

Every rank builds the same full weights and inputs (CPU generator, one seed), its
layers from them (from_full), and checks, for every scale mode (per tensor,
per-token x per-channel, 1x128 x 128x128 blocks), column-parallel (gathered and
not) and row-parallel (input split along K or full) layers and a column -> row
pair against (a) the float64 reference from the exact FP8 operands, within
docs/testing.md's bound, and (b) the one-GPU result (fp8kit.scaled_mm on the full
weight), within twice that bound. Prints SKIPPED and exits 0 when NCCL would need
more GPUs than there are. NVLink multicast is off (fp8kit.distributed.NO_MULTICAST_ENV).
The gloo backend on one GPU runs the split / gather / reduce logic with several
ranks; it is not the NCCL run across GPUs.
"""

import argparse
import os
import socket
import sys
from pathlib import Path

# tests/python: conftest (float64 reference, bound) and tp_fakes (CPU-generated operands).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import fp8kit  # noqa: E402
from fp8kit import distributed as tp  # noqa: E402
from conftest import BLOCK, assert_close, reference  # noqa: E402
from tp_fakes import ACT, cpu_fp8 as _fp8, weight_scale as _weight_scale  # noqa: E402
# (M, N, K) of the full layers: ragged M; N and K split on 128-blocks for 1, 2 or 4 ranks.
SHAPES = [(33, 1024, 1536), (1, 512, 1024), (130, 1536, 512)]


def _single_process_env():
    """torchrun's variables for a plain `python3 test_tp.py` (a world of one)."""
    if "RANK" in os.environ:
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))


class Checker:
    def __init__(self, rank, world, device):
        self.rank, self.world, self.device, self.cases = rank, world, device, 0

    def check(self, what, got, ref, mag, one_gpu, requantised=False):
        """got within the bound of the float64 reference of its own operands, and within
        twice that bound of one GPU's result; requantised: the TP input was quantised
        per rank, one GPU's from full rows, so the operands differ by up to one e4m3
        rounding (2^-4) each and the bound is 2^-2 of the magnitude."""
        assert_close(got, ref, mag)
        u = 2.0**-8
        diff = (got.double() - one_gpu.double()).abs()
        bound = 2.0**-2 * (ref.abs() + mag) if requantised else 2 * (u * ref.abs() + (1 + u) * u * mag)
        assert (diff <= bound + 1e-30).all(), f"{what}: far from one GPU's result"
        self.cases += 1
        if self.rank == 0:
            rel = float((diff / (mag + 1e-30)).max())
            same = "bit-identical" if torch.equal(got, one_gpu) else f"max |tp - 1 GPU| / magnitude = {rel:.3g}"
            print(f"ok  {what}: {same}", flush=True)


def _column(c, mode, m, n, k, gen):
    dev = c.device
    w, ws = _fp8((n, k), gen).to(dev), _weight_scale(mode, n, k, gen).to(dev)
    bias = torch.randn(n, generator=gen).to(torch.bfloat16).to(dev)
    x = torch.randn((m, k), generator=gen).to(torch.bfloat16).to(dev)
    q, s = fp8kit.quantize(x, ACT[mode])
    one = fp8kit.scaled_mm(q, w, s, ws, bias)
    ref, mag = reference(q, w, s, ws, bias)
    y = tp.ColumnParallelFp8Linear.from_full(w, ws, bias)(x)
    c.check(f"column {mode} M={m} N={n} K={k} gathered", y, ref, mag, one)
    part = tp.ColumnParallelFp8Linear.from_full(w, ws, bias, gather_output=False)(x)
    cols = slice(c.rank * n // c.world, (c.rank + 1) * n // c.world)
    c.check(f"column {mode} M={m} N={n} K={k} not gathered", part, ref[:, cols], mag[:, cols], one[:, cols])


def _rank_slices_reference(x, mode, w, ws, bias, world, quantize):
    """float64 reference of a row-parallel layer whose input slices are quantised per rank."""
    kp = x.shape[1] // world
    ref = mag = 0
    for r in range(world):
        q, s = quantize(x[:, r * kp:(r + 1) * kp], ACT[mode])
        ws_r = ws[:, r * kp // BLOCK:(r + 1) * kp // BLOCK] if mode == "block" else ws
        d, g = reference(q, w[:, r * kp:(r + 1) * kp], s, ws_r, bias if r == 0 else None)
        ref, mag = ref + d, mag + g
    return ref, mag


def _row(c, mode, m, n, k, gen, reduce_dtype):
    dev = c.device
    w, ws = _fp8((n, k), gen).to(dev), _weight_scale(mode, n, k, gen).to(dev)
    bias = torch.randn(n, generator=gen).to(torch.bfloat16).to(dev)
    x = torch.randn((m, k), generator=gen).to(torch.bfloat16).to(dev)
    q, s = fp8kit.quantize(x, ACT[mode])
    one = fp8kit.scaled_mm(q, w, s, ws, bias)
    ref, mag = reference(q, w, s, ws, bias)
    tag = f"row {mode} M={m} N={n} K={k} reduce {str(reduce_dtype).replace('torch.', '')}"
    full_in = tp.RowParallelFp8Linear.from_full(w, ws, bias, input_is_parallel=False, reduce_dtype=reduce_dtype)
    if reduce_dtype == torch.float32:
        c.check(f"{tag} full input", full_in(x), ref, mag, one)
    else:  # bf16 partials: each rounded to 8 bits before the sum, so the bound grows with the ranks
        y = full_in(x)
        err = (y.double() - ref).abs()
        assert (err <= (c.world + 1) * 2.0**-8 * (ref.abs() + mag) + 1e-30).all(), f"{tag}: outside bound"
        c.cases += 1
        if c.rank == 0:
            print(f"ok  {tag} full input: max |tp - ref| / mag = {float((err / (mag + 1e-30)).max()):.3g}")
        return
    kp = k // c.world
    x_r = x[:, c.rank * kp:(c.rank + 1) * kp]
    split = tp.RowParallelFp8Linear.from_full(w, ws, bias)
    ref_r, mag_r = _rank_slices_reference(x, mode, w, ws, bias, c.world, fp8kit.quantize)
    c.check(f"{tag} input split, quantised per rank", split(x_r), ref_r, mag_r, one, requantised=mode != "block")


def _pair(c, mode, m, gen):
    """col (no gather) -> row: y = (x . W1^T) . W2^T on every rank."""
    dev, k, hidden, n = c.device, 512, 1024, 768
    w1, s1 = _fp8((hidden, k), gen).to(dev), _weight_scale(mode, hidden, k, gen).to(dev)
    w2, s2 = _fp8((n, hidden), gen).to(dev), _weight_scale(mode, n, hidden, gen).to(dev)
    x = torch.randn((m, k), generator=gen).to(torch.bfloat16).to(dev)
    col = tp.ColumnParallelFp8Linear.from_full(w1, s1, gather_output=False)
    row = tp.RowParallelFp8Linear.from_full(w2, s2)
    h_r = col(x)
    y = row(h_r)
    q, s = fp8kit.quantize(x, ACT[mode])
    h = fp8kit.scaled_mm(q, w1, s, s1)                    # one GPU's hidden activation [M, hidden]
    hq, hs = fp8kit.quantize(h, ACT[mode])
    one = fp8kit.scaled_mm(hq, w2, hs, s2)
    # The reference from the ranks' own hidden slices (gathered here), quantised per rank.
    h_tp = torch.empty((c.world * m, hidden // c.world), dtype=h_r.dtype, device=dev)
    dist.all_gather_into_tensor(h_tp, h_r.contiguous())
    h_tp = h_tp.view(c.world, m, -1).permute(1, 0, 2).reshape(m, hidden)
    c.check(f"column -> row pair {mode} M={m}: hidden slices", h_tp, *reference(q, w1, s, s1), h)
    ref, mag = _rank_slices_reference(h_tp, mode, w2, s2, None, c.world, fp8kit.quantize)
    c.check(f"column -> row pair {mode} M={m} K={k} hidden={hidden} N={n}", y, ref, mag, one,
            requantised=mode != "block")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["nccl", "gloo"], default="nccl")
    args = ap.parse_args()
    tp.disable_multicast()
    _single_process_env()
    rank, world, local = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ["LOCAL_RANK"])
    gpus = torch.cuda.device_count()
    if gpus == 0 or (args.backend == "nccl" and gpus < int(os.environ.get("LOCAL_WORLD_SIZE", world))):
        if rank == 0:
            print(f"SKIPPED: {world} ranks with {args.backend} need {world if args.backend == 'nccl' else 1} "
                  f"GPU(s) on this host; found {gpus} (--backend gloo puts every rank on cuda:0)")
        return 0
    device = torch.device("cuda", local % gpus)
    torch.cuda.set_device(device)
    dist.init_process_group(args.backend, device_id=device if args.backend == "nccl" else None)
    try:
        c = Checker(rank, world, device)
        gen = torch.Generator().manual_seed(2026)
        for mode in ("tensor", "channel", "block"):
            for m, n, k in SHAPES:
                _column(c, mode, m, n, k, gen)
                _row(c, mode, m, n, k, gen, torch.float32)
            _row(c, mode, 17, 512, 1024, gen, torch.bfloat16)
            _pair(c, mode, 9, gen)
        torch.cuda.synchronize()
        dist.barrier()
        if rank == 0:
            print(f"PASSED: {c.cases} cases on {world} rank(s), backend {args.backend}, "
                  f"{gpus} GPU(s): {torch.cuda.get_device_name(device)}", flush=True)
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
