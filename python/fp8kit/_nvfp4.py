"""NVFP4 on PyTorch tensors: GEMM (W4A4 and W4A16), grouped GEMM and quantisation,
and their torch.library operators (namespace `fp8kit`, each with a fake):

    torch.ops.fp8kit.nvfp4_mm(a, b, a_scale, b_scale, alpha, bias=None, out_dtype=None,
                              swizzled=True) -> Tensor
    torch.ops.fp8kit.nvfp4_grouped_mm(a, b, a_scale, b_scale, alpha, offs, bias=None,
                                      out_dtype=None, swizzled=True) -> Tensor
    torch.ops.fp8kit.nvfp4_quantize(x, global_scale, swizzled=True, rms_weight=None,
                                    eps=1e-06) -> (Tensor, Tensor)
    torch.ops.fp8kit.cutlass_scaled_fp4_mm(out, a, b, block_scale_a, block_scale_b, alpha) -> ()

Packed operands are uint8 (or torch.float4_e2m1fn_x2) [rows, K/2], element 2i in the
low nibble; block scales are E4M3 bytes (float8_e4m3fn, uint8 or vLLM's int32 view) in
the swizzled 128x4 layout (swizzled=True) or [rows, K/16] row-major; alpha is a
float32 tensor of 1 element (grouped: E), or None for 1. W4A16: a is bf16 / f16
[M, K] and a_scale None. The layouts are fp8kit/nvfp4.h's and vLLM's, bit for bit.
"""

import torch

from . import _lib
from . import _torch as T
from . import ops
from ._lib import invalid

PACKED_DTYPES = {torch.uint8: _lib.DTYPE_NVFP4}
if hasattr(torch, "float4_e2m1fn_x2"):
    PACKED_DTYPES[torch.float4_e2m1fn_x2] = _lib.DTYPE_NVFP4
SCALE_BYTE_DTYPES = (torch.float8_e4m3fn, torch.uint8, torch.int32)
A16_DTYPES = {torch.bfloat16: _lib.DTYPE_BF16, torch.float16: _lib.DTYPE_F16}
OUT_DTYPES = T.WIDE_DTYPES


def _layout(swizzled):
    return _lib.NVFP4_SWIZZLED if swizzled else _lib.NVFP4_LINEAR


def _scales(t, name, rows, k, swizzled, dev, copies=1):
    """Pointer of the block scales t after checking they hold `copies` operands'
    scales of [rows, k] in the layout, contiguously."""
    if not isinstance(t, torch.Tensor):
        raise invalid(f"{name}: expected a torch.Tensor of E4M3 scale bytes, got {type(t).__name__}")
    if t.get_device() != dev:
        raise invalid(f"{name} is on {t.device}: every tensor must be on cuda:{dev}")
    if t.dtype not in SCALE_BYTE_DTYPES:
        raise invalid(f"{name}.dtype = {t.dtype}: must be float8_e4m3fn, uint8 or int32 (E4M3 bytes)")
    if not t.is_contiguous():
        raise invalid(f"{name} has strides {t.stride()}: the scales must be contiguous")
    want = copies * _lib.nvfp4_scale_bytes(rows, k, swizzled)
    have = t.numel() * t.element_size()
    if have < want:
        raise invalid(f"{name} holds {have} bytes: the {'swizzled' if swizzled else 'linear'} scales of "
                      f"{copies} x [{rows}, {k}] need {want}")
    return t.data_ptr()


def _alpha(alpha, dev, count):
    if alpha is None:
        return 0
    T.tensor(alpha, "alpha", T.SCALE_DTYPES, None, dev)
    if alpha.numel() != count or not alpha.is_contiguous():
        raise invalid(f"alpha has shape {tuple(alpha.shape)}: must be {count} contiguous float32")
    return alpha.data_ptr()


