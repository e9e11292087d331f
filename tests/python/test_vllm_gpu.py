"""The op sequences the vLLM plugin's apply paths issue (fp8kit.vllm.sequences), on a GPU,
without vLLM, against the float64 reference, for each kind: linear per tensor (static and
dynamic), per token with per-tensor and per-channel weights (and fbgemm's scale bound),
1x128 x 128x128 blocks; the mixture-of-experts experts in the standard format (with EP's
remote experts) and the batched format, per expert, per channel and in blocks; NVFP4 W4A4
(the sequence, and the plugin's kernel class over a layer as vLLM leaves it, where vLLM
is installed)."""

import pytest

torch = pytest.importorskip("torch")

from conftest import BLOCK, assert_close, fp8, needs_gpu, reference  # noqa: E402

from fp8kit.vllm import sequences  # noqa: E402

needs_gpu()

M, N, K = 48, 256, 384
E, TOPK, INNER = 4, 2, 128


def _linear_reference(x, w, w_scale, act_mode, input_scale=None, ub=None):
    """The reference of the linear sequence from the same quantised x (the quantiser is
    tested on its own in test_ops_gpu.py): D = q . w^T * scales."""
    q, s = sequences.quantize(x, act_mode, input_scale, ub)
    return reference(q, w, s, w_scale), q, s


LINEAR = {
    "static per tensor": ("tensor", "tensor", True),
    "dynamic per tensor": ("tensor", "tensor", False),
    "per token, per-tensor weights": ("row", "tensor", False),
    "per token, per-channel weights": ("row", "channel", False),
    "1x128 x 128x128 blocks": ("block", "block", False),
}


