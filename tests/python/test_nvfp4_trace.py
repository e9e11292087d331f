"""NVFP4 ops without a GPU: vLLM's swizzled scale layout from fp8kit/nvfp4.h's formula
and from torch's own `to_blocked` where the installed torch has it, and the ops traced
through their fake implementations (torch.compile, make_fx) with vLLM's shapes."""

import pytest

torch = pytest.importorskip("torch")

import fp8kit  # noqa: E402
from fp8kit import compat  # noqa: E402


def swizzled_offset(r, kb, kb4):
    """fp8kit/nvfp4.h's formula."""
    return ((r // 128) * (kb4 // 4) + kb // 4) * 512 + (r % 32) * 16 + ((r % 128) // 32) * 4 + kb % 4


def to_blocked_here(s):
    """PyTorch's to_blocked, rewritten: pad to 128 x 4, tile, interleave the 32-row quarters."""
    rows, cols = s.shape
    rb, cb = -(-rows // 128), -(-cols // 4)
    padded = torch.zeros((rb * 128, cb * 4), dtype=s.dtype)
    padded[:rows, :cols] = s
    blocks = padded.view(rb, 128, cb, 4).permute(0, 2, 1, 3)
    return blocks.reshape(-1, 4, 32, 4).transpose(1, 2).reshape(-1, 32, 16).flatten()


def _torch_to_blocked():
    for module in ("torch.testing._internal.common_quantized", "torchao.prototype.mx_formats.utils"):
        try:
            mod = __import__(module, fromlist=["to_blocked"])
            return mod.to_blocked
        except (ImportError, AttributeError):
            continue
    return None


@pytest.mark.parametrize("rows, k", [(1, 16), (5, 48), (128, 64), (129, 272), (300, 512)])
def test_swizzle_formula_is_to_blocked(rows, k):
    cols = k // 16
    s = torch.arange(rows * cols, dtype=torch.int32).reshape(rows, cols) + 1
    blocked = to_blocked_here(s)
    kb4 = -(-cols // 4) * 4
    for r in range(rows):
        for kb in range(cols):
            assert blocked[swizzled_offset(r, kb, kb4)].item() == s[r, kb].item()
    theirs = _torch_to_blocked()
    if theirs is not None:
        assert torch.equal(theirs(s).flatten(), blocked)


def _meta(*shape, dtype=torch.float32):
    return torch.empty(shape, dtype=dtype, device="meta")


def test_vllm_shapes_from_the_fakes():
    m, k = 33, 256
    x = _meta(m, k, dtype=torch.bfloat16)
    q, s = torch.ops.fp8kit.nvfp4_quantize(x, _meta(1))
    assert q.shape == (m, k // 2) and q.dtype == torch.uint8
    assert s.shape == (128, 16) and s.dtype == torch.float8_e4m3fn  # int32 [128, 4] viewed as e4m3
    q, s = torch.ops.fp8kit.nvfp4_quantize(x, _meta(1), False)
    assert s.shape == (m, k // 16)
    d = torch.ops.fp8kit.nvfp4_mm(q, _meta(64, k // 2, dtype=torch.uint8), s, _meta(128, 16, dtype=torch.uint8),
                                  _meta(1), None, torch.float16)
    assert d.shape == (m, 64) and d.dtype == torch.float16
    g = torch.ops.fp8kit.nvfp4_grouped_mm(_meta(4, 8, k, dtype=torch.bfloat16), _meta(4, 64, k // 2, dtype=torch.uint8),
                                          None, _meta(4 * 128 * 16, dtype=torch.uint8), _meta(4),
                                          _meta(4, dtype=torch.int32))
    assert g.shape == (4, 8, 64) and g.dtype == torch.bfloat16


def _model(x, g, w, w_scale, alpha, out):
    q, s = compat.scaled_fp4_quant(x, g)
    compat.cutlass_scaled_fp4_mm(out, q, w, s, w_scale, alpha)
    y = fp8kit.nvfp4_mm(x, w, None, w_scale, alpha)  # W4A16
    return out + y


def test_compile_fullgraph_traces_the_nvfp4_ops_once():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    model = torch.compile(_model, fullgraph=True, dynamic=True, backend=backend)
    n, k = 64, 256
    w = _meta(n, k // 2, dtype=torch.uint8)
    ws = _meta(128 * (k // 16), dtype=torch.uint8)
    for m in (16, 33):
        out = model(_meta(m, k, dtype=torch.bfloat16), _meta(1), w, ws, _meta(1), _meta(m, n, dtype=torch.bfloat16))
        assert out.shape == (m, n)
    assert len(graphs) >= 1
    code = graphs[-1].code
    for op in ("fp8kit.nvfp4_quantize", "fp8kit.cutlass_scaled_fp4_mm", "fp8kit.nvfp4_mm"):
        assert op in code


def test_cpu_tensors_raise_fp8kit_errors():
    with pytest.raises(fp8kit.Error, match="CUDA"):
        fp8kit.nvfp4_quantize(torch.zeros(4, 32, dtype=torch.bfloat16), None)
    with pytest.raises(fp8kit.Error, match="CUDA"):
        fp8kit.nvfp4_mm(torch.zeros(4, 16, dtype=torch.uint8), torch.zeros(8, 16, dtype=torch.uint8), None,
                        torch.zeros(8, dtype=torch.uint8), None)


@pytest.mark.parametrize("rows, k", [(5, 48), (129, 272)])
def test_swizzle_is_vllms(rows, k):
    """vLLM's own swizzle of weight scales, where vLLM is installed."""
    try:
        from vllm.model_executor.layers.quantization.utils.nvfp4_utils import swizzle_blockscale
    except Exception:  # vLLM absent, or it cannot import here
        pytest.skip("vLLM is not importable")
    cols = k // 16
    raw = (torch.arange(rows * cols, dtype=torch.int32) % 126 + 1).to(torch.uint8).reshape(rows, cols)
    try:
        theirs = swizzle_blockscale(raw.view(torch.float8_e4m3fn)).cpu().contiguous().view(torch.uint8).flatten()
    except RuntimeError as e:  # it moves the result to CUDA
        pytest.skip(f"vLLM's swizzle_blockscale needs a GPU here: {str(e)[:60]}")
    assert torch.equal(theirs, to_blocked_here(raw))