def _a_operand(a, dev, rank):
    """(a_type, k, lda) of the A operand: packed NVFP4 or bf16 / f16."""
    if not isinstance(a, torch.Tensor):
        raise invalid(f"a: expected a torch.Tensor, got {type(a).__name__}")
    if a.dtype in PACKED_DTYPES:
        T.tensor(a, "a", PACKED_DTYPES, rank, dev)
        return _lib.DTYPE_NVFP4, 2 * a.shape[-1], a.stride(-2)
    T.tensor(a, "a", {**PACKED_DTYPES, **A16_DTYPES}, rank, dev)
    return A16_DTYPES[a.dtype], a.shape[-1], a.stride(-2)


def _check_rows(t, name):
    if t.shape[-1] > 1 and t.stride(-1) != 1:
        raise invalid(f"{name} has strides {t.stride()}: its last dimension must be contiguous (stride 1)")


def _bias(bias, dev, count):
    if bias is None:
        return 0, _lib.DTYPE_F32
    code = T.tensor(bias, "bias", T.WIDE_DTYPES, None, dev)
    if bias.numel() != count or not bias.is_contiguous():
        raise invalid(f"bias has shape {tuple(bias.shape)}: must be {count} contiguous elements")
    return bias.data_ptr(), code


def _lender(dev):
    """lend(nbytes) for _lib's NVFP4 calls: fresh workspace from PyTorch's caching
    allocator on the current stream (CUDA-graph capture serves it too), held
    until the call is queued; the allocator reuses it only after, in stream order."""
    held = []

    def lend(nbytes):
        held.append(torch.empty(nbytes, dtype=torch.uint8, device=torch.device("cuda", dev)))
        return held[-1].data_ptr()
    return lend


def _out_type(out_dtype):
    code = OUT_DTYPES.get(out_dtype)
    if code is None:
        raise invalid(f"out_dtype = {out_dtype}: must be bfloat16, float16 or float32")
    return code


def nvfp4_mm_into(out, a, b, a_scale, b_scale, alpha, bias=None, swizzled=True):
    """out[M, N] = alpha * (a . b^T) (+ bias), in place. out is written through a
    padded temporary when its row pitch or base is not 16-byte aligned (the
    library's rule for D), as the FP8 out variant does."""
    dev = T.cuda_device(b, "b")
    a_type, k, lda = _a_operand(a, dev, 2)
    T.tensor(b, "b", PACKED_DTYPES, 2, dev)
    _check_rows(a, "a")
    _check_rows(b, "b")
    m, n = a.shape[0], b.shape[0]
    if b.shape[1] * 2 != k:
        raise invalid(f"b has shape {tuple(b.shape)}: must be [N, K/2] = [{n}, {k // 2}] for a of {tuple(a.shape)}")
    d_type = _out_type(out.dtype)
    T.tensor(out, "out", OUT_DTYPES, 2, dev)
    if tuple(out.shape) != (m, n):
        raise invalid(f"out has shape {tuple(out.shape)}: must be [{m}, {n}]")
    _check_rows(out, "out")
    a_scale_ptr = 0
    if a_type == _lib.DTYPE_NVFP4:
        if a_scale is None:
            raise invalid("a_scale is None: NVFP4 a (W4A4) needs its block scales")
        a_scale_ptr = _scales(a_scale, "a_scale", m, k, swizzled, dev)
    elif a_scale is not None:
        raise invalid("a_scale: a bf16 / f16 a (W4A16) takes no block scales")
    bias_ptr, bias_type = _bias(bias, dev, n)
    if m == 0 or n == 0:
        return out
    layout = _layout(swizzled)
    target = out if T.output_ready(out) else T.padded_empty(m, n, out.dtype, out.device)
    operands = (a.data_ptr(), lda, a_scale_ptr, b.data_ptr(), b.stride(0),
                _scales(b_scale, "b_scale", n, k, swizzled, dev), _alpha(alpha, dev, 1), target.data_ptr(),
                target.stride(0), bias_ptr, a_type, _lib.DTYPE_NVFP4, layout, layout, d_type, bias_type)
    lend, key = (_lender(dev), ("dense", m, n, k, dev)) if a_type == _lib.DTYPE_NVFP4 else (None, None)
    T.run_on(dev, _lib.nvfp4_gemm, m, n, k, operands, T.stream(dev), lend, key)
    if target is not out:
        out.copy_(target)
    return out


