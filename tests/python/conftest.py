"""Shared pieces of the Python tests: random FP8 operands and the float64 reference
(used by the GPU tests; without torch this module only defines them)."""

import pytest

try:
    import torch
except ImportError:  # the package tests run without torch
    torch = None

BLOCK = 128
E4M3, E5M2 = (torch.float8_e4m3fn, torch.float8_e5m2) if torch else (None, None)


def needs_gpu():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU", allow_module_level=True)


def fp8(shape, dtype=E4M3, seed=None):
    """Fresh random FP8 values: N(0, 1) quantised, with a few large ones."""
    g = torch.Generator(device="cuda")
    g.manual_seed(seed if seed is not None else torch.randint(0, 2**31, ()).item())
    x = torch.randn(shape, device="cuda", generator=g)
    x[torch.rand(shape, device="cuda", generator=g) < 0.02] *= 50
    return x.clamp(-400, 400).to(dtype)


def expand_scales(scale_a, scale_b, m, n, k):
    """scale_a as [M, kb] and scale_b as [N, kb] in float64, from any mode's logical shape
    (b in [N, K] orientation)."""
    kb, nb = -(-k // BLOCK), -(-n // BLOCK)
    sa, sb = scale_a.to(torch.float64), scale_b.to(torch.float64)
    block_a = sa.dim() == 2 and tuple(sa.shape) == (m, kb) and kb != 1
    block_b = sb.dim() == 2 and tuple(sb.shape) == (nb, kb) and tuple(sb.shape) not in ((n, 1), (1, n), (1, 1))
    if block_a or block_b:
        sa_full = sa
        sb_full = sb.repeat_interleave(BLOCK, dim=0)[:n]
    else:
        sa_full = sa.reshape(-1, 1).expand(m, kb)
        sb_full = sb.reshape(-1, 1).expand(n, kb)
    return sa_full, sb_full


def reference(a, b, scale_a, scale_b, bias=None):
    """float64 D = sum over K blocks of (A_blk . B_blk^T) * sa[m, blk] * sb[n, blk] (+ bias), and the
    same sum of absolute values (what rounding errors scale with). b is [N, K]."""
    m, k = a.shape
    n = b.shape[0]
    sa, sb = expand_scales(scale_a, scale_b, m, n, k)
    a64, b64 = a.to(torch.float64), b.to(torch.float64)
    d = torch.zeros((m, n), dtype=torch.float64, device=a.device)
    mag = torch.zeros_like(d)
    for j in range(-(-k // BLOCK)):
        blk = slice(j * BLOCK, min(k, j * BLOCK + BLOCK))
        s = sa[:, j:j + 1] * sb[:, j].reshape(1, n)
        d += (a64[:, blk] @ b64[:, blk].T) * s
        mag += (a64[:, blk].abs() @ b64[:, blk].abs().T) * s.abs()
    if bias is not None:
        d += bias.to(torch.float64)
        mag += bias.to(torch.float64).abs()
    return d, mag


def assert_close(d, ref, mag):
    """Within the output's rounding plus the accumulation error bound of docs/testing.md
    (sm90_wgmma's 2^-8 of the magnitude, which covers the f32 paths)."""
    u = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11, torch.float32: 2.0**-24}[d.dtype]
    err = (d.to(torch.float64) - ref).abs()
    bound = u * ref.abs() + (1 + u) * 2.0**-8 * mag + 1e-30
    bad = err > bound
    assert not bad.any(), f"{int(bad.sum())} elements outside the bound; worst {float((err / bound).max()):.3g}x"
