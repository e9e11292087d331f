"""vLLM's FP8 entry points with vLLM's signatures, on fp8kit's kernels, so code
written against `vllm._custom_ops` and vLLM's fp8_utils can call them unchanged.

    cutlass_scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None)       b [K, N] column-major
    scaled_fp8_quant(input, scale=None, num_token_padding=None, scale_ub=None,
                     use_per_token_if_dynamic=False, output=None)          -> (q, scale)
    per_token_group_quant_fp8(x, group_size, eps=1e-10, dtype=None, column_major_scales=False,
                              tma_aligned_scales=False, out_q=None, use_ue8m0=None) -> (q, scale)
    rms_norm_dynamic_per_token_quant(input, weight, epsilon, quant_dtype, scale_ub=None,
                                     residual=None)                         -> (q, scale)

NVFP4 (vLLM's layouts bit for bit: packed uint8 [M, K/2], E4M3 scales swizzled in
128x4 tiles over int32 [round_up(M, 128), round_up(K/16, 4) / 4]):

    cutlass_scaled_fp4_mm(out, a, b, block_scale_a, block_scale_b, alpha)   writes out
    scaled_fp4_quant(input, input_global_scale, is_sf_swizzled_layout=True)  -> (q, scale)

Differences, each refused with fp8kit.Error rather than ignored: group_size must
be 128; scale_ub, num_token_padding, residual, tma_aligned_scales and
use_ue8m0=True are not supported. An all-zero token or group gets scale 1
(vLLM: its eps floor); the dequantised values are the same (zero).
"""

import torch

from . import _gemm, _lib
from . import _torch as T
from . import ops
from ._lib import invalid


def cutlass_scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None):
    """vllm._custom_ops.cutlass_scaled_mm: out [M, N] = (a . b) * scales (+ bias),
    b [K, N] column-major (weight.t()); scales as fp8kit.ops' cutlass_scaled_mm takes them."""
    if out_dtype not in T.WIDE_DTYPES:
        raise invalid(f"out_dtype = {out_dtype}: must be one of bfloat16, float16, float32")
    if not isinstance(a, torch.Tensor) or a.dim() != 2:
        raise invalid(f"a: must be a 2-D [M, K] tensor, got {getattr(a, 'shape', type(a).__name__)}")
    if not isinstance(b, torch.Tensor) or b.dim() != 2:
        raise invalid(f"b: must be a 2-D [K, N] tensor, got {getattr(b, 'shape', type(b).__name__)}")
    out = T.padded_empty(a.shape[0], b.shape[1], out_dtype, a.device)
    if ops._eager(a):
        _gemm.cutlass_scaled_mm_into(out, a, b, scale_a, scale_b, bias, fresh=True)
    else:
        torch.ops.fp8kit.cutlass_scaled_mm(out, a, b, scale_a, scale_b, bias)
    return out


def _refuse(**unsupported):
    for name, value in unsupported.items():
        if value is not None and value is not False:
            shown = "a tensor" if isinstance(value, torch.Tensor) else repr(value)
            raise invalid(f"{name} = {shown}: not supported by fp8kit")


def _into(output, q, name):
    if output is None:
        return q
    if not isinstance(output, torch.Tensor) or output.shape != q.shape or output.dtype != q.dtype:
        raise invalid(f"{name}: must be a {q.dtype} tensor of shape {tuple(q.shape)}")
    output.copy_(q)
    return output


def scaled_fp8_quant(input, scale=None, num_token_padding=None, scale_ub=None, use_per_token_if_dynamic=False,
                     output=None):
    """vllm._custom_ops.scaled_fp8_quant to e4m3: static per tensor (scale given),
    dynamic per tensor, or dynamic per token (scale [M, 1])."""
    _refuse(num_token_padding=num_token_padding, scale_ub=scale_ub)
    mode = "row" if scale is None and use_per_token_if_dynamic else "tensor"
    q, s = ops.quantize(input, mode, torch.float8_e4m3fn, scale)
    return _into(output, q, "output"), s


def per_token_group_quant_fp8(x, group_size, eps=1e-10, dtype=None, column_major_scales=False,
                              tma_aligned_scales=False, out_q=None, use_ue8m0=None):
    """vLLM's per_token_group_quant_fp8 for 1x128 groups: x [..., K] ->
    (q [..., K], scale [..., K/128]); column_major_scales gives the [M, K/128]
    scale with strides (1, M) that cutlass_scaled_mm's block path reads without a copy."""
    _refuse(tma_aligned_scales=tma_aligned_scales, use_ue8m0=use_ue8m0)
    if group_size != _lib.BLOCK:
        raise invalid(f"group_size = {group_size}: fp8kit quantises 1x{_lib.BLOCK} groups")
    if not isinstance(x, torch.Tensor) or x.dim() < 2:
        raise invalid(f"x: must be a tensor of 2 or more dimensions, got {getattr(x, 'shape', type(x).__name__)}")
    if column_major_scales and x.dim() != 2:
        raise invalid(f"x has shape {tuple(x.shape)}: column-major scales need a 2-D x")
    lead, k = x.shape[:-1], x.shape[-1]
    q, s = ops.quantize(x.reshape(-1, k), "block", dtype or torch.float8_e4m3fn,
                        column_major_scales=column_major_scales)
    q = q.reshape(*lead, k)
    return _into(out_q, q, "out_q"), (s if column_major_scales else s.reshape(*lead, s.shape[-1]))


def rms_norm_dynamic_per_token_quant(input, weight, epsilon, quant_dtype=torch.float8_e4m3fn, scale_ub=None,
                                     residual=None):
    """vllm._custom_ops.rms_norm_dynamic_per_token_quant without a residual:
    (q [M, K], scale [M, 1]) of RMSNorm(input) * weight, fused in one kernel."""
    _refuse(scale_ub=scale_ub, residual=residual)
    return ops.quantize(input, "row", quant_dtype, None, weight, epsilon)


def cutlass_scaled_fp4_mm(out, a, b, block_scale_a, block_scale_b, alpha):
    """vLLM's cutlass_scaled_fp4_mm: out [M, N] = alpha * (a . b^T) for NVFP4 a uint8
    [M, K/2] and b uint8 [N, K/2], swizzled E4M3 block scales, alpha float32 [1]."""
    from . import _nvfp4

    if ops._eager(a):
        _nvfp4.nvfp4_mm_into(out, a, b, block_scale_a, block_scale_b, alpha)
    else:
        torch.ops.fp8kit.cutlass_scaled_fp4_mm(out, a, b, block_scale_a, block_scale_b, alpha)
    return out


def scaled_fp4_quant(input, input_global_scale, is_sf_swizzled_layout=True):
    """vLLM's scaled_fp4_quant: (q uint8 [M, K/2], scales float8_e4m3fn) of input [M, K]
    bf16 / f16; swizzled scales are [round_up(M, 128), round_up(K/16, 4)], linear [M, K/16]."""
    from . import _nvfp4

    return _nvfp4.nvfp4_quantize(input, input_global_scale, is_sf_swizzled_layout)
