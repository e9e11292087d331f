"""fp8kit.grouped_mm under tracing, with no GPU: meta tensors go through the fake
implementation, so torch.compile(fullgraph=True, dynamic=True) traces a symbolic T
into one graph with the shapes and strides the CUDA implementation returns; the
scale shapes pick the documented modes; CPU tensors raise fp8kit.Error."""

import pytest

torch = pytest.importorskip("torch")

import fp8kit  # noqa: E402
from fp8kit import _grouped, _lib  # noqa: E402

E4M3 = torch.float8_e4m3fn
E, N, K = 8, 256, 512


def _meta(*shape, dtype=torch.float32):
    return torch.empty(shape, dtype=dtype, device="meta")


def _moe(x, w_enk, w_scale, offs, w_kn):
    q, s = fp8kit.quantize(x, "row")
    up = fp8kit.grouped_mm(q, w_enk, s, w_scale, offs)
    return up + fp8kit.grouped_mm(q, w_kn, s.reshape(-1), w_scale, offs, out_dtype=torch.bfloat16)


def test_compile_fullgraph_traces_a_symbolic_t_once():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    model = torch.compile(_moe, fullgraph=True, dynamic=True, backend=backend)
    w = _meta(E, N, K, dtype=E4M3)
    for t in (16, 33, 64):
        d = model(_meta(t, K, dtype=torch.bfloat16), w, _meta(E, N), _meta(E, dtype=torch.int32), w.transpose(1, 2))
        assert d.shape == (t, N) and d.dtype == torch.bfloat16
    assert len(graphs) == 1
    assert graphs[0].code.count("fp8kit.grouped_mm") == 2


@pytest.mark.parametrize("n, out_dtype, pitch", [(100, torch.bfloat16, 104), (101, torch.float32, 104),
                                                  (128, torch.float16, 128)])
def test_fake_output_is_padded_like_the_real_one(n, out_dtype, pitch):
    b = _meta(E, n, 64, dtype=E4M3)
    d = torch.ops.fp8kit.grouped_mm(_meta(20, 64, dtype=E4M3), b, _meta(1), _meta(E, n),
                                    _meta(E, dtype=torch.int32), None, out_dtype)
    assert d.shape == (20, n) and d.stride() == (pitch, 1) and d.dtype == out_dtype
    masked = torch.ops.fp8kit.grouped_mm(_meta(E, 5, 64, dtype=E4M3), b.transpose(1, 2), _meta(E, 5),
                                         _meta(E, n), _meta(E, dtype=torch.int32), None, out_dtype)
    assert masked.shape == (E, 5, n) and masked.stride() == (5 * pitch, pitch, 1)


def test_make_fx_symbolic():
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(x, w, ws, offs):
        q, s = fp8kit.quantize(x, "row")
        return fp8kit.grouped_mm(q, w, s, ws, offs)

    gm = make_fx(f, tracing_mode="symbolic")(torch.randn(8, 64), torch.randn(E, 32, 64).to(E4M3),
                                             torch.ones(E, 32), torch.zeros(E, dtype=torch.int32))
    assert "fp8kit.grouped_mm" in gm.code


def test_cpu_tensors_raise_fp8kit_error():
    args = (torch.zeros(4, 32, dtype=E4M3), torch.zeros(E, 16, 32, dtype=E4M3), torch.ones(4), torch.ones(E, 16),
            torch.zeros(E, dtype=torch.int32))
    for fn in (fp8kit.grouped_mm, torch.ops.fp8kit.grouped_mm):
        with pytest.raises(fp8kit.Error, match="a is on cpu: fp8kit runs on CUDA tensors"):
            fn(*args)


NAMES = {_lib.SCALE_TENSOR: "tensor", _lib.SCALE_ROW: "row", _lib.SCALE_COL: "col", _lib.SCALE_BLOCK: "block"}


def _mode(sa, sb, rows=(64,), n=N, k=K):
    a_mode, a, b_mode, b = _grouped._scales(torch.ones(sa), torch.ones(sb), E, rows, n, k)
    return NAMES[a_mode], NAMES[b_mode], tuple(a.shape), tuple(b.shape)


@pytest.mark.parametrize("sa, sb, rows, expected", [
    ((), (1,), (64,), ("tensor", "tensor", (E,), (E,))),            # one value repeated per expert
    ((E, 1, 1), (E,), (64,), ("tensor", "tensor", (E,), (E,))),
    ((64,), (E, N), (64,), ("row", "col", (64,), (E, N))),
    ((64, 1), (E, 1), (64,), ("row", "tensor", (64, 1), (E,))),
    ((E, 3), (E, N), (E, 3), ("row", "col", (E, 3), (E, N))),         # masked per token [E, max_m]
    ((E, 3, 1), (E, 1, 1), (E, 3), ("row", "tensor", (E, 3, 1), (E,))),
    ((64, 4), (E, 2, 4), (64,), ("block", "block", (4, 64), (E, 2, 4))),          # A's groups go as [kb, T]
    ((E, 3, 4), (E, 2, 4), (E, 3), ("block", "block", (E, 4, 3), (E, 2, 4))),    # and as [E, kb, max_m]
])
def test_scale_shapes_pick_the_mode(sa, sb, rows, expected):
    assert _mode(sa, sb, rows) == expected


