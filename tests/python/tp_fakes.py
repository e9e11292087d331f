"""CPU stand-ins for fp8kit's GEMM and quantisation, so the tensor-parallel layers'
splitting, gathering and reducing run on CPU tensors with torch.distributed's gloo
backend in CI (no GPU). The GEMM stand-in is conftest.reference (float64 from the
exact FP8 values) rounded to out_dtype; quantisation is the textbook amax / 448.
Also the two-process worker that test_tp_trace.py spawns."""

import os

import torch
import torch.distributed as dist

from conftest import BLOCK, E4M3, assert_close, reference
from fp8kit import _lib

FP8_MAX = _lib.FP8_MAX[_lib.DTYPE_E4M3]


def fake_scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16):
    return reference(a, b, scale_a, scale_b, bias)[0].to(out_dtype)


def fake_quantize(x, mode="row", fp8_dtype=E4M3, scale=None, rms_weight=None, eps=1e-6, column_major_scales=True):
    x = x.float()
    m, k = x.shape
    if mode == "tensor":
        s = scale.reshape(1).float() if scale is not None else x.abs().amax().reshape(1) / FP8_MAX
        full = s.expand(m, k)
    elif mode == "row":
        s = x.abs().amax(dim=1, keepdim=True) / FP8_MAX
        full = s.expand(m, k)
    else:
        kb = -(-k // BLOCK)
        padded = torch.nn.functional.pad(x, (0, kb * BLOCK - k))
        s = padded.reshape(m, kb, BLOCK).abs().amax(dim=2) / FP8_MAX
        full = s.repeat_interleave(BLOCK, dim=1)[:, :k]
        s = s.t().contiguous().t() if column_major_scales else s
    s = torch.where(s > 0, s, torch.ones_like(s))
    full = torch.where(full > 0, full, torch.ones_like(full))
    return (x / full).clamp(-FP8_MAX, FP8_MAX).to(fp8_dtype), s


def install_fakes(monkeypatch=None):
    """fp8kit.ops.scaled_mm / quantize -> the CPU stand-ins (the layers look them up per call)."""
    from fp8kit import ops
    for name, fake in (("scaled_mm", fake_scaled_mm), ("quantize", fake_quantize)):
        if monkeypatch is None:
            setattr(ops, name, fake)
        else:
            monkeypatch.setattr(ops, name, fake)


def cpu_fp8(shape, gen):
    """conftest.fp8's values from a CPU generator: N(0, 1) with a few large ones, e4m3."""
    x = torch.randn(shape, generator=gen)
    x[torch.rand(shape, generator=gen) < 0.02] *= 50
    return x.clamp(-400, 400).to(E4M3)


def weight_scale(mode, n, k, gen):
    """A float32 weight scale of `mode` ("tensor", "channel", "block") for an [N, K] weight."""
    if mode == "tensor":
        return torch.rand(1, generator=gen) * 0.02 + 0.001
    if mode == "channel":
        return torch.rand(n, generator=gen) * 0.02 + 0.001
    return torch.rand(-(-n // BLOCK), -(-k // BLOCK), generator=gen) * 0.02 + 0.001


ACT = {"tensor": "tensor", "channel": "row", "block": "block"}


def check_layers(rank, world, mode):
    """Column- and row-parallel layers from full CPU tensors against the stand-in
    GEMM on the full weight (every rank builds the same tensors from one seed)."""
    from fp8kit.distributed import ColumnParallelFp8Linear, RowParallelFp8Linear
    gen = torch.Generator().manual_seed(7)
    m, n, k = 5, 512, 768
    w, ws = cpu_fp8((n, k), gen), weight_scale(mode, n, k, gen)
    bias = torch.randn(n, generator=gen).to(torch.bfloat16)
    x = torch.randn((m, k), generator=gen).to(torch.bfloat16)
    q, s = fake_quantize(x, ACT[mode])
    one = fake_scaled_mm(q, w, s, ws, bias)
    ref, mag = reference(q, w, s, ws, bias)

    col = ColumnParallelFp8Linear.from_full(w, ws, bias)
    assert col.weight.shape == (n // world, k) and col.out_features == n
    y = col(x)
    assert y.shape == (m, n)
    assert torch.equal(y, one), "column-parallel: gathered output differs from the one-rank GEMM"
    part = ColumnParallelFp8Linear.from_full(w, ws, bias, gather_output=False)(x)
    cols = slice(rank * n // world, (rank + 1) * n // world)
    assert torch.equal(part, one[:, cols])

    row = RowParallelFp8Linear.from_full(w, ws, bias, input_is_parallel=False)
    assert row.weight.shape == (n, k // world) and row.in_features == k
    y = row(x)
    assert y.shape == (m, n)
    assert_close(y, ref, mag)
    # The split FP8 input with its full-row scale: the same operands as one rank.
    kp = k // world
    q_r = q[:, rank * kp:(rank + 1) * kp]
    s_r = s[:, rank * kp // BLOCK:(rank + 1) * kp // BLOCK] if mode == "block" else s
    assert torch.equal(row.__class__.from_full(w, ws, bias)(q_r, s_r), y)


def two_rank_worker(rank, world, init_file, modes):
    """torch.multiprocessing.spawn target: a gloo group of `world` CPU processes."""
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    try:
        install_fakes()
        for mode in modes:
            check_layers(rank, world, mode)
    finally:
        dist.destroy_process_group()
