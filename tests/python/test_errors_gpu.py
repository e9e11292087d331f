"""Bad input to fp8kit's ops raises fp8kit.Error naming the argument, before
anything is launched (the C API sees pointers, not allocations, so the front end
checks what the kernel would touch). Skipped without torch or a GPU."""

import pytest

from conftest import E4M3, fp8, needs_gpu

torch = pytest.importorskip("torch")
needs_gpu()

import fp8kit  # noqa: E402
from fp8kit import compat  # noqa: E402

M, N, K = 64, 256, 512
KB, NB = K // 128, N // 128


def _cuda(*shape, dtype=torch.float32):
    return torch.ones(shape, device="cuda", dtype=dtype)


@pytest.fixture(scope="module")
def ops():
    return {"a": fp8((M, K)), "b": fp8((N, K)), "x": torch.randn(M, K, device="cuda", dtype=torch.bfloat16)}


def _mm(ops, **over):
    args = dict(a=ops["a"], b=ops["b"], scale_a=_cuda(1), scale_b=_cuda(1), bias=None, out_dtype=torch.bfloat16)
    args.update(over)
    return args


GEMM_CASES = {
    # The front end's findings from the issue, first.
    "row scale of 63 for M = 64": (dict(scale_a=_cuda(63)), r"scale_a has shape \(63,\)"),
    "block scale_a of a wrong shape": (dict(scale_a=_cuda(M, KB + 1), scale_b=_cuda(NB, KB)),
                                       r"scale_a has shape \(64, 5\)"),
    "block scales in the old [kb, M] layout": (dict(scale_a=_cuda(KB, M), scale_b=_cuda(NB, KB)),
                                               r"scale_a has shape \(4, 64\)"),
    "block scale_b of a wrong shape": (dict(scale_a=_cuda(M, KB), scale_b=_cuda(NB + 1, KB)),
                                       r"scale_b has shape \(3, 4\)"),
    "per-channel scale of N - 1": (dict(scale_b=_cuda(N - 1)), r"scale_b has shape \(255,\)"),
    "scale of f16": (dict(scale_a=_cuda(1, dtype=torch.float16)), r"scale_a.dtype = torch.float16"),
    "scale on the CPU": (dict(scale_b=torch.ones(1)), r"scale_b is on cpu"),
    "bias of N + 1": (dict(bias=_cuda(N + 1)), r"bias has shape \(257,\)"),
    "bias of int32": (dict(bias=_cuda(N, dtype=torch.int32)), r"bias.dtype = torch.int32"),
    "strided bias": (dict(bias=_cuda(2 * N)[::2]), r"bias has shape \(256,\), strides \(2,\)"),
    "bias on the CPU": (dict(bias=torch.ones(N)), r"bias is on cpu"),
    "out_dtype int8": (dict(out_dtype=torch.int8), r"out_dtype = torch.int8"),
}


@pytest.mark.parametrize("case", list(GEMM_CASES))
def test_scaled_mm_rejects(ops, case):
    over, match = GEMM_CASES[case]
    args = _mm(ops, **over)
    for fn in (fp8kit.scaled_mm, torch.ops.fp8kit.scaled_mm):
        with pytest.raises(fp8kit.Error, match=match):
            fn(*args.values())


def test_operand_checks(ops):
    a, b = ops["a"], ops["b"]
    cases = [
        (dict(a=ops["x"]), r"a.dtype = torch.bfloat16"),
        (dict(a=a[0]), r"a has shape \(512,\): must be 2-D"),
        (dict(b=fp8((N, K - 16))), r"b has shape \(256, 496\) \(as \[N, K\]\): K must match a's 512"),
        (dict(a=fp8((K, M)).t()), r"a has strides \(1, 64\)"),
        (dict(b=b.t().contiguous().t()), r"b has strides"),
        (dict(a=a.cpu()), r"a is on cpu: fp8kit runs on CUDA tensors"),
        (dict(b=b.cpu()), r"b is on cpu: every tensor must be on cuda:0"),
        (dict(a="a"), r"a: expected a torch.Tensor, got str"),
        (dict(a=fp8((M, 24)), b=fp8((N, 24))), r"k = 24: must be a multiple of 16"),
    ]
    for over, match in cases:
        with pytest.raises(fp8kit.Error, match=match):
            fp8kit.scaled_mm(*_mm(ops, **over).values())


