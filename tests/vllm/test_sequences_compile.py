"""The plugin's op sequences under torch.compile(fullgraph=True, dynamic=True) on meta
tensors (no vLLM involved): one graph for every token count, made of fp8kit's operators
and torch ops that need no host synchronisation (a graph break or a data-dependent
shape would fail fullgraph), as vLLM's compiled, CUDA-graph-captured decode needs."""

import pytest
import torch

from fp8kit.vllm import sequences

FP8 = torch.float8_e4m3fn
N, K, E, TOPK, INNER = 256, 512, 4, 2, 128


def _meta(*shape, dtype=torch.float32):
    return torch.empty(shape, dtype=dtype, device="meta")


def _silu_and_mul(out, h):
    half = h.shape[-1] // 2
    out.copy_(torch.nn.functional.silu(h[:, :half]) * h[:, half:])


def _compiled(fn):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    return torch.compile(fn, fullgraph=True, dynamic=True, backend=backend), graphs


W_SCALES = {"tensor": (1,), "row": (N, 1), "block": (N // 128, K // 128)}


@pytest.mark.parametrize("act_mode", ["tensor", "row", "block"])
def test_linear_compiles_into_one_graph(act_mode):
    static = _meta(1) if act_mode == "tensor" else None
    fn, graphs = _compiled(lambda x, w, ws: sequences.linear(x, w, ws, act_mode, static, None, None, torch.bfloat16))
    w, ws = _meta(N, K, dtype=FP8), _meta(*W_SCALES[act_mode])
    for m in (16, 33, 64):
        d = fn(_meta(m, K, dtype=torch.bfloat16), w, ws)
        assert d.shape == (m, N) and d.dtype == torch.bfloat16
    assert len(graphs) == 1
    assert "fp8kit.quantize" in graphs[0].code and "fp8kit.scaled_mm" in graphs[0].code


E_SCALES = {"tensor": ((E,), (E,)), "row": ((E, 2 * INNER, 1), (E, K, 1)),
            "block": ((E, 2 * INNER // 128, K // 128), (E, K // 128, INNER // 128))}


@pytest.mark.parametrize("act_mode", ["tensor", "row", "block"])
def test_moe_standard_compiles_into_one_graph(act_mode):
    s1, s2 = E_SCALES[act_mode]

    def moe(x, ids, weights, w1, w2, w1s, w2s):
        return sequences.moe_standard(x, ids, weights, w1, w2, w1s, w2s, act_mode, _silu_and_mul, INNER)

    fn, graphs = _compiled(moe)
    w1, w2 = _meta(E, 2 * INNER, K, dtype=FP8), _meta(E, K, INNER, dtype=FP8)
    for m in (16, 33, 64):
        out = fn(_meta(m, K, dtype=torch.bfloat16), _meta(m, TOPK, dtype=torch.int32), _meta(m, TOPK), w1, w2,
                 _meta(*s1), _meta(*s2))
        assert out.shape == (m, K) and out.dtype == torch.bfloat16
    assert len(graphs) == 1
    code = graphs[0].code
    assert code.count("fp8kit.grouped_mm") == 2 and code.count("fp8kit.quantize") == 2


@pytest.mark.parametrize("act_mode", ["tensor", "row", "block"])
def test_moe_batched_compiles_into_one_graph(act_mode):
    s1, s2 = E_SCALES[act_mode]

    def moe(x, counts, w1, w2, w1s, w2s):
        return sequences.moe_batched(x, counts, w1, w2, w1s, w2s, act_mode, _silu_and_mul, INNER)

    fn, graphs = _compiled(moe)
    w1, w2 = _meta(E, 2 * INNER, K, dtype=FP8), _meta(E, K, INNER, dtype=FP8)
    for max_m in (16, 24, 40):
        out = fn(_meta(E, max_m, K, dtype=torch.bfloat16), _meta(E, dtype=torch.int32), w1, w2, _meta(*s1),
                 _meta(*s2))
        assert out.shape == (E, max_m, K) and out.dtype == torch.bfloat16
    assert len(graphs) == 1


@pytest.mark.parametrize("k, k_pad", [(K, 0), (K + 16, 16)])
def test_nvfp4_linear_compiles_into_one_graph(k, k_pad):
    """W4A4: fp8kit's NVFP4 quantise and GEMM; a K padded to the GEMM's 32 adds one cat."""
    def linear(x, w, ws, g, alpha, bias):
        return sequences.nvfp4_linear(x, w, ws, g, alpha, bias, torch.bfloat16, k_pad)

    fn, graphs = _compiled(linear)
    kp = k + k_pad
    w = _meta(N, kp // 2, dtype=torch.uint8)
    ws = _meta(-(-N // 128) * 128, -(-(kp // 16) // 4) * 4, dtype=FP8)
    for m in (16, 33, 64):
        d = fn(_meta(m, k, dtype=torch.bfloat16), w, ws, _meta(1), _meta(1), _meta(N, dtype=torch.bfloat16))
        assert d.shape == (m, N) and d.dtype == torch.bfloat16
    assert len(graphs) == 1
    code = graphs[0].code
    assert code.count("fp8kit.nvfp4_quantize") == 1 and code.count("fp8kit.nvfp4_mm") == 1
    assert ("torch.cat" in code) == bool(k_pad)