def _w_scale(kind, n, k):
    shapes = {"tensor": (1,), "channel": (n, 1), "block": (-(-n // BLOCK), -(-k // BLOCK))}
    return torch.rand(shapes[kind], device="cuda") * 0.02 + 0.01


@pytest.mark.parametrize("name", LINEAR)
def test_linear_sequence_matches_the_reference(name):
    act_mode, w_kind, static = LINEAR[name]
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = fp8((N, K))
    w_scale = _w_scale(w_kind, N, K)
    input_scale = torch.tensor([0.02], device="cuda") if static else None
    d = sequences.linear(x, w, w_scale, act_mode, input_scale, None, None, torch.bfloat16)
    (ref, mag), _, _ = _linear_reference(x, w, w_scale, act_mode, input_scale)
    assert d.shape == (M, N) and d.dtype == torch.bfloat16
    assert_close(d, ref, mag)


def test_linear_scale_bound_clamps_like_vllms_fbgemm_scheme():
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    x[3, 5] = 900.0
    ub = torch.tensor(4.0, device="cuda")
    q, s = sequences.quantize(x, "row", None, ub)
    assert float(s[3]) == pytest.approx(4.0 / 448.0, rel=1e-6)
    w, w_scale = fp8((N, K)), _w_scale("channel", N, K)
    d = sequences.linear(x, w, w_scale, "row", None, ub, None, torch.bfloat16)
    ref, mag = reference(q, w, s, w_scale)
    assert_close(d, ref, mag)


def _silu_and_mul(out, h):
    half = h.shape[-1] // 2
    out.copy_((torch.nn.functional.silu(h[:, :half].float()) * h[:, half:].float()).to(out.dtype))


def _experts(w_kind, n, k):
    w = torch.stack([fp8((n, k)) for _ in range(E)])
    shapes = {"tensor": (E,), "channel": (E, n, 1), "block": (E, -(-n // BLOCK), -(-k // BLOCK))}
    return w, torch.rand(shapes[w_kind], device="cuda") * 0.02 + 0.01


def _expert_scale(w_scale, e, n):
    """Expert e's scale in scaled_mm's shapes: [1], [N] (per channel) or [ceil(N/128), kb]."""
    per_channel = w_scale.dim() == 3 and w_scale.shape[1] == n and w_scale.shape[-1] == 1
    return w_scale[e].reshape(-1) if w_scale.dim() < 3 or per_channel else w_scale[e]


def _ffn_reference(x, e, w1, w1_scale, w2, w2_scale, act_mode, a2_scale):
    """One expert's FFN in float64 from fp8kit's quantisations of its inputs."""
    q, s = sequences.quantize(x, act_mode)
    h, _ = reference(q, w1[e], s, _expert_scale(w1_scale, e, 2 * INNER))
    a = torch.empty((x.shape[0], INNER), dtype=torch.bfloat16, device="cuda")
    _silu_and_mul(a, h.to(torch.bfloat16))
    q2, s2 = sequences.quantize(a, act_mode, a2_scale)
    return reference(q2, w2[e], s2, _expert_scale(w2_scale, e, K))


MOE = {"per expert, dynamic per tensor": ("tensor", "tensor"), "per token, per channel": ("row", "channel"),
       "1x128 x 128x128 blocks": ("block", "block")}


@pytest.mark.parametrize("name", list(MOE) + ["per expert, static per tensor"])
@pytest.mark.parametrize("remote", [False, True])
def test_moe_standard_sequence_matches_the_reference(name, remote):
    act_mode, w_kind = MOE.get(name, ("tensor", "tensor"))
    static = name not in MOE
    tokens = 40
    x = torch.randn(tokens, K, device="cuda", dtype=torch.bfloat16)
    ids = torch.stack([torch.randperm(E, device="cuda")[:TOPK] for _ in range(tokens)]).to(torch.int32)
    weights = torch.rand(tokens, TOPK, device="cuda")
    w1, w1_scale = _experts(w_kind, 2 * INNER, K)
    w2, w2_scale = _experts(w_kind, K, INNER)
    # EP: this rank serves experts 0 and 1 (as local 0 and 1); 2 and 3 are another rank's.
    expert_map = torch.tensor([0, 1, -1, -1], device="cuda", dtype=torch.int32) if remote else None
    local = 2 if remote else E
    a1_scale = a2_scale = None
    if static:  # static per-tensor scales, set 1.5x above the dynamic ones (no saturation)
        a1_scale = torch.tensor([1.5 * float(x.float().abs().max()) / 448.0], device="cuda")
        a2_scale = 1.5 * _moe_reference(x, ids, weights, local, w1, w1_scale, w2, w2_scale, act_mode, a1_scale)[2]
    out = sequences.moe_standard(x, ids, weights, w1[:local], w2[:local], w1_scale[:local], w2_scale[:local],
                                 act_mode, _silu_and_mul, INNER, a1_scale=a1_scale, a2_scale=a2_scale,
                                 expert_map=expert_map)
    assert out.shape == (tokens, K) and out.dtype == torch.bfloat16
    ref, mag, _ = _moe_reference(x, ids, weights, local, w1, w1_scale, w2, w2_scale, act_mode, a1_scale, a2_scale)
    _assert_moe_close(out, ref, mag)


def _token_scale(s, t, act_mode):
    return s if act_mode == "tensor" else s[t:t + 1]


def _moe_reference(x, ids, weights, local, w1, w1_scale, w2, w2_scale, act_mode, a1_scale=None, a2_scale=None):
    """(float64 sum over each token's local experts of weight * FFN, its magnitude, the second
    GEMM's per-tensor scale), quantised as the sequence quantises: x once over all tokens;
    the activations of all routed rows together (one dynamic per-tensor scale over them,
    rows of remote experts being zero) or per row; static scales where given."""
    q, s = sequences.quantize(x, act_mode, a1_scale)
    routed = [(t, j, int(ids[t, j])) for t in range(x.shape[0]) for j in range(TOPK) if int(ids[t, j]) < local]
    acts = {}
    for t, j, e in routed:
        h, _ = reference(q[t:t + 1], w1[e], _token_scale(s, t, act_mode), _expert_scale(w1_scale, e, 2 * INNER))
        a = torch.empty((1, INNER), dtype=torch.bfloat16, device="cuda")
        _silu_and_mul(a, h.to(torch.bfloat16))
        acts[t, j] = a
    if act_mode == "tensor" and a2_scale is None:
        amax = max(float(a.float().abs().max()) for a in acts.values())
        a2_scale = torch.tensor([amax / 448.0 if amax > 0 else 1.0], device="cuda")
    ref = torch.zeros(x.shape, dtype=torch.float64, device="cuda")
    mag = torch.zeros_like(ref)
    for t, j, e in routed:
        q2, s2 = sequences.quantize(acts[t, j], act_mode, a2_scale)
        d, m = reference(q2, w2[e], s2, _expert_scale(w2_scale, e, K))
        ref[t] += float(weights[t, j]) * d[0]
        mag[t] += float(weights[t, j]) * m[0]
    return ref, mag, a2_scale


def _assert_moe_close(out, ref, mag):
    """Two FP8 GEMMs and two quantisations, against a reference that quantises the same
    way: x's quantisation is identical on both sides, but the second GEMM's activation
    comes from the first GEMM's output, which differs from the reference's by its
    accumulation error, so an activation at an e4m3 rounding boundary can land one
    whole step (2^-3 relative, e4m3's 3 mantissa bits) away from the reference's:
    within 2^-3 of the magnitude, plus bf16's rounding."""
    err = (out.to(torch.float64) - ref).abs()
    bound = 2.0**-8 * ref.abs() + 2.0**-3 * mag + 1e-6
    bad = err > bound
    assert not bad.any(), f"{int(bad.sum())} elements outside; worst {float((err / bound).max()):.3g}x"


@pytest.mark.parametrize("name", MOE)
def test_moe_batched_sequence_matches_the_reference(name):
    act_mode, w_kind = MOE[name]
    max_m = 24
    counts = torch.tensor([24, 0, 7, 13], device="cuda", dtype=torch.int32)
    x = torch.zeros(E, max_m, K, device="cuda", dtype=torch.bfloat16)
    for e in range(E):
        x[e, : int(counts[e])] = torch.randn(int(counts[e]), K, device="cuda", dtype=torch.bfloat16)
    w1, w1_scale = _experts(w_kind, 2 * INNER, K)
    w2, w2_scale = _experts(w_kind, K, INNER)
    out = sequences.moe_batched(x, counts, w1, w2, w1_scale, w2_scale, act_mode, _silu_and_mul, INNER)
    assert out.shape == (E, max_m, K) and out.dtype == torch.bfloat16
    for e in range(E):
        c = int(counts[e])
        assert not out[e, c:].any()
        if c == 0 or act_mode == "tensor":
            continue  # a per-tensor scale spans all experts; checked through the standard format
        ref, mag = _ffn_reference(x[e, :c], e, w1, w1_scale, w2, w2_scale, act_mode, None)
        _assert_moe_close(out[e, :c], ref, mag)


def _nvfp4_weight(n, k):
    """A checkpoint's NVFP4 weight as vLLM loads it: packed uint8 [N, K/2], row-major E4M3
    scales [N, K/16], and the global scale the quantiser used (its dequantising inverse is
    the checkpoint's weight_global_scale)."""
    from fp8kit import _nvfp4

    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    g = torch.tensor([448.0 * 6 / float(w.abs().max())], device="cuda")
    q, s = _nvfp4.nvfp4_quantize(w, g, False)
    return q, s, g


def _nvfp4_reference(x, g_x, qw, sw, alpha, bias=None):
    """float64 alpha * dequant(quantise(x)) . dequant(w)^T (+ bias), from the quantiser's own
    output for x (the quantiser is checked on its own in test_nvfp4_gpu.py)."""
    from test_nvfp4_gpu import dequant

    from fp8kit import _nvfp4

    k = x.shape[1]
    qx, sx = _nvfp4.nvfp4_quantize(x, g_x, True)
    ref = dequant(qx, sx, k) @ dequant(qw, sw, k, swizzled=False).t() * float(alpha)
    return ref + bias.double() if bias is not None else ref


def _assert_nvfp4_close(d, ref):
    err = (d.double() - ref).abs()
    bound = 2.0**-7 * ref.abs() + 1e-3 * ref.abs().max()
    assert (err <= bound).all(), float((err / bound).max())


@pytest.mark.parametrize("m, n, k", [(1, 256, 512), (48, 200, 384), (33, 256, 528)])
@pytest.mark.parametrize("bias", [False, True])
def test_nvfp4_linear_sequence_matches_the_reference(m, n, k, bias):
    qw, sw, g_w = _nvfp4_weight(n, k)
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    g_x = torch.tensor([448.0 * 6 / float(x.abs().max())], device="cuda")
    alpha = 1.0 / (g_x * g_w)
    b = torch.randn(n, device="cuda", dtype=torch.bfloat16) if bias else None
    k_pad = -k % 32  # as the plugin lays the weight out: zero bytes and zero block scales
    w = torch.nn.functional.pad(qw, (0, k_pad // 2)).contiguous()
    w_scale = sequences.swizzle_nvfp4_scales(torch.nn.functional.pad(sw.view(torch.uint8), (0, k_pad // 16))
                                             .view(torch.float8_e4m3fn))
    d = sequences.nvfp4_linear(x, w, w_scale, g_x, alpha, b, torch.bfloat16, k_pad)
    assert d.shape == (m, n) and d.dtype == torch.bfloat16
    _assert_nvfp4_close(d, _nvfp4_reference(x, g_x, qw, sw, alpha, b))


@pytest.mark.parametrize("k", [512, 528])
def test_nvfp4_kernel_class_apply_matches_the_reference(k):
    """Fp8kitNvFp4LinearKernel over a layer as vLLM's NVFP4 methods leave it (weight,
    weight_scale row-major, input_global_scale_inv, alpha 0-dim), processed and applied."""
    pytest.importorskip("vllm")
    from vllm.model_executor.kernels.linear.nvfp4.base import NvFp4LinearLayerConfig

    from fp8kit.vllm.nvfp4 import Fp8kitNvFp4LinearKernel

    ok, reason = Fp8kitNvFp4LinearKernel.is_supported()
    if not ok:
        pytest.skip(f"fp8kit's NVFP4 kernel is not served on this GPU: {reason}")
    n, m = 256, 40
    qw, sw, g_w = _nvfp4_weight(n, k)
    x = torch.randn(3, m, k, device="cuda", dtype=torch.bfloat16)
    g_x = torch.tensor([448.0 * 6 / float(x.abs().max())], device="cuda")
    layer = torch.nn.Module()
    params = {"weight": qw.clone(), "weight_scale": sw.clone(), "input_global_scale_inv": g_x[0].clone(),
              "alpha": (1.0 / (g_x * g_w))[0], "input_global_scale": 1.0 / g_x[0], "weight_global_scale": 1.0 / g_w[0]}
    for name, t in params.items():
        layer.register_parameter(name, torch.nn.Parameter(t, requires_grad=False))
    layer.output_size_per_partition, layer.input_size_per_partition = n, k
    kernel = Fp8kitNvFp4LinearKernel(NvFp4LinearLayerConfig())
    kernel.process_weights_after_loading(layer)
    y = kernel.apply_weights(layer, x)
    assert y.shape == (3, m, n) and y.dtype == torch.bfloat16
    ref = _nvfp4_reference(x.reshape(-1, k), g_x, qw, sw, params["alpha"]).view(3, m, n)
    _assert_nvfp4_close(y, ref)
