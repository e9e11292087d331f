"""fp8kit's PyTorch operators (torch.library, namespace `fp8kit`) and the Python
functions over them.

    torch.ops.fp8kit.scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=None, use_fast_accum=False) -> Tensor
    torch.ops.fp8kit.cutlass_scaled_mm(out, a, b, a_scales, b_scales, bias=None) -> ()   (writes out)
    torch.ops.fp8kit.quantize(x, mode="row", fp8_dtype=None, scale=None, rms_weight=None,
                              eps=1e-6, column_major_scales=True) -> (Tensor, Tensor)
    torch.ops.fp8kit.grouped_mm(a, b, scale_a, scale_b, offs, bias=None, out_dtype=None) -> Tensor
    torch.ops.fp8kit.nvfp4_mm / nvfp4_grouped_mm / nvfp4_quantize / cutlass_scaled_fp4_mm   (fp8kit._nvfp4)

(out_dtype None: bfloat16; fp8_dtype None: float8_e4m3fn.) Each op has a fake
implementation, so torch.compile(fullgraph=True) traces it with symbolic
shapes; each runs on the current CUDA stream (CUDA-graph capture works). The
implementation is registered for every device (CompositeExplicitAutograd), so a
CPU tensor reaches it and raises fp8kit.Error. The ops are defined with
torch.library.Library rather than torch.library.custom_op: the latter's Python
autograd wrapper costs about 7 us more per call (docs/python.md).

The Python functions (fp8kit.scaled_mm, fp8kit.quantize) call the
implementation directly in eager mode, skipping the dispatcher, and the op
while compiling or tracing. A new op is one `_register` call: its schema, its
implementation and its fake.
"""

import torch

from . import _gemm, _grouped, _quant

_LIBRARY = torch.library.Library("fp8kit", "DEF")


def _register(name, schema, impl, fake):
    _LIBRARY.define(name + schema)
    _LIBRARY.impl(name, impl, "CompositeExplicitAutograd")
    torch.library.register_fake(f"fp8kit::{name}", fake, lib=_LIBRARY)
    return getattr(torch.ops.fp8kit, name).default


def _eager(t):
    """True when t can go straight to the implementation: a plain CUDA tensor,
    not under torch.compile and no dispatch mode (fake tensors, make_fx) active;
    or no tensor at all (the implementation raises fp8kit.Error). Anything else
    (meta tensors, tracing) goes through the dispatcher."""
    if type(t) is torch.Tensor:
        return t.is_cuda and not torch.compiler.is_compiling() and torch._C._len_torch_dispatch_stack() == 0
    return not isinstance(t, torch.Tensor)


def _scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=None, use_fast_accum=False):
    return _gemm.scaled_mm(a, b, scale_a, scale_b, bias, out_dtype or torch.bfloat16, use_fast_accum)


def _scaled_mm_fake(a, b, scale_a, scale_b, bias=None, out_dtype=None, use_fast_accum=False):
    return _gemm.scaled_mm_fake(a, b, scale_a, scale_b, bias, out_dtype or torch.bfloat16)


def _cutlass_scaled_mm_fake(out, a, b, a_scales, b_scales, bias=None):
    return None


def _quantize(x, mode="row", fp8_dtype=None, scale=None, rms_weight=None, eps=1e-6, column_major_scales=True):
    return _quant.quantize(x, mode, fp8_dtype or torch.float8_e4m3fn, scale, rms_weight, eps, column_major_scales,
                           copy_scale=True)


def _quantize_fake(x, mode="row", fp8_dtype=None, scale=None, rms_weight=None, eps=1e-6, column_major_scales=True):
    return _quant.quantize_fake(x, mode, fp8_dtype or torch.float8_e4m3fn, scale, rms_weight, eps,
                                column_major_scales)


def _grouped_mm(a, b, scale_a, scale_b, offs, bias=None, out_dtype=None, use_fast_accum=False):
    return _grouped.grouped_mm(a, b, scale_a, scale_b, offs, bias, out_dtype or torch.bfloat16, use_fast_accum)


def _grouped_mm_fake(a, b, scale_a, scale_b, offs, bias=None, out_dtype=None, use_fast_accum=False):
    return _grouped.grouped_mm_fake(a, b, scale_a, scale_b, offs, bias, out_dtype)


scaled_mm_op = _register(
    "scaled_mm", "(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, Tensor? bias=None, "
    "ScalarType? out_dtype=None, bool use_fast_accum=False) -> Tensor", _scaled_mm, _scaled_mm_fake)
