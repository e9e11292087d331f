"""The PyTorch front end on a GPU: fp8kit.scaled_mm against a float64 torch
computation, per scale mode; fp8kit.quantize feeding it. Skipped without torch
or a GPU."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import fp8kit  # noqa: E402


def _ref(a, b, sa, sb, bias, mode):
    a64, b64 = a.to(torch.float64), b.to(torch.float64)
    if mode == "block":
        m, k = a.shape
        n = b.shape[0]
        d = torch.zeros((m, n), dtype=torch.float64, device=a.device)
        for kb in range(-(-k // 128)):
            sl = slice(kb * 128, min(k, kb * 128 + 128))
            part = a64[:, sl] @ b64[:, sl].T
            sbn = sb[:, kb].to(torch.float64).repeat_interleave(128)[:n]
            d += part * sa[kb].to(torch.float64)[:, None] * sbn[None, :]
    else:
        d = (a64 @ b64.T) * sa.to(torch.float64).reshape(-1, 1) * sb.to(torch.float64).reshape(1, -1)
    return d if bias is None else d + bias.to(torch.float64)


@pytest.mark.parametrize("mode", ["tensor", "channel", "block"])
def test_scaled_mm_matches_float64(mode):
    m, n, k = 333, 1000, 528
    x = torch.randn(m, k, device="cuda")
    w = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    if mode == "tensor":
        sa = torch.tensor([0.05], device="cuda")
        a, _ = fp8kit.quantize(x, "tensor", scale=sa)
        sb = torch.tensor([0.5], device="cuda")
    elif mode == "channel":
        a, sa = fp8kit.quantize(x, "row")
        sb = torch.rand(n, device="cuda") + 0.5
    else:
        a, sa = fp8kit.quantize(x, "block")
        sb = torch.rand(-(-n // 128), -(-k // 128), device="cuda") + 0.5
    d = fp8kit.scaled_mm(a, w, sa, sb, bias=bias)
    ref = _ref(a, w, sa, sb, bias, mode)
    rel = ((d.to(torch.float64) - ref).norm() / ref.norm()).item()
    assert rel < 1e-2, rel


def test_errors_name_the_argument():
    a = torch.zeros(4, 24, device="cuda", dtype=torch.float8_e4m3fn)
    with pytest.raises(fp8kit.Error, match="k = 24"):
        fp8kit.scaled_mm(a, a, torch.ones(1, device="cuda"), torch.ones(1, device="cuda"))