@pytest.mark.parametrize("sa, sb, match", [
    ((63,), (E, N), r"scale_a has shape \(63,\): must have 1 element, be \[E, 1, 1\]"),
    ((E,), (E, N), r"scale_a has shape \(8,\)"),                       # per expert is [E, 1, 1], not [T]
    ((4, 64), (E, 2, 4), r"scale_a has shape \(4, 64\): with block scales for B it must be \[64, 4\]"),
    ((64, 4), (E, 4, 2), r"scale_b has shape \(8, 4, 2\): with 1x128 scales for A"),
    ((64, 1), (E, N - 1), r"scale_b has shape \(8, 255\)"),
    ((64, 1), (E - 1,), r"scale_b has shape \(7,\)"),
])
def test_scale_shapes_that_fit_no_mode(sa, sb, match):
    with pytest.raises(fp8kit.Error, match=match):
        _mode(sa, sb)


def test_b_orientation_follows_the_contiguous_dimension():
    enk = torch.empty(E, N, K, dtype=torch.uint8)
    assert _grouped._b_is_enk(enk, K) and not _grouped._b_is_enk(enk.transpose(1, 2), K)
    square = torch.empty(E, K, K, dtype=torch.uint8)                 # N == K: the strides decide
    assert _grouped._b_is_enk(square, K) and not _grouped._b_is_enk(square.transpose(1, 2), K)
    strided = torch.empty(E, N, 2 * K, dtype=torch.uint8)[:, :, ::2]  # K not contiguous either way
    with pytest.raises(fp8kit.Error, match=r"b has shape \(8, 256, 512\), strides \(262144, 1024, 2\)"):
        _grouped._b_is_enk(strided, K)


@pytest.fixture
def c_calls(monkeypatch):
    """grouped_mm on CPU tensors with the device checks and the C call stubbed out:
    the arguments it would pass to fp8kit_grouped_gemm, collected."""
    from fp8kit import _torch
    calls = []
    monkeypatch.setattr(_torch, "cuda_device", lambda t, name: t.get_device())
    monkeypatch.setattr(_torch, "run_on", lambda dev, fn, *args: fn(*args))
    monkeypatch.setattr(_torch, "stream", lambda dev: 0)
    monkeypatch.setattr(_lib, "grouped_gemm", lambda *args: calls.append(args))
    return calls


def _fp8(*shape):
    return torch.zeros(shape).to(E4M3)


def test_descriptor_of_each_layout(c_calls):
    offs = torch.zeros(E, dtype=torch.int32)
    b = _fp8(E, 100, K)
    d = _grouped.grouped_mm(_fp8(64, K), b, torch.ones(64), torch.ones(E, 100), offs)
    layout, e, rows, n, k, offs_ptr, counts_ptr, _, lda, _, b_ptr, ldb, _, d_ptr, ldd, d_type, a_mode, _, b_mode = \
        c_calls[-1][:19]
    assert (layout, e, rows, n, k, lda, ldb, ldd) == (_lib.GROUPED_CONTIGUOUS, E, 64, 100, K, K, K, 104)
    assert (offs_ptr, counts_ptr, b_ptr, d_ptr) == (offs.data_ptr(), 0, b.data_ptr(), d.data_ptr())
    assert (d_type, a_mode, b_mode, d.shape, d.stride()) == (_lib.DTYPE_BF16, _lib.SCALE_ROW, _lib.SCALE_COL,
                                                            (64, 100), (104, 1))
    d = _grouped.grouped_mm(_fp8(E, 8, K), b.transpose(1, 2), torch.ones(E, 8, 4), torch.ones(E, 1, 4), offs,
                            torch.ones(E, 100), torch.float16)
    call = c_calls[-1]
    assert call[:7] == (_lib.GROUPED_MASKED, E, 8, 100, K, 0, offs.data_ptr())
    assert (call[11], call[14], call[16], call[18], call[21]) == (K, 104, _lib.SCALE_BLOCK, _lib.SCALE_BLOCK,
                                                                 _lib.DTYPE_F32)
    assert d.shape == (E, 8, 100) and d.stride() == (8 * 104, 104, 1)


def _bad(**over):
    args = dict(a=_fp8(64, K), b=_fp8(E, N, K), scale_a=torch.ones(64), scale_b=torch.ones(E, N),
                offs=torch.zeros(E, dtype=torch.int32), bias=None, out_dtype=torch.bfloat16)
    args.update(over)
    return args.values()


@pytest.mark.parametrize("over, match", [
    (dict(offs=torch.zeros(E, dtype=torch.int64)), r"offs.dtype = torch.int64"),
    (dict(offs=torch.zeros(2 * E, dtype=torch.int32)[::2]), r"offs has shape \(8,\), strides \(2,\)"),
    (dict(offs=torch.zeros(E, 1, dtype=torch.int32)), r"offs has shape \(8, 1\): must be 1-D"),
    (dict(b=_fp8(E, N + 1, K)[:, :N]), r"b has strides \(131584, 512, 1\): the experts must be evenly spaced"),
    (dict(a=_fp8(E - 1, 8, K)), r"a has shape \(7, 8, 512\): masked a must be \[E, max_m, K\] with E = 8"),
    (dict(a=_fp8(E, 8, 2 * K)[:, :, :K]), None),                   # a row pitch of 2K is fine
    (dict(a=_fp8(E, 16, K)[:, :8]), r"a has strides \(8192, 512, 1\): the experts must be evenly spaced"),
    (dict(bias=torch.ones(E, N).t().contiguous().t()), r"bias has shape \(8, 256\), strides \(1, 8\)"),
])
def test_bad_input_is_refused_before_the_c_call(c_calls, over, match):
    if match is None:
        args = list(_bad(**over))
        args[2] = torch.ones(E, 8)
        _grouped.grouped_mm(*args)
        assert len(c_calls) == 1 and c_calls[0][8] == 2 * K
        return
    with pytest.raises(fp8kit.Error, match=match):
        _grouped.grouped_mm(*_bad(**over))
    assert not c_calls
