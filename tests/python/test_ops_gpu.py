"""fp8kit's PyTorch ops on a GPU: numerics against the float64 reference and
torch._scaled_mm, vLLM's layouts, padded outputs, quantisation, opcheck,
torch.compile, CUDA graphs and side streams. Skipped without torch or a GPU."""

import pytest

from conftest import BLOCK, E4M3, E5M2, assert_close, fp8, needs_gpu, reference

torch = pytest.importorskip("torch")
needs_gpu()

import fp8kit  # noqa: E402
from fp8kit import compat  # noqa: E402


def _scales(mode, m, n, k):
    kb, nb = -(-k // BLOCK), -(-n // BLOCK)
    rand = lambda *s: torch.rand(s, device="cuda") * 0.02 + 0.001  # noqa: E731
    if mode == "tensor":
        return rand(1), rand(1)
    if mode == "row":
        return rand(m, 1), rand(n)
    if mode == "block":
        return rand(kb, m).t(), rand(nb, kb)      # scale_a [M, kb] M-contiguous, as quantize gives it
    raise ValueError(mode)


@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("m, n, k", [(333, 1000, 528), (1, 129, 16), (64, 1001, 272)])
def test_scaled_mm_matches_float64(mode, out_dtype, m, n, k):
    a, b = fp8((m, k)), fp8((n, k), E5M2 if m == 64 else E4M3)
    sa, sb = _scales(mode, m, n, k)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16) if m != 1 else None
    d = fp8kit.scaled_mm(a, b, sa, sb, bias=bias, out_dtype=out_dtype)
    assert d.shape == (m, n) and d.dtype == out_dtype
    assert_close(d, *reference(a, b, sa, sb, bias))


@pytest.mark.parametrize("mode", ["tensor", "row"])
def test_scaled_mm_matches_torch_scaled_mm(mode):
    m, n, k = 200, 512, 1024
    a, b = fp8((m, k)), fp8((n, k))
    sa, sb = _scales(mode, m, n, k)
    sb_t = sb if mode == "tensor" else sb.reshape(1, n)
    theirs = torch._scaled_mm(a, b.t(), scale_a=sa.reshape(()) if mode == "tensor" else sa,
                              scale_b=sb_t.reshape(()) if mode == "tensor" else sb_t, out_dtype=torch.bfloat16)
    ours = fp8kit.scaled_mm(a, b, sa, sb)
    ref, mag = reference(a, b, sa, sb)
    assert_close(ours, ref, mag)
    # Both within their rounding of the reference, so within twice of each other.
    err = (ours.double() - theirs.double()).abs()
    assert (err <= 2 * (2.0**-8 * ref.abs() + 2.0**-8 * mag) + 1e-30).all()


@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
def test_cutlass_scaled_mm_takes_vllms_layouts(mode):
    m, n, k = 77, 384, 640
    a, w = fp8((m, k)), fp8((n, k))
    sa, sb = _scales(mode, m, n, k)
    # compat follows vLLM's kernels: fast accumulation except with block scales.
    ours = fp8kit.scaled_mm(a, w, sa, sb, use_fast_accum=mode != "block")
    if mode == "tensor":
        vllm_sa, vllm_sb = sa.reshape(()), sb                    # a 0-d and a [1] scale
    elif mode == "row":
        vllm_sa, vllm_sb = sa, sb.reshape(n, 1)                  # weight_scale [N, 1] as vLLM stores it
    else:
        vllm_sa, vllm_sb = sa, sb.t()                            # As [M, kb] column-major, Bs.T [kb, nb]
    out = compat.cutlass_scaled_mm(a, w.t(), vllm_sa, vllm_sb, torch.bfloat16)
    assert torch.equal(out, ours)
    if mode != "tensor":
        # Row-major [M, kb] / [1, N] scales are copied into fp8kit's layout: same result.
        out2 = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        torch.ops.fp8kit.cutlass_scaled_mm(out2, a, w.t(), vllm_sa.contiguous(),
                                           vllm_sb.reshape(1, n) if mode == "row" else vllm_sb, None)
        assert torch.equal(out2, ours)