cutlass_scaled_mm_op = _register(
    "cutlass_scaled_mm", "(Tensor(a!) out, Tensor a, Tensor b, Tensor a_scales, Tensor b_scales, "
    "Tensor? bias=None) -> ()", _gemm.cutlass_scaled_mm_into_none, _cutlass_scaled_mm_fake)
quantize_op = _register(
    "quantize", "(Tensor x, str mode=\"row\", ScalarType? fp8_dtype=None, Tensor? scale=None, "
    "Tensor? rms_weight=None, float eps=1e-06, bool column_major_scales=True) -> (Tensor, Tensor)",
    _quantize, _quantize_fake)
grouped_mm_op = _register(
    "grouped_mm", "(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, Tensor offs, Tensor? bias=None, "
    "ScalarType? out_dtype=None, bool use_fast_accum=False) -> Tensor", _grouped_mm, _grouped_mm_fake)


def scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16, use_fast_accum=False):
    """D[M, N] = (a[M, K] . b[N, K]^T) * scales (+ bias[N]), a new out_dtype tensor.

    a, b: FP8 (e4m3 / e5m2, any pairing) CUDA tensors, K contiguous, K % 16 == 0.
    scale_a: 1 element, [M] / [M, 1], or [M, ceil(K/128)] (1x128 groups);
    scale_b: 1 element, [N] / [N, 1] / [1, N], or [ceil(N/128), ceil(K/128)];
    float32. bias: [N] bf16 / f16 / f32 or None. Any N: when N * element size is
    not a multiple of 16 bytes the result is an [M, N] view of a padded buffer.
    use_fast_accum: as torch._scaled_mm's, Hopper's FP8 accumulator over the whole
    K instead of promotion per 128-deep K block (faster; its error grows with K:
    docs/python.md); refused with block scales."""
    if _eager(a):
        return _gemm.scaled_mm(a, b, scale_a, scale_b, bias, out_dtype, use_fast_accum)
    return scaled_mm_op(a, b, scale_a, scale_b, bias, out_dtype, use_fast_accum)


def quantize(x, mode="row", fp8_dtype=torch.float8_e4m3fn, scale=None, rms_weight=None, eps=1e-6,
             column_major_scales=True):
    """(q, scale) for x [M, K] bf16 / f16 / f32, K % 16 == 0: mode "tensor"
    (static with scale=, dynamic without; scale [1]), "row" (dynamic per token,
    [M, 1]) or "block" (dynamic 1x128 groups, [M, ceil(K/128)], M-contiguous
    unless column_major_scales=False). rms_weight [K] (x's dtype) fuses
    y = x * rsqrt(mean(x^2) + eps) * rms_weight before quantising."""
    if _eager(x):
        return _quant.quantize(x, mode, fp8_dtype, scale, rms_weight, eps, column_major_scales)
    return quantize_op(x, mode, fp8_dtype, scale, rms_weight, eps, column_major_scales)


def grouped_mm(a, b, scale_a, scale_b, offs, bias=None, out_dtype=torch.bfloat16, use_fast_accum=False):
    """Mixture-of-experts GEMM, D_e = (a_e . b_e^T) * scales_e (+ bias[e]), in one launch;
    the argument order of torch._scaled_grouped_mm. The layout follows a's rank:

        a [T, K], offs int32 [E] cumulative row ends          -> [T, N]        (contiguous, prefill)
        a [E, max_m, K], offs = counts int32 [E] valid rows   -> [E, max_m, N] (masked, decode)

    b: [E, N, K] K-contiguous, or its [E, K, N] transpose (torch's mat_b). scale_a: 1 element,
    [E, 1, 1], per token ([T] / [T, 1]; [E, max_m] / [E, max_m, 1]) or 1x128 groups
    ([T, ceil(K/128)]; [E, max_m, ceil(K/128)]). scale_b: 1 element, [E], [E, N] or
    [E, ceil(N/128), ceil(K/128)]. bias: [E, N] or None. Group sizes are read on the device
    only, so a CUDA graph replays with new offs; rows of no expert are 0 (docs/python.md).
    use_fast_accum as for scaled_mm."""
    if _eager(a):
        return _grouped.grouped_mm(a, b, scale_a, scale_b, offs, bias, out_dtype, use_fast_accum)
    return grouped_mm_op(a, b, scale_a, scale_b, offs, bias, out_dtype, use_fast_accum)


# The NVFP4 operators register themselves on the same library when imported
# (their module imports this one, which is complete by now).
from . import _nvfp4  # noqa: E402,F401
