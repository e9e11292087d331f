"""The ops under tracing, with no GPU: meta tensors go through the fake
implementations, so torch.compile(fullgraph=True, dynamic=True) and make_fx must
trace every op with a symbolic M into one graph, with the shapes, dtypes and
strides the CUDA implementations return. And CPU tensors raise fp8kit.Error."""

import pytest

torch = pytest.importorskip("torch")

import fp8kit  # noqa: E402
from fp8kit import compat  # noqa: E402

E4M3 = torch.float8_e4m3fn


def _meta(*shape, dtype=torch.float32):
    return torch.empty(shape, dtype=dtype, device="meta")


def _model(x, w, w_scale, w_block_scale, bias):
    q, s = fp8kit.quantize(x, "row")
    d = fp8kit.scaled_mm(q, w, s, w_scale, bias)
    qb, sb = compat.per_token_group_quant_fp8(x, 128, column_major_scales=True)
    d2 = compat.cutlass_scaled_mm(qb, w.t(), sb, w_block_scale.t(), torch.bfloat16)
    qt, st = compat.scaled_fp8_quant(x)
    qr, sr = compat.rms_norm_dynamic_per_token_quant(x, x[0], 1e-6, E4M3)
    return d + d2, qt, st, qr, sr


def test_compile_fullgraph_traces_a_symbolic_m_once():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    model = torch.compile(_model, fullgraph=True, dynamic=True, backend=backend)
    n, k = 256, 512
    w = _meta(n, k, dtype=E4M3)
    for m in (16, 33, 64):
        d, qt, st, qr, sr = model(_meta(m, k, dtype=torch.bfloat16), w, _meta(n, 1), _meta(2, 4),
                                  _meta(n, dtype=torch.bfloat16))
        assert d.shape == (m, n) and d.dtype == torch.bfloat16
        assert qt.shape == (m, k) and qt.dtype == E4M3 and st.shape == (1,)
        assert qr.shape == (m, k) and sr.shape == (m, 1)
    assert len(graphs) == 1
    code = graphs[0].code
    for op in ("fp8kit.quantize", "fp8kit.scaled_mm", "fp8kit.cutlass_scaled_mm"):
        assert op in code


@pytest.mark.parametrize("n, out_dtype, pitch", [(100, torch.bfloat16, 104), (101, torch.float32, 104),
                                                  (128, torch.float16, 128)])
def test_fake_output_is_padded_like_the_real_one(n, out_dtype, pitch):
    a, b = _meta(20, 64, dtype=E4M3), _meta(n, 64, dtype=E4M3)
    d = torch.ops.fp8kit.scaled_mm(a, b, _meta(1), _meta(1), None, out_dtype)
    assert d.shape == (20, n) and d.stride() == (pitch, 1) and d.dtype == out_dtype


def test_block_scales_are_m_contiguous():
    q, s = torch.ops.fp8kit.quantize(_meta(33, 300 - 300 % 16, dtype=torch.float16), "block")
    assert s.shape == (33, 3) and s.stride() == (1, 33)
    q, s = fp8kit.quantize(_meta(33, 288, dtype=torch.float16), "block", column_major_scales=False)
    assert s.shape == (33, 3) and s.is_contiguous()


def test_make_fx_symbolic():
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(x, w, ws):
        q, s = fp8kit.quantize(x, "row")
        return fp8kit.scaled_mm(q, w, s, ws)

    gm = make_fx(f, tracing_mode="symbolic")(torch.randn(8, 64), torch.randn(32, 64).to(E4M3), torch.ones(32))
    assert "fp8kit.scaled_mm" in gm.code


@pytest.mark.parametrize("call", [
    lambda: fp8kit.scaled_mm(torch.zeros(4, 32, dtype=E4M3), torch.zeros(8, 32, dtype=E4M3),
                             torch.ones(1), torch.ones(1)),
    lambda: torch.ops.fp8kit.scaled_mm(torch.zeros(4, 32, dtype=E4M3), torch.zeros(8, 32, dtype=E4M3),
                                       torch.ones(1), torch.ones(1)),
    lambda: fp8kit.quantize(torch.zeros(4, 32), "row"),
    lambda: compat.scaled_fp8_quant(torch.zeros(4, 32)),
])
def test_cpu_tensors_raise_fp8kit_error(call):
    with pytest.raises(fp8kit.Error, match="is on cpu: fp8kit runs on CUDA tensors"):
        call()


def _mode(scale_a_shape, scale_b_shape, m=64, n=256, k=512):
    from fp8kit import _gemm, _lib
    names = {_lib.SCALE_TENSOR: "tensor", _lib.SCALE_ROW: "row", _lib.SCALE_COL: "col", _lib.SCALE_BLOCK: "block"}
    a_mode, sa, b_mode, sb = _gemm._scales(torch.ones(scale_a_shape), torch.ones(scale_b_shape), m, n, k,
                                           _gemm.NAMES)
    return names[a_mode], names[b_mode], tuple(sa.shape), tuple(sb.shape)


@pytest.mark.parametrize("sa, sb, expected", [
    ((), (1,), ("tensor", "tensor", (), (1,))),
    ((64, 1), (1, 256), ("row", "col", (64, 1), (1, 256))),
    ((64,), (256, 1), ("row", "col", (64,), (256, 1))),
    ((1, 1), (256,), ("tensor", "col", (1, 1), (256,))),
    ((64, 4), (2, 4), ("block", "block", (4, 64), (2, 4))),           # A's block scale goes to fp8kit as [kb, M]
])
def test_scale_shapes_pick_the_mode(sa, sb, expected):
    assert _mode(sa, sb) == expected


def test_k_up_to_128_reads_a_row_scale_as_a_block_scale_when_b_is_blocked():
    # [M, 1] is both a per-token scale and a [M, ceil(K/128)] block scale: the same product.
    assert _mode((64, 1), (2, 1), k=128)[:2] == ("block", "block")


@pytest.mark.parametrize("sa, sb, match", [
    ((63,), (1,), r"scale_a has shape \(63,\)"),
    ((4, 64), (2, 4), r"scale_a has shape \(4, 64\): with block scales for B"),
    ((64, 4), (4, 2), r"scale_b has shape \(4, 2\): with 1x128 scales for A"),
    ((64, 4), (1,), r"scale_b has shape \(1,\): with 1x128 scales for A"),
    ((1,), (255,), r"scale_b has shape \(255,\)"),
    ((64, 2), (256,), r"scale_a has shape \(64, 2\)"),
])
def test_scale_shapes_that_fit_no_mode(sa, sb, match):
    with pytest.raises(fp8kit.Error, match=match):
        _mode(sa, sb)
