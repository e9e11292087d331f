"""Quantisation behind fp8kit's ops: q[M, K] = fp8(y / s), y = x or RMSNorm(x) * w.

Modes and the scale each returns (the shapes fp8kit's scaled_mm and vLLM take):

    "tensor", scale given    static per tensor: s = scale, returned as [1]
    "tensor", scale None     dynamic per tensor: s = amax|y| / FP8_MAX, [1]
    "row"                    dynamic per token: [M, 1]
    "block"                  dynamic per 1x128 group: [M, ceil(K/128)], M-contiguous
                             (strides (1, M)) unless column_major_scales=False

An all-zero row, group or tensor gets s = 1. The C API has no amax reduction,
so dynamic per-tensor takes amax|y| in torch (on the device, no synchronisation;
with rms_weight, y is recomputed in f32 for it) and then quantises statically.
"""

import torch

from . import _lib
from . import _torch as T
from ._lib import BLOCK, ceil_div, invalid

MODES = ("tensor", "row", "block")


def _dynamic_tensor_scale(x, rms_weight, eps, fp8_max):
    y = x.float()
    if rms_weight is not None:
        y = y * torch.rsqrt(y.square().mean(dim=1, keepdim=True) + eps) * rms_weight.float()
    amax = y.abs().amax().reshape(1)
    return torch.where(amax > 0, amax / fp8_max, torch.ones_like(amax))


def _check(x, mode, fp8_dtype, scale, rms_weight):
    dev = T.cuda_device(x, "x")
    x_type = T.tensor(x, "x", T.WIDE_DTYPES, 2, dev)
    ldx = T.row_pitch(x, "x")
    q_type = T.FP8_DTYPES.get(fp8_dtype)
    if q_type is None:
        raise invalid(f"fp8_dtype = {fp8_dtype}: must be float8_e4m3fn or float8_e5m2")
    if mode not in MODES:
        raise invalid(f"mode = {mode!r}: must be 'tensor', 'row' or 'block'")
    if scale is not None:
        if mode != "tensor":
            raise invalid(f"scale: a given scale is static per-tensor quantisation; mode is {mode!r}")
        T.tensor(scale, "scale", T.SCALE_DTYPES, None, dev)
        if scale.numel() != 1:
            raise invalid(f"scale has shape {tuple(scale.shape)}: a static per-tensor scale has 1 element")
    if rms_weight is not None:
        T.tensor(rms_weight, "rms_weight", {x.dtype: x_type}, 1, dev)
        if rms_weight.shape[0] != x.shape[1] or (x.shape[1] > 1 and rms_weight.stride(0) != 1):
            raise invalid(f"rms_weight has shape {tuple(rms_weight.shape)}, strides {rms_weight.stride()}: "
                          f"must be a contiguous [K] = [{x.shape[1]}]")
    return dev, x_type, ldx, q_type


def quantize(x, mode="row", fp8_dtype=torch.float8_e4m3fn, scale=None, rms_weight=None, eps=1e-6,
             column_major_scales=True, copy_scale=False):
    """(q, s) for x [M, K] bf16 / f16 / f32 (see the module's docstring). A
    static scale is returned as given (reshaped to [1]) unless copy_scale."""
    dev, x_type, ldx, q_type = _check(x, mode, fp8_dtype, scale, rms_weight)
    m, k = x.shape
    q = torch.empty((m, k), dtype=fp8_dtype, device=x.device)
    if mode == "tensor":
        if scale is None and m == 0:
            s = torch.ones((1,), dtype=torch.float32, device=x.device)
        elif scale is None:
            s = _dynamic_tensor_scale(x, rms_weight, eps, _lib.FP8_MAX[q_type])
        else:
            s = scale.reshape(1)
            s = s.clone() if copy_scale else T.dense(s)
        code, written = _lib.SCALE_TENSOR, s
    elif mode == "row":
        s = written = torch.empty((m, 1), dtype=torch.float32, device=x.device)
        code = _lib.SCALE_ROW
    else:
        written = torch.empty((ceil_div(k, BLOCK), m), dtype=torch.float32, device=x.device)
        s = written.t() if column_major_scales else torch.empty(written.t().shape, dtype=torch.float32,
                                                                 device=x.device)
        code = _lib.SCALE_BLOCK
    if m == 0:
        return q, s
    T.run_on(dev, _lib.quantize, m, k, x.data_ptr(), ldx, x_type, q.data_ptr(), k, q_type, code,
             written.data_ptr(), 0 if rms_weight is None else rms_weight.data_ptr(), float(eps), T.stream(dev))
    if mode == "block" and not column_major_scales:
        s.copy_(written.t())
    return q, s


def quantize_fake(x, mode="row", fp8_dtype=torch.float8_e4m3fn, scale=None, rms_weight=None, eps=1e-6,
                  column_major_scales=True):
    """What quantize returns, for tracing."""
    m, k = x.shape
    q = torch.empty((m, k), dtype=fp8_dtype, device=x.device)
    if mode == "tensor":
        return q, torch.empty((1,), dtype=torch.float32, device=x.device)
    if mode == "row":
        return q, torch.empty((m, 1), dtype=torch.float32, device=x.device)
    written = torch.empty((ceil_div(k, BLOCK), m), dtype=torch.float32, device=x.device)
    return q, (written.t() if column_major_scales else written.t().contiguous())