def assert_close_fast(d, ref, mag, k):
    """Within the output's rounding plus the fast bound (docs/testing.md):
    2^-8 of the magnitude per 128-deep K block."""
    u = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11, torch.float32: 2.0**-24}[d.dtype]
    err = (d.to(torch.float64) - ref).abs()
    bound = u * ref.abs() + (1 + u) * -(-k // BLOCK) * 2.0**-8 * mag + 1e-30
    bad = err > bound
    assert not bad.any(), f"{int(bad.sum())} elements outside the bound; worst {float((err / bound).max()):.3g}x"


@pytest.mark.parametrize("mode", ["tensor", "row"])
@pytest.mark.parametrize("m, n, k", [(333, 1000, 528), (4, 4096, 4096), (1, 129, 16)])
def test_scaled_mm_fast_accumulation(mode, m, n, k):
    a, b = fp8((m, k)), fp8((n, k))
    sa, sb = _scales(mode, m, n, k)
    d = fp8kit.scaled_mm(a, b, sa, sb, out_dtype=torch.float32, use_fast_accum=True)
    assert_close_fast(d, *reference(a, b, sa, sb), k)
    traced = torch.compile(lambda *t: torch.ops.fp8kit.scaled_mm(*t, None, torch.float32, True), fullgraph=True)
    assert_close_fast(traced(a, b, sa, sb), *reference(a, b, sa, sb), k)


def test_fast_accumulation_with_block_scales_is_refused():
    a, b = fp8((128, 256)), fp8((128, 256))
    sa, sb = _scales("block", 128, 128, 256)
    with pytest.raises(fp8kit.Error, match="use_fast_accum"):
        fp8kit.scaled_mm(a, b, sa, sb, use_fast_accum=True)


def test_out_variant_with_unaligned_out_writes_only_its_view():
    m, n, k = 50, 100, 256
    a, w = fp8((m, k)), fp8((n, k))
    sa, sb = _scales("row", m, n, k)
    base = torch.full((m + 2, n + 3), float("nan"), device="cuda", dtype=torch.float16)
    out = base[1:m + 1, 1:n + 1]                                 # pitch 103 halves: not 16-byte aligned
    torch.ops.fp8kit.cutlass_scaled_mm(out, a, w.t(), sa, sb.reshape(1, n), None)
    assert_close(out, *reference(a, w, sa, sb))
    outside = torch.ones_like(base, dtype=torch.bool)
    outside[1:m + 1, 1:n + 1] = False
    assert base[outside].isnan().all()


@pytest.mark.parametrize("n, out_dtype", [(1001, torch.bfloat16), (1003, torch.float32), (1, torch.float16)])
def test_any_n_gives_a_view_of_a_padded_output(n, out_dtype):
    m, k = 31, 128
    a, b = fp8((m, k)), fp8((n, k))
    sa, sb = _scales("tensor", m, n, k)
    d = fp8kit.scaled_mm(a, b, sa, sb, out_dtype=out_dtype)
    assert d.shape == (m, n) and (d.stride(0) * d.element_size()) % 16 == 0
    assert_close(d, *reference(a, b, sa, sb))


def _rms(x, w, eps):
    x64 = x.double()
    return x64 * torch.rsqrt(x64.square().mean(1, keepdim=True) + eps) * w.double()


def _check_quantized(q, s_full, y):
    """q * s reproduces y within half an e4m3 step (2^-4 relative) plus the subnormal step."""
    deq = q.double() * s_full
    assert ((deq - y).abs() <= 2.0**-4 * y.abs() + s_full * 2.0**-9 * 1.01).all()


@pytest.mark.parametrize("mode", ["static", "tensor", "row", "block"])
@pytest.mark.parametrize("rms", [False, True])
def test_quantize_modes(mode, rms):
    m, k = 70, 400
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16) * 3
    x[5] = 0                                                     # an all-zero row gets scale 1
    w = torch.rand(k, device="cuda", dtype=torch.bfloat16) + 0.5 if rms else None
    y = _rms(x, w, 1e-6) if rms else x.double()
    if mode == "static":
        scale = torch.tensor([0.02], device="cuda")
        q, s = fp8kit.quantize(x, "tensor", scale=scale, rms_weight=w)
        assert s.shape == (1,) and s.item() == pytest.approx(0.02)
        y = y.clamp(-448 * 0.02, 448 * 0.02)
        s_full = s.double().expand(m, k)
    elif mode == "tensor":
        q, s = fp8kit.quantize(x, "tensor", rms_weight=w)
        assert s.shape == (1,)
        assert s.item() == pytest.approx(y.abs().max().item() / 448, rel=1e-3 if rms else 1e-6)
        s_full = s.double().expand(m, k)
    elif mode == "row":
        q, s = fp8kit.quantize(x, "row", rms_weight=w)
        assert s.shape == (m, 1) and s[5].item() == 1.0
        expected = torch.where(y.abs().amax(1) > 0, y.abs().amax(1) / 448, 1.0)
        torch.testing.assert_close(s.double().reshape(m), expected, rtol=1e-3 if rms else 1e-6, atol=0)
        s_full = s.double().expand(m, k)
    else:
        q, s = fp8kit.quantize(x, "block", rms_weight=w)
        kb = -(-k // BLOCK)
        assert s.shape == (m, kb) and s.stride() == (1, m)
        s_full = s.double().repeat_interleave(BLOCK, dim=1)[:, :k]
    assert q.shape == (m, k) and q.dtype == E4M3
    _check_quantized(q, s_full, y)


def test_vllm_quant_functions():
    m, k = 45, 512
    x = torch.randn(m, k, device="cuda", dtype=torch.float16)
    q, s = compat.scaled_fp8_quant(x, use_per_token_if_dynamic=True)
    assert s.shape == (m, 1)
    q2, s2 = fp8kit.quantize(x, "row")
    assert torch.equal(q.view(torch.uint8), q2.view(torch.uint8)) and torch.equal(s, s2)
    q, s = compat.scaled_fp8_quant(x)
    assert s.shape == (1,)
    out = torch.empty_like(q)
    q3, s3 = compat.scaled_fp8_quant(x, s, output=out)
    assert q3 is out and torch.equal(q3.view(torch.uint8), q.view(torch.uint8))
    qg, sg = compat.per_token_group_quant_fp8(x, 128)
    assert sg.shape == (m, 4) and sg.is_contiguous()
    qc, sc = compat.per_token_group_quant_fp8(x, 128, column_major_scales=True)
    assert sc.stride() == (1, m) and torch.equal(sg, sc) and torch.equal(qg.view(torch.uint8), qc.view(torch.uint8))
    w = torch.rand(k, device="cuda", dtype=torch.float16)
    qr, sr = compat.rms_norm_dynamic_per_token_quant(x, w, 1e-5, E4M3)
    qn, sn = fp8kit.quantize(x, "row", rms_weight=w, eps=1e-5)
    assert torch.equal(qr.view(torch.uint8), qn.view(torch.uint8)) and torch.equal(sr, sn)


def _op_cases():
    m, n, k = 33, 200, 272
    a, b = fp8((m, k), seed=1), fp8((n, k), seed=2)
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    cases = []
    for mode in ("tensor", "row", "block"):
        sa, sb = _scales(mode, m, n, k)
        cases.append((torch.ops.fp8kit.scaled_mm.default, (a, b, sa, sb, None, torch.bfloat16)))
        out = torch.empty((m, n), device="cuda", dtype=torch.float16)
        vsb = sb.t() if mode == "block" else sb
        cases.append((torch.ops.fp8kit.cutlass_scaled_mm.default, (out, a, b.t(), sa, vsb, None)))
    bias = torch.randn(n - 1, device="cuda", dtype=torch.float32)
    sa, sb = _scales("row", m, n - 1, k)
    cases.append((torch.ops.fp8kit.scaled_mm.default, (a, b[: n - 1], sa, sb, bias, torch.float32)))
    w = torch.rand(k, device="cuda", dtype=torch.bfloat16)
    for args in [(x, "row", E4M3, None, None, 1e-6, True), (x, "block", E5M2, None, w, 1e-6, True),
                 (x, "block", E4M3, None, None, 1e-6, False), (x, "tensor", E4M3, None, w, 1e-6, True),
                 (x, "tensor", E4M3, torch.tensor([0.1], device="cuda"), None, 1e-6, True)]:
        cases.append((torch.ops.fp8kit.quantize.default, args))
    return cases


def _bits(t):
    return t.view(torch.uint8).clone() if t.dtype.itemsize == 1 else t.clone()


@pytest.mark.parametrize("case", range(12))
def test_opcheck(case):
    op, args = _op_cases()[case]
    fp8_inputs = any(isinstance(t, torch.Tensor) and t.dtype in (E4M3, E5M2) for t in args)
    if not fp8_inputs:
        torch.library.opcheck(op, args)
        return
    # opcheck's test_schema compares inputs with torch.allclose, which FP8 tensors do not
    # implement; the same check by hand: only the arguments the schema marks written change.
    torch.library.opcheck(op, args, test_utils=("test_autograd_registration", "test_faketensor",
                                                "test_aot_dispatch_dynamic"))
    written = {i for i, arg in enumerate(op._schema.arguments) if arg.alias_info and arg.alias_info.is_write}
    before = [_bits(t) if isinstance(t, torch.Tensor) else t for t in args]
    op(*args)
    for i, (t, old) in enumerate(zip(args, before)):
        if isinstance(t, torch.Tensor) and i not in written:
            assert torch.equal(_bits(t), old), f"argument {op._schema.arguments[i].name} was written"


def _layer(x, w, w_scale):
    q, s = fp8kit.quantize(x, "row")
    return fp8kit.scaled_mm(q, w, s, w_scale, out_dtype=torch.bfloat16)


def test_compile_fullgraph_dynamic_m_matches_eager():
    from torch._inductor.compile_fx import compile_fx
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return compile_fx(gm, example_inputs)

    torch._dynamo.reset()
    compiled = torch.compile(_layer, fullgraph=True, dynamic=True, backend=backend)
    n, k = 256, 512
    w, ws = fp8((n, k)), torch.rand(n, device="cuda") * 0.01
    for m in (16, 33, 64):
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        assert torch.equal(compiled(x, w, ws), _layer(x, w, ws))
    assert len(graphs) == 1


def test_cuda_graph_capture_and_replay():
    m, n, k = 48, 256, 512
    w, ws = fp8((n, k)), torch.rand(n, device="cuda") * 0.01
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        _layer(x, w, ws)                                         # warm-up outside capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = _layer(x, w, ws)
    for _ in range(3):
        x.copy_(torch.randn(m, k, device="cuda", dtype=torch.bfloat16))
        graph.replay()
        assert torch.equal(y, _layer(x, w, ws))


def test_runs_on_the_current_non_default_stream():
    m, n, k = 128, 4096, 4096
    w, ws = fp8((n, k)), torch.rand(n, device="cuda") * 0.01
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    expected = _layer(x, w, ws)
    side = torch.cuda.Stream()
    x2 = torch.zeros_like(x)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(1_000_000)                             # keeps the side stream busy
        x2.copy_(x)                                              # queued behind the sleep, on `side`
        y = _layer(x2, w, ws)                                    # must run after the copy, on `side`
    side.synchronize()
    assert torch.equal(y, expected)


@pytest.mark.parametrize("m, n, k", [(1, 4096, 4096), (16, 2112, 7168), (200, 300, 4224)])
def test_per_stream_workspace_matches_per_call_and_replays(m, n, k):
    """configure(workspace="per_stream"): the same bits as per-call workspaces (split-K
    is deterministic), eagerly and in a graph captured after a warm-up, replayed twice
    with new inputs."""
    a, b = fp8((m, k)), fp8((n, k))
    sa, sb = _scales("row", m, n, k)
    want = fp8kit.scaled_mm(a, b, sa, sb)
    before = fp8kit.configure(workspace="per_stream")
    try:
        assert torch.equal(fp8kit.scaled_mm(a, b, sa, sb), want)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fp8kit.scaled_mm(a, b, sa, sb)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = fp8kit.scaled_mm(a, b, sa, sb)
        for _ in range(2):
            a.copy_(fp8((m, k)))
            graph.replay()
            torch.cuda.synchronize()
            fp8kit.configure(workspace="per_call")
            assert torch.equal(out, fp8kit.scaled_mm(a, b, sa, sb))
            fp8kit.configure(workspace="per_stream")
    finally:
        fp8kit.configure(*before)
