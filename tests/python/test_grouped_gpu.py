"""fp8kit.grouped_mm on a GPU: each expert against the float64 reference, both
layouts, every scale mode, torch's [E, K, N] weights, torch._scaled_grouped_mm,
opcheck, CUDA-graph replay with new offsets, and bad inputs raising fp8kit.Error
naming the argument. Skipped without torch or a GPU."""

import pytest

from conftest import BLOCK, E4M3, E5M2, assert_close, fp8, needs_gpu, reference

torch = pytest.importorskip("torch")
needs_gpu()

import fp8kit  # noqa: E402


def _rand(*shape):
    return torch.rand(shape, device="cuda") * 0.02 + 0.001


def _scales(mode, rows_shape, e, n, k):
    """(scale_a, scale_b) of one mode, in grouped_mm's shapes for A rows rows_shape."""
    kb, nb = -(-k // BLOCK), -(-n // BLOCK)
    if mode == "tensor":
        return _rand(1), _rand(1)
    if mode == "expert":
        return _rand(e, 1, 1), _rand(e)
    if mode == "row":
        return _rand(*rows_shape, 1), _rand(e, n)
    return _rand(*rows_shape, kb), _rand(e, nb, kb)


def _expert_scales(mode, sa, sb, e, rows):
    """Expert e's scales as the dense reference takes them (rows: that expert's A rows)."""
    if mode == "tensor":
        return sa, sb
    if mode == "expert":
        return sa[e].reshape(1), sb[e].reshape(1)
    return sa[rows], sb[e]


def _sizes(e, t):
    """Random rows per expert summing to at most t, with an empty expert."""
    cuts = torch.randint(0, t + 1, (e - 1,)).sort().values.tolist()
    sizes = [hi - lo for lo, hi in zip([0] + cuts, cuts + [t])]
    sizes[1] = 0
    return sizes


@pytest.mark.parametrize("mode", ["tensor", "expert", "row", "block"])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("e, t, n, k", [(4, 333, 200, 272), (9, 70, 129, 128)])
def test_contiguous_matches_float64_per_expert(mode, out_dtype, e, t, n, k):
    sizes = _sizes(e, t - 5)                                     # the last 5 rows belong to no expert
    offs = torch.tensor(sizes, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
    a, b = fp8((t, k)), fp8((e, n, k), E5M2 if e == 9 else E4M3)
    sa, sb = _scales(mode, (t,), e, n, k)
    bias = torch.randn(e, n, device="cuda", dtype=torch.bfloat16) if out_dtype == torch.float32 else None
    d = fp8kit.grouped_mm(a, b, sa, sb, offs, bias=bias, out_dtype=out_dtype)
    assert d.shape == (t, n) and d.dtype == out_dtype and (d.stride(0) * d.element_size()) % 16 == 0
    start = 0
    for x, rows in enumerate(sizes):
        r = slice(start, start + rows)
        if rows:
            esa, esb = _expert_scales(mode, sa, sb, x, r)
            assert_close(d[r], *reference(a[r], b[x], esa, esb, None if bias is None else bias[x]))
        start += rows
    assert (d[start:] == 0).all()


@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
def test_masked_matches_float64_per_expert(mode):
    e, max_m, n, k = 5, 37, 256, 400
    counts = torch.tensor([37, 0, 12, 1, 40], dtype=torch.int32, device="cuda")  # 40 is clamped to max_m
    a, b = fp8((e, max_m, k)), fp8((e, n, k))
    sa, sb = _scales(mode, (e, max_m), e, n, k)
    d = fp8kit.grouped_mm(a, b, sa, sb, counts, out_dtype=torch.float16)
    assert d.shape == (e, max_m, n)
    for x, c in enumerate(min(max_m, v) for v in counts.tolist()):
        if c:
            esa, esb = _expert_scales(mode, sa if mode == "tensor" else sa[x], sb, x, slice(0, c))
            assert_close(d[x, :c], *reference(a[x, :c], b[x], esa, esb))
        assert (d[x, c:] == 0).all()


def test_torch_layout_of_b_gives_the_same_bits_and_matches_torch():
    e, t, n, k = 6, 300, 512, 1024
    sizes = _sizes(e, t)
    offs = torch.tensor(sizes, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
    a, b = fp8((t, k)), fp8((e, n, k))
    sa, sb = _rand(t), _rand(e, n)
    ours = fp8kit.grouped_mm(a, b, sa, sb, offs)
    assert torch.equal(fp8kit.grouped_mm(a, b.transpose(1, 2), sa, sb, offs), ours)
    try:
        theirs = torch._scaled_grouped_mm(a, b.transpose(1, 2), sa, sb, offs=offs, out_dtype=torch.bfloat16)
    except (RuntimeError, NotImplementedError, ValueError) as err:  # torch refuses some devices / shapes
        pytest.skip(f"torch._scaled_grouped_mm does not run here: {str(err).splitlines()[0]}")
    # Both within their rounding of the reference, so within twice of each other.
    start = 0
    for x, rows in enumerate(sizes):
        r = slice(start, start + rows)
        ref, mag = reference(a[r], b[x], sa[r], sb[x])
        err = (ours[r].double() - theirs[r].double()).abs()
        assert (err <= 2 * (2.0**-8 * ref.abs() + 2.0**-8 * mag) + 1e-30).all()
        start += rows


def _op_cases():
    e, t, n, k = 4, 90, 136, 272
    offs = torch.tensor([20, 20, 70, 90], dtype=torch.int32, device="cuda")
    a, b = fp8((t, k), seed=3), fp8((e, n, k), seed=4)
    cases = []
    for mode in ("tensor", "row", "block"):
        sa, sb = _scales(mode, (t,), e, n, k)
        cases.append((a, b, sa, sb, offs, None, torch.bfloat16))
    sa, sb = _scales("row", (e, 30), e, n, k)
    cases.append((fp8((e, 30, k), seed=5), b.transpose(1, 2), sa, sb, torch.tensor([30, 3, 0, 17], dtype=torch.int32,
                                                                                      device="cuda"),
                  torch.randn(e, n, device="cuda"), torch.float32))
    return cases


@pytest.mark.parametrize("case", range(4))
def test_opcheck(case):
    args = _op_cases()[case]
    op = torch.ops.fp8kit.grouped_mm.default
    # FP8 inputs: opcheck's test_schema compares inputs with torch.allclose, which FP8 lacks.
    torch.library.opcheck(op, args, test_utils=("test_autograd_registration", "test_faketensor",
                                                "test_aot_dispatch_dynamic"))
    before = [t.view(torch.uint8).clone() if isinstance(t, torch.Tensor) and t.dtype.itemsize == 1 else
              t.clone() if isinstance(t, torch.Tensor) else t for t in args]
    op(*args)
    for t, old in zip(args, before):
        if isinstance(t, torch.Tensor):
            assert torch.equal(t.view(torch.uint8) if t.dtype.itemsize == 1 else t, old)


def test_compile_fullgraph_dynamic_t_matches_eager():
    def moe(x, w, ws, offs):
        q, s = fp8kit.quantize(x, "row")
        return fp8kit.grouped_mm(q, w, s, ws, offs)

    torch._dynamo.reset()
    compiled = torch.compile(moe, fullgraph=True, dynamic=True)
    e, n, k = 4, 256, 512
    w, ws = fp8((e, n, k)), _rand(e, n)
    for t in (16, 33, 64):
        x = torch.randn(t, k, device="cuda", dtype=torch.bfloat16)
        offs = torch.tensor(_sizes(e, t), dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
        assert torch.equal(compiled(x, w, ws, offs), moe(x, w, ws, offs))


@pytest.mark.parametrize("masked", [False, True])
def test_cuda_graph_replays_new_offsets(masked):
    e, t, n, k = 8, 256, 256, 512
    a = fp8((e, t // e, k)) if masked else fp8((t, k))
    b, sa, sb = fp8((e, n, k)), _rand(*a.shape[:-1]), _rand(e, n)
    groups = torch.zeros(e, dtype=torch.int32, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fp8kit.grouped_mm(a, b, sa, sb, groups)                  # warm-up outside capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = fp8kit.grouped_mm(a, b, sa, sb, groups)
    for _ in range(3):
        if masked:
            new = torch.randint(0, t // e + 1, (e,), dtype=torch.int32)
        else:
            new = torch.tensor(_sizes(e, t - 3), dtype=torch.int64).cumsum(0).to(torch.int32)
        groups.copy_(new)
        graph.replay()
        assert torch.equal(y, fp8kit.grouped_mm(a, b, sa, sb, groups))


E, T, N, K = 4, 64, 256, 512


def _args(**over):
    args = dict(a=torch.zeros(T, K, device="cuda").to(E4M3), b=torch.zeros(E, N, K, device="cuda").to(E4M3),
                scale_a=_rand(T), scale_b=_rand(E, N), offs=torch.full((E,), T, dtype=torch.int32, device="cuda"),
                bias=None, out_dtype=torch.bfloat16)
    args.update(over)
    return args


BAD = {
    "offs of int64": (dict(offs=torch.zeros(E, dtype=torch.int64, device="cuda")), r"offs.dtype = torch.int64"),
    "offs on the CPU": (dict(offs=torch.zeros(E, dtype=torch.int32)), r"offs is on cpu"),
    "offs of E + 1": (dict(offs=torch.zeros(E + 1, dtype=torch.int32, device="cuda")),
                      r"b has shape \(4, 256, 512\): its first dimension must be E = 5"),
    "strided offs": (dict(offs=torch.zeros(2 * E, dtype=torch.int32, device="cuda")[::2]),
                     r"offs has shape \(4,\), strides \(2,\)"),
    "2-D offs": (dict(offs=torch.zeros(E, 1, dtype=torch.int32, device="cuda")), r"offs has shape \(4, 1\)"),
    "b of K + 16": (dict(b=torch.zeros(E, N, K + 16, device="cuda").to(E4M3)), r"b has shape \(4, 256, 528\)"),
    "b of bf16": (dict(b=torch.zeros(E, N, K, device="cuda", dtype=torch.bfloat16)), r"b.dtype = torch.bfloat16"),
    "b 2-D": (dict(b=torch.zeros(N, K, device="cuda").to(E4M3)), r"b has shape \(256, 512\): must be 3-D"),
    "b with spaced experts": (dict(b=torch.zeros(E, N + 1, K, device="cuda").to(E4M3)[:, :N]),
                              r"b has strides \(131584, 512, 1\): the experts must be evenly spaced"),
    "a 1-D": (dict(a=torch.zeros(K, device="cuda").to(E4M3)), r"a has shape \(512,\): must be \[T, K\]"),
    "a with strided K": (dict(a=torch.zeros(T, 2 * K, device="cuda").to(E4M3)[:, ::2]), r"a has strides \(1024, 2\)"),
    "masked a of E - 1 experts": (dict(a=torch.zeros(E - 1, 8, K, device="cuda").to(E4M3)),
                                  r"a has shape \(3, 8, 512\): masked a must be \[E, max_m, K\] with E = 4"),
    "scale_a of T - 1": (dict(scale_a=_rand(T - 1)), r"scale_a has shape \(63,\)"),
    "scale_b of f16": (dict(scale_b=_rand(E, N).half()), r"scale_b.dtype = torch.float16"),
    "scale_b of [N]": (dict(scale_b=_rand(N)), r"scale_b has shape \(256,\)"),
    "bias of [N]": (dict(bias=_rand(N)), r"bias has shape \(256,\)"),
    "bias on the CPU": (dict(bias=torch.ones(E, N)), r"bias is on cpu"),
    "out_dtype int8": (dict(out_dtype=torch.int8), r"out_dtype = torch.int8"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_rejects(case):
    over, match = BAD[case]
    args = _args(**over)
    for fn in (fp8kit.grouped_mm, torch.ops.fp8kit.grouped_mm):
        with pytest.raises(fp8kit.Error, match=match):
            fn(*args.values())