def mm_impl(a, b, a_scale, b_scale, alpha, bias=None, out_dtype=torch.bfloat16, swizzled=True):
    """A new out_dtype [M, N]: alpha * (a . b^T) (+ bias); see the module's docstring."""
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor) or b.dim() != 2:
        raise invalid("a, b: expected a 2-D tensor each")
    _out_type(out_dtype)
    out = T.padded_empty(a.shape[0], b.shape[0], out_dtype, a.device)
    return nvfp4_mm_into(out, a, b, a_scale, b_scale, alpha, bias, swizzled)


def nvfp4_mm_fake(a, b, a_scale, b_scale, alpha, bias=None, out_dtype=None, swizzled=True):
    return T.padded_empty(a.shape[0], b.shape[0], out_dtype or torch.bfloat16, a.device)


def grouped_mm_impl(a, b, a_scale, b_scale, alpha, offs, bias=None, out_dtype=torch.bfloat16, swizzled=True):
    """Mixture of experts: a [T, K(/2)] with offs int32 [E] cumulative row ends
    (contiguous) or a [E, max_m, K(/2)] with offs = counts int32 [E] (masked); b
    uint8 [E, N, K/2], b_scale E experts' scales one after another, alpha [E] or
    None, bias [E, N] or None. Returns [T, N] or [E, max_m, N]."""
    dev = T.cuda_device(b, "b")
    masked = isinstance(a, torch.Tensor) and a.dim() == 3
    a_type, k, lda = _a_operand(a, dev, 3 if masked else 2)
    T.tensor(b, "b", PACKED_DTYPES, 3, dev)
    if not b.is_contiguous():
        raise invalid(f"b has strides {b.stride()}: [E, N, K/2] must be contiguous")
    _check_rows(a, "a")
    if masked and a.stride(0) != a.shape[1] * a.stride(1):
        raise invalid(f"a has strides {a.stride()}: the experts of a masked a must follow one another")
    e, n = b.shape[0], b.shape[1]
    if b.shape[2] * 2 != k:
        raise invalid(f"b has shape {tuple(b.shape)}: must be [E, N, K/2] with K = {k}")
    T.tensor(offs, "offs", {torch.int32: 0}, 1, dev)
    if offs.shape[0] != e or not offs.is_contiguous():
        raise invalid(f"offs has shape {tuple(offs.shape)}: must be [E] = [{e}] contiguous int32")
    rows = a.shape[1] if masked else a.shape[0]
    if masked and a.shape[0] != e:
        raise invalid(f"a has shape {tuple(a.shape)}: a masked a is [E, max_m, K] with E = {e}")
    d_type = _out_type(out_dtype)
    total = e * rows if masked else rows
    out = torch.empty((total, n), dtype=out_dtype, device=b.device)
    a_scale_ptr = 0
    if a_type == _lib.DTYPE_NVFP4:
        if a_scale is None:
            raise invalid("a_scale is None: NVFP4 a (W4A4) needs its block scales")
        a_scale_ptr = _scales(a_scale, "a_scale", rows, k, swizzled, dev, e if masked else 1)
    elif a_scale is not None:
        raise invalid("a_scale: a bf16 / f16 a (W4A16) takes no block scales")
    bias_ptr, bias_type = _bias(bias, dev, e * n)
    b_scale_ptr = _scales(b_scale, "b_scale", n, k, swizzled, dev, e)
    alpha_ptr = _alpha(alpha, dev, e)
    if n % 8 != 0:
        raise invalid(f"n = {n}: the grouped output's rows must be 16-byte multiples (N % 8 == 0)")
    if total > 0:
        layout = _layout(swizzled)
        operands = (a.data_ptr(), lda, a_scale_ptr, b.data_ptr(), b.stride(1), b_scale_ptr, alpha_ptr,
                    out.data_ptr(), n, bias_ptr, a_type, _lib.DTYPE_NVFP4, layout, layout, d_type, bias_type)
        lend, key = (_lender(dev), ("grouped", masked, e, rows, n, k, dev)) if a_type == _lib.DTYPE_NVFP4 \
            else (None, None)
        T.run_on(dev, _lib.nvfp4_grouped_gemm, _lib.GROUPED_MASKED if masked else _lib.GROUPED_CONTIGUOUS, e,
                 rows, n, k, 0 if masked else offs.data_ptr(), offs.data_ptr() if masked else 0, operands,
                 T.stream(dev), lend, key)
    return out.reshape(e, rows, n) if masked else out


