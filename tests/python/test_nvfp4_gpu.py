"""NVFP4 through PyTorch on a GPU: vLLM's quantiser layout and values against a torch
reference, the GEMM (W4A4 and W4A16) against the float64 product of the dequantised
operands, the grouped GEMM per expert, and a CUDA graph replayed with new inputs."""

import pytest

torch = pytest.importorskip("torch")
from conftest import needs_gpu  # noqa: E402

needs_gpu()

import fp8kit  # noqa: E402
from fp8kit import compat  # noqa: E402

E2M1 = torch.tensor([0, 0.5, 1, 1.5, 2, 3, 4, 6], dtype=torch.float64)


def swizzled_index(rows, k):
    kb4 = -(-(k // 16) // 4) * 4
    r = torch.arange(rows).view(-1, 1)
    kb = torch.arange(k // 16).view(1, -1)
    return ((r // 128) * (kb4 // 4) + kb // 4) * 512 + (r % 32) * 16 + ((r % 128) // 32) * 4 + kb % 4


def dequant(q, s, k, swizzled=True):
    """float64 [rows, k] of packed q [rows, k/2] and its E4M3 scales."""
    rows = q.shape[0]
    lo, hi = (q & 0xF).long(), (q >> 4).long()
    codes = torch.stack([lo, hi], dim=-1).reshape(rows, k)
    vals = E2M1.to(q.device)[codes & 7] * torch.where(codes >= 8, -1.0, 1.0).to(torch.float64)
    flat = s.view(torch.uint8).flatten()
    idx = swizzled_index(rows, k).to(q.device) if swizzled else torch.arange(rows * (k // 16), device=q.device).view(rows, -1)
    scales = flat[idx].view(torch.float8_e4m3fn).to(torch.float64)
    return vals * scales.repeat_interleave(16, dim=1)


def random_nvfp4(rows, k, g=None):
    x = torch.randn(rows, k, device="cuda", dtype=torch.bfloat16)
    gs = torch.tensor([448.0 * 6 / 4], device="cuda")
    q, s = compat.scaled_fp4_quant(x, gs)
    return q, s, gs


@pytest.mark.parametrize("m, k", [(1, 16), (7, 96), (130, 512)])
@pytest.mark.parametrize("swizzled", [True, False])
def test_quant_layout_and_values(m, k, swizzled):
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    gs = torch.tensor([100.0], device="cuda")
    q, s = compat.scaled_fp4_quant(x, gs, swizzled)
    assert q.shape == (m, k // 2) and q.dtype == torch.uint8
    if swizzled:
        assert s.shape == (-(-m // 128) * 128, -(-(k // 16) // 4) * 4)
    else:
        assert s.shape == (m, k // 16)
    back = dequant(q, s, k, swizzled) / 100.0
    blocks = x.double().view(m, k // 16, 16).abs().amax(-1).repeat_interleave(16, dim=1)
    assert ((back - x.double()).abs() <= 0.3 * blocks + 1e-6).all()


@pytest.mark.parametrize("m, n, k", [(1, 64, 64), (16, 1000, 256), (129, 257, 320)])
@pytest.mark.parametrize("w4a16", [False, True])
def test_gemm_against_float64(m, n, k, w4a16):
    qb, sb, gb = random_nvfp4(n, k)
    alpha = torch.tensor([0.01], device="cuda")
    if w4a16:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        ref = a.double() @ dequant(qb, sb, k).t() * 0.01
        d = fp8kit.nvfp4_mm(a, qb, None, sb, alpha)
    else:
        qa, sa, _ = random_nvfp4(m, k)
        ref = dequant(qa, sa, k) @ dequant(qb, sb, k).t() * 0.01
        d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        compat.cutlass_scaled_fp4_mm(d, qa, qb, sa, sb, alpha)
    err = (d.double() - ref).abs()
    assert (err <= 2 ** -7 * ref.abs() + 1e-3 * ref.abs().max()).all(), err.max()


def test_graph_replays_with_new_inputs():
    m, n, k = 4, 256, 512
    qb, sb, _ = random_nvfp4(n, k)
    alpha = torch.tensor([0.02], device="cuda")
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    fp8kit.nvfp4_mm(x, qb, None, sb, alpha)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fp8kit.nvfp4_mm(x, qb, None, sb, alpha)
    for _ in range(3):
        x.copy_(torch.randn_like(x))
        graph.replay()
        ref = x.double() @ dequant(qb, sb, k).t() * 0.02
        assert ((out.double() - ref).abs() <= 2 ** -7 * ref.abs() + 1e-3).all()


def test_grouped_masked_decode():
    e, max_m, n, k = 4, 8, 128, 256
    counts = torch.tensor([3, 0, 8, 1], device="cuda", dtype=torch.int32)
    b, bs = [], []
    for _ in range(e):
        q, s, _ = random_nvfp4(n, k)
        b.append(q), bs.append(s.view(torch.uint8).flatten())
    b, bs = torch.stack(b), torch.cat(bs)
    a = torch.randn(e, max_m, k, device="cuda", dtype=torch.bfloat16)
    alpha = torch.full((e,), 0.01, device="cuda")
    d = fp8kit.nvfp4_grouped_mm(a, b, None, bs, alpha, counts)
    per = bs.numel() // e
    for i in range(e):
        c = int(counts[i])
        ref = a[i, :c].double() @ dequant(b[i], bs[i * per:(i + 1) * per], k).t() * 0.01
        assert ((d[i, :c].double() - ref).abs() <= 2 ** -7 * ref.abs() + 1e-3).all()
