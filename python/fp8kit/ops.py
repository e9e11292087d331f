"""fp8kit's PyTorch operators (torch.library, namespace `fp8kit`) and the Python
functions over them.

    torch.ops.fp8kit.scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=bf16) -> Tensor
    torch.ops.fp8kit.cutlass_scaled_mm(out, a, b, a_scales, b_scales, bias=None) -> ()   (writes out)
    torch.ops.fp8kit.quantize(x, mode="row", fp8_dtype=e4m3, scale=None, rms_weight=None,
                              eps=1e-6, column_major_scales=True) -> (Tensor, Tensor)

Each op has a fake implementation, so torch.compile(fullgraph=True) traces it with
symbolic shapes; each runs on the current CUDA stream (CUDA-graph capture
works). The Python functions (fp8kit.scaled_mm, fp8kit.quantize) call the
implementation directly in eager mode, which skips the dispatcher's per-call
cost, and the op while compiling or tracing.

A new op is one `_register` call: its implementation, its fake, and the
arguments it writes.
"""

from typing import Optional, Tuple

import torch
from torch import Tensor

from . import _gemm, _quant


def _register(name, impl, fake, mutates_args=()):
    op = torch.library.custom_op(f"fp8kit::{name}", impl, mutates_args=mutates_args)
    op.register_fake(fake)
    return op


def _eager(t):
    """True when t can go straight to the implementation: a plain CUDA tensor,
    not under torch.compile and no dispatch mode (fake tensors, make_fx) active.
    Anything else (meta tensors, tracing) goes through the dispatcher."""
    return type(t) is torch.Tensor and t.is_cuda and not torch.compiler.is_compiling() and \
        torch._C._len_torch_dispatch_stack() == 0


def _scaled_mm(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor] = None,
               out_dtype: torch.dtype = torch.bfloat16) -> Tensor:
    return _gemm.scaled_mm(a, b, scale_a, scale_b, bias, out_dtype)


def _cutlass_scaled_mm(out: Tensor, a: Tensor, b: Tensor, a_scales: Tensor, b_scales: Tensor,
                       bias: Optional[Tensor] = None) -> None:
    _gemm.cutlass_scaled_mm_into(out, a, b, a_scales, b_scales, bias)


def _cutlass_scaled_mm_fake(out, a, b, a_scales, b_scales, bias=None):
    return None


def _quantize(x: Tensor, mode: str = "row", fp8_dtype: torch.dtype = torch.float8_e4m3fn,
              scale: Optional[Tensor] = None, rms_weight: Optional[Tensor] = None, eps: float = 1e-6,
              column_major_scales: bool = True) -> Tuple[Tensor, Tensor]:
    return _quant.quantize(x, mode, fp8_dtype, scale, rms_weight, eps, column_major_scales, copy_scale=True)


scaled_mm_op = _register("scaled_mm", _scaled_mm, _gemm.scaled_mm_fake)
cutlass_scaled_mm_op = _register("cutlass_scaled_mm", _cutlass_scaled_mm, _cutlass_scaled_mm_fake,
                                 mutates_args=("out",))
quantize_op = _register("quantize", _quantize, _quant.quantize_fake)


def scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16):
    """D[M, N] = (a[M, K] . b[N, K]^T) * scales (+ bias[N]), a new out_dtype tensor.

    a, b: FP8 (e4m3 / e5m2, any pairing) CUDA tensors, K contiguous, K % 16 == 0.
    scale_a: 1 element, [M] / [M, 1], or [M, ceil(K/128)] (1x128 groups);
    scale_b: 1 element, [N] / [N, 1] / [1, N], or [ceil(N/128), ceil(K/128)];
    float32. bias: [N] bf16 / f16 / f32 or None. Any N: when N * element size is
    not a multiple of 16 bytes the result is an [M, N] view of a padded buffer."""
    if _eager(a):
        return _gemm.scaled_mm(a, b, scale_a, scale_b, bias, out_dtype)
    return torch.ops.fp8kit.scaled_mm(a, b, scale_a, scale_b, bias, out_dtype)


def quantize(x, mode="row", fp8_dtype=torch.float8_e4m3fn, scale=None, rms_weight=None, eps=1e-6,
             column_major_scales=True):
    """(q, scale) for x [M, K] bf16 / f16 / f32, K % 16 == 0: mode "tensor"
    (static with scale=, dynamic without; scale [1]), "row" (dynamic per token,
    [M, 1]) or "block" (dynamic 1x128 groups, [M, ceil(K/128)], M-contiguous
    unless column_major_scales=False). rms_weight [K] (x's dtype) fuses
    y = x * rsqrt(mean(x^2) + eps) * rms_weight before quantising."""
    if _eager(x):
        return _quant.quantize(x, mode, fp8_dtype, scale, rms_weight, eps, column_major_scales)
    return torch.ops.fp8kit.quantize(x, mode, fp8_dtype, scale, rms_weight, eps, column_major_scales)