def nvfp4_grouped_mm_fake(a, b, a_scale, b_scale, alpha, offs, bias=None, out_dtype=None, swizzled=True):
    shape = (a.shape[0], a.shape[1], b.shape[1]) if a.dim() == 3 else (a.shape[0], b.shape[1])
    return torch.empty(shape, dtype=out_dtype or torch.bfloat16, device=a.device)


def _scale_tensor(m, k, swizzled, device):
    """vLLM's scale buffer: int32 [round_up(M, 128), round_up(K/16, 4) / 4] swizzled, uint8
    [M, K/16] linear, returned viewed as float8_e4m3fn."""
    blocks = k // _lib.NVFP4_BLOCK
    if swizzled:
        return torch.empty((-(-m // 128) * 128, -(-blocks // 4)), dtype=torch.int32, device=device)
    return torch.empty((m, blocks), dtype=torch.uint8, device=device)


def quantize_impl(x, global_scale, swizzled=True, rms_weight=None, eps=1e-6):
    """(q uint8 [M, K/2], scales float8_e4m3fn) of x [M, K] bf16 / f16, K % 16 == 0:
    s = e4m3(g * amax_16 / 6), q = e2m1(x * g / s), g = global_scale (1 element, or
    None for 1). Swizzled scales are [round_up(M, 128), round_up(K/16, 4)], linear
    [M, K/16]. rms_weight [K] fuses RMSNorm first."""
    dev = T.cuda_device(x, "x")
    x_type = T.tensor(x, "x", A16_DTYPES, 2, dev)
    ldx = T.row_pitch(x, "x")
    m, k = x.shape
    if k % _lib.NVFP4_BLOCK != 0:
        raise invalid(f"x has shape {tuple(x.shape)}: K must be a multiple of {_lib.NVFP4_BLOCK}")
    g_ptr = _alpha(global_scale, dev, 1) if global_scale is not None else 0
    w_ptr = 0
    if rms_weight is not None:
        T.tensor(rms_weight, "rms_weight", {x.dtype: x_type}, 1, dev)
        if rms_weight.shape[0] != k or not rms_weight.is_contiguous():
            raise invalid(f"rms_weight has shape {tuple(rms_weight.shape)}: must be a contiguous [K] = [{k}]")
        w_ptr = rms_weight.data_ptr()
    q = torch.empty((m, k // 2), dtype=torch.uint8, device=x.device)
    s = _scale_tensor(m, k, swizzled, x.device)
    if m > 0:
        T.run_on(dev, _lib.nvfp4_quantize, m, k, x.data_ptr(), ldx, q.data_ptr(), k // 2, s.data_ptr(), g_ptr, w_ptr,
                 x_type, _layout(swizzled), float(eps), T.stream(dev))
    return q, s.view(torch.float8_e4m3fn)


def nvfp4_quantize_fake(x, global_scale, swizzled=True, rms_weight=None, eps=1e-6):
    m, k = x.shape
    q = torch.empty((m, k // 2), dtype=torch.uint8, device=x.device)
    return q, _scale_tensor(m, k, swizzled, x.device).view(torch.float8_e4m3fn)


def _cutlass_scaled_fp4_mm(out, a, b, block_scale_a, block_scale_b, alpha):
    nvfp4_mm_into(out, a, b, block_scale_a, block_scale_b, alpha)


def _cutlass_scaled_fp4_mm_fake(out, a, b, block_scale_a, block_scale_b, alpha):
    return None


def _nvfp4_mm(a, b, a_scale, b_scale, alpha, bias=None, out_dtype=None, swizzled=True):
    return mm_impl(a, b, a_scale, b_scale, alpha, bias, out_dtype or torch.bfloat16, swizzled)


def _nvfp4_grouped_mm(a, b, a_scale, b_scale, alpha, offs, bias=None, out_dtype=None, swizzled=True):
    return grouped_mm_impl(a, b, a_scale, b_scale, alpha, offs, bias, out_dtype or torch.bfloat16, swizzled)


def _nvfp4_quantize(x, global_scale, swizzled=True, rms_weight=None, eps=1e-6):
    return quantize_impl(x, global_scale, swizzled, rms_weight, eps)


nvfp4_mm_op = ops._register(
    "nvfp4_mm", "(Tensor a, Tensor b, Tensor? a_scale, Tensor b_scale, Tensor? alpha, Tensor? bias=None, "
    "ScalarType? out_dtype=None, bool swizzled=True) -> Tensor", _nvfp4_mm, nvfp4_mm_fake)
nvfp4_grouped_mm_op = ops._register(
    "nvfp4_grouped_mm", "(Tensor a, Tensor b, Tensor? a_scale, Tensor b_scale, Tensor? alpha, Tensor offs, "
    "Tensor? bias=None, ScalarType? out_dtype=None, bool swizzled=True) -> Tensor", _nvfp4_grouped_mm,
    nvfp4_grouped_mm_fake)
nvfp4_quantize_op = ops._register(
    "nvfp4_quantize", "(Tensor x, Tensor? global_scale, bool swizzled=True, Tensor? rms_weight=None, "
    "float eps=1e-06) -> (Tensor, Tensor)", _nvfp4_quantize, nvfp4_quantize_fake)
cutlass_scaled_fp4_mm_op = ops._register(
    "cutlass_scaled_fp4_mm", "(Tensor(a!) out, Tensor a, Tensor b, Tensor block_scale_a, Tensor block_scale_b, "
    "Tensor alpha) -> ()", _cutlass_scaled_fp4_mm, _cutlass_scaled_fp4_mm_fake)


def nvfp4_mm(a, b, a_scale, b_scale, alpha, bias=None, out_dtype=torch.bfloat16, swizzled=True):
    """D [M, N] = alpha * (a . b^T) (+ bias): eagerly the implementation, else the op
    (tracing, torch.compile). See the module's docstring for the operands."""
    if ops._eager(a):
        return mm_impl(a, b, a_scale, b_scale, alpha, bias, out_dtype, swizzled)
    return nvfp4_mm_op(a, b, a_scale, b_scale, alpha, bias, out_dtype, swizzled)


def nvfp4_grouped_mm(a, b, a_scale, b_scale, alpha, offs, bias=None, out_dtype=torch.bfloat16, swizzled=True):
    """The grouped NVFP4 GEMM (grouped_mm_impl has the operands), eager or traced."""
    if ops._eager(a):
        return grouped_mm_impl(a, b, a_scale, b_scale, alpha, offs, bias, out_dtype, swizzled)
    return nvfp4_grouped_mm_op(a, b, a_scale, b_scale, alpha, offs, bias, out_dtype, swizzled)


def nvfp4_quantize(x, global_scale, swizzled=True, rms_weight=None, eps=1e-6):
    """(q, scales) of x (quantize_impl has the semantics), eager or traced."""
    if ops._eager(x):
        return quantize_impl(x, global_scale, swizzled, rms_weight, eps)
    return nvfp4_quantize_op(x, global_scale, swizzled, rms_weight, eps)