def test_out_of_the_wrong_shape_is_refused_and_untouched(ops):
    out = torch.full((1, 128), 7.0, device="cuda", dtype=torch.bfloat16)   # 1x128 for M = 64
    with pytest.raises(fp8kit.Error, match=r"out has shape \(1, 128\): must be \[M, N\] = \[64, 256\]"):
        torch.ops.fp8kit.cutlass_scaled_mm(out, ops["a"], ops["b"].t(), _cuda(1), _cuda(1), None)
    assert (out == 7).all()
    cases = [
        (dict(out=torch.empty((M, N), device="cuda", dtype=torch.int32)), r"out.dtype = torch.int32"),
        (dict(a_scales=_cuda(M - 1, 1)), r"a_scales has shape \(63, 1\)"),
        (dict(b_scales=_cuda(N + 1)), r"b_scales \(as b_scales.t\(\)\) has shape \(257,\)"),
        (dict(a_scales=_cuda(M, KB), b_scales=_cuda(NB, KB)), r"b_scales \(as b_scales.t\(\)\) has shape \(4, 2\)"),
        (dict(b=ops["b"]), r"b \(as b.t\(\)\) has shape \(512, 256\)"),
    ]
    for over, match in cases:
        args = dict(out=torch.empty((M, N), device="cuda", dtype=torch.bfloat16), a=ops["a"], b=ops["b"].t(),
                    a_scales=_cuda(1), b_scales=_cuda(1), bias=None)
        args.update(over)
        with pytest.raises(fp8kit.Error, match=match):
            torch.ops.fp8kit.cutlass_scaled_mm(*args.values())


def test_quantize_rejects(ops):
    x = ops["x"]
    cases = [
        (dict(x=x[0]), r"x has shape \(512,\): must be 2-D"),
        (dict(x=x.to(torch.int32)), r"x.dtype = torch.int32"),
        (dict(x=x.cpu()), r"x is on cpu"),
        (dict(x=x.t().contiguous().t()), r"x has strides"),
        (dict(x=x[:, :500]), r"k = 500"),
        (dict(mode="channel"), r"mode = 'channel'"),
        (dict(fp8_dtype=torch.int8), r"fp8_dtype = torch.int8"),
        (dict(mode="row", scale=_cuda(1)), r"scale: a given scale is static per-tensor"),
        (dict(mode="tensor", scale=_cuda(2)), r"scale has shape \(2,\)"),
        (dict(mode="tensor", scale=_cuda(1, dtype=torch.bfloat16)), r"scale.dtype = torch.bfloat16"),
        (dict(rms_weight=_cuda(K - 1, dtype=torch.bfloat16)), r"rms_weight has shape \(511,\)"),
        (dict(rms_weight=_cuda(K)), r"rms_weight.dtype = torch.float32"),
    ]
    for over, match in cases:
        args = dict(x=x, mode="row", fp8_dtype=E4M3, scale=None, rms_weight=None, eps=1e-6)
        args.update(over)
        for fn in (fp8kit.quantize, torch.ops.fp8kit.quantize):
            with pytest.raises(fp8kit.Error, match=match):
                fn(*args.values())


def test_vllm_wrappers_refuse_what_they_do_not_do(ops):
    x = ops["x"]
    with pytest.raises(fp8kit.Error, match="group_size = 64"):
        compat.per_token_group_quant_fp8(x, 64)
    with pytest.raises(fp8kit.Error, match="use_ue8m0 = True"):
        compat.per_token_group_quant_fp8(x, 128, use_ue8m0=True)
    with pytest.raises(fp8kit.Error, match="scale_ub"):
        compat.scaled_fp8_quant(x, scale_ub=_cuda(1), use_per_token_if_dynamic=True)
    with pytest.raises(fp8kit.Error, match="residual"):
        compat.rms_norm_dynamic_per_token_quant(x, _cuda(K, dtype=torch.bfloat16), 1e-6, E4M3, residual=x)
    with pytest.raises(fp8kit.Error, match=r"output: must be a torch.float8_e4m3fn tensor of shape \(64, 512\)"):
        compat.scaled_fp8_quant(x, output=torch.empty(M, K - 16, device="cuda", dtype=E4M3))
