"""The grouped (mixture-of-experts) GEMM behind fp8kit.grouped_mm:
D_e = (A_e . B_e^T) * scales_e (+ bias_e) for experts e = 0 .. E-1, one launch.

The layout follows a's rank, as in torch._scaled_grouped_mm:

    contiguous  a [T, K], offs int32 [E] cumulative row ends  -> out [T, N]
    masked      a [E, max_m, K], offs = counts int32 [E]      -> out [E, max_m, N]

b is [E, N, K] with K contiguous, or the [E, K, N] view of one (b.transpose(1, 2),
K-major strides: what torch._scaled_grouped_mm and vLLM pass); the experts of b
must be evenly spaced (stride(0) = N * row pitch). Scales, float32, logical
shapes in b's [N, K] orientation:

    scale_a  1 element (one for all) | [E, 1, 1] (per expert)
             | contiguous [T] / [T, 1], masked [E, max_m] / [E, max_m, 1] (per token)
             | contiguous [T, ceil(K/128)], masked [E, max_m, ceil(K/128)] (1x128 groups)
    scale_b  1 element | [E] / [E, 1] / [E, 1, 1] (per expert) | [E, N] (per channel)
             | [E, ceil(N/128), ceil(K/128)] (128x128 blocks)

Block scaling is on both sides or neither; the non-block reading wins where a
shape fits both (both readings then give the same product). bias is [E, N].
Group sizes are read on the device only (never synchronised on): an offset or
count the kernel cannot use is clamped (docs/grouped.md), and rows that belong
to no expert are 0 in the result.
"""

import torch

from . import _lib
from . import _torch as T
from ._lib import BLOCK, ceil_div, invalid

# offs / counts: int32 by the C API's contract (no fp8kit dtype code; the value is only a name).
GROUP_DTYPES = {torch.int32: "int32"}


def _b_is_enk(b, k):
    """True when b is [E, N, K] with K contiguous, False when it is the [E, K, N] view of one."""
    if b.shape[2] == k and (b.stride(2) == 1 or b.shape[2] == 1):
        return True
    if b.shape[1] == k and (b.stride(1) == 1 or b.shape[1] == 1):
        return False
    raise invalid(f"b has shape {tuple(b.shape)}, strides {b.stride()}: must be [E, N, K] with K contiguous "
                  f"or its [E, K, N] transpose (K-major strides), K = {k}")


def _b_as_enk(b, e, k, dev):
    """(b as an [E, N, K] view, its row pitch, its dtype code); the experts evenly spaced."""
    b_type = T.tensor(b, "b", T.FP8_DTYPES, 3, dev)
    enk = b if _b_is_enk(b, k) else b.transpose(1, 2)
    if enk.shape[0] != e:
        raise invalid(f"b has shape {tuple(b.shape)}: its first dimension must be E = {e} (the length of offs)")
    n = enk.shape[1]
    ldb = enk.stride(1) if n > 1 else enk.stride(0)
    if e > 1 and enk.stride(0) != n * ldb:
        raise invalid(f"b has strides {b.stride()}: the experts must be evenly spaced (stride(0) = N * {ldb})")
    return enk, ldb, b_type


def _a_pitch(a, e):
    """Row pitch of a [T, K] or [E, max_m, K] (K contiguous; masked experts evenly spaced)."""
    if a.dim() == 2:
        return T.row_pitch(a, "a")
    if a.shape[0] != e:
        raise invalid(f"a has shape {tuple(a.shape)}: masked a must be [E, max_m, K] with E = {e} (from offs)")
    if a.stride(2) != 1 and a.shape[2] > 1:
        raise invalid(f"a has strides {a.stride()}: its last dimension must be contiguous (stride 1)")
    lda = a.stride(1) if a.shape[1] > 1 else a.stride(0)
    if e > 1 and a.stride(0) != a.shape[1] * lda:
        raise invalid(f"a has strides {a.stride()}: the experts must be evenly spaced (stride(0) = max_m * {lda})")
    return lda


def _non_block_modes(scale_a, scale_b, e, rows_shape, n):
    sa, sb = tuple(scale_a.shape), tuple(scale_b.shape)
    per_token = (rows_shape, rows_shape + (1,))
    a_mode = _lib.SCALE_TENSOR if scale_a.numel() == 1 or sa == (e, 1, 1) else \
        _lib.SCALE_ROW if sa in per_token else None
    b_mode = _lib.SCALE_TENSOR if scale_b.numel() == 1 or sb in ((e,), (e, 1), (e, 1, 1)) else \
        _lib.SCALE_COL if sb == (e, n) else None
    return a_mode, b_mode


def _flat(scale, e, mode):
    """A non-block scale as the dense vector fp8kit reads: [E] for a per-expert one (a single
    value repeated), else the scale in row-major order ([R] per token, [E, N] per channel)."""
    if mode == _lib.SCALE_TENSOR:
        return scale.reshape(-1).expand(e).contiguous() if scale.numel() == 1 else T.dense(scale.reshape(e))
    return T.dense(scale)


def _scales(scale_a, scale_b, e, rows_shape, n, k):
    """(a_mode, a_scale, b_mode, b_scale): fp8kit modes and dense f32 tensors in fp8kit's layouts
    (docs/grouped.md); rows_shape is (T,) or (E, max_m)."""
    a_mode, b_mode = _non_block_modes(scale_a, scale_b, e, rows_shape, n)
    if a_mode is not None and b_mode is not None:
        return a_mode, _flat(scale_a, e, a_mode), b_mode, _flat(scale_b, e, b_mode)
    kb, nb = ceil_div(k, BLOCK), ceil_div(n, BLOCK)
    block_a, block_b = rows_shape + (kb,), (e, nb, kb)
    if tuple(scale_a.shape) == block_a and tuple(scale_b.shape) == block_b:
        # fp8kit reads A's groups K-major: [kb, T] (contiguous) or [E, kb, max_m] (masked).
        return _lib.SCALE_BLOCK, T.dense(scale_a.transpose(-1, -2)), _lib.SCALE_BLOCK, T.dense(scale_b)
    sa, sb = tuple(scale_a.shape), tuple(scale_b.shape)
    if sb == block_b:
        raise invalid(f"scale_a has shape {sa}: with block scales for B it must be {list(block_a)}")
    if sa == block_a and kb != 1:
        raise invalid(f"scale_b has shape {sb}: with 1x128 scales for A it must be [E, ceil(N/128), "
                      f"ceil(K/128)] = {list(block_b)}")
    if a_mode is None:
        rows = list(rows_shape)
        raise invalid(f"scale_a has shape {sa}: must have 1 element, be [E, 1, 1] = [{e}, 1, 1] (per expert), "
                      f"{rows} or {rows + [1]} (per token) or {list(block_a)} (1x128 groups)")
    raise invalid(f"scale_b has shape {sb}: must have 1 element, be [E] (per expert), [E, N] = [{e}, {n}] "
                  f"(per channel) or [E, ceil(N/128), ceil(K/128)] = {list(block_b)}")


def _groups(offs, e, dev):
    T.tensor(offs, "offs", GROUP_DTYPES, 1, dev)
    if offs.shape[0] != e or (e > 1 and offs.stride(0) != 1):
        raise invalid(f"offs has shape {tuple(offs.shape)}, strides {offs.stride()}: must be a contiguous "
                      f"[E] = [{e}] (E from b)")
    return offs.data_ptr()


def _bias(bias, e, n, dev):
    if bias is None:
        return 0, _lib.DTYPE_F32
    bias_type = T.tensor(bias, "bias", T.WIDE_DTYPES, 2, dev)
    if tuple(bias.shape) != (e, n) or not bias.is_contiguous():
        raise invalid(f"bias has shape {tuple(bias.shape)}, strides {bias.stride()}: must be a contiguous "
                      f"[E, N] = [{e}, {n}]")
    return bias.data_ptr(), bias_type


def _out(a, n, out_dtype, make):
    """The result, [T, N] or [E, max_m, N], rows 16-byte aligned as for scaled_mm."""
    return T.padded_empty(a.shape[-2], n, out_dtype, a.device, tuple(a.shape[:-2]), make)


def grouped_mm(a, b, scale_a, scale_b, offs, bias=None, out_dtype=torch.bfloat16, use_fast_accum=False):
    """The grouped GEMM as a new tensor (layout from a's rank; the module docstring)."""
    if out_dtype not in T.WIDE_DTYPES:
        raise invalid(f"out_dtype = {out_dtype}: must be one of bfloat16, float16, float32")
    dev = T.cuda_device(a, "a")
    a_type = T.tensor(a, "a", T.FP8_DTYPES, None, dev)
    if a.dim() not in (2, 3):
        raise invalid(f"a has shape {tuple(a.shape)}: must be [T, K] (contiguous) or [E, max_m, K] (masked)")
    if not isinstance(offs, torch.Tensor) or offs.dim() != 1:
        T.tensor(offs, "offs", GROUP_DTYPES, 1, dev)
    e, k = offs.shape[0], a.shape[-1]
    lda = _a_pitch(a, e)
    enk, ldb, b_type = _b_as_enk(b, e, k, dev)
    n = enk.shape[1]
    groups = _groups(offs, e, dev)
    T.tensor(scale_a, "scale_a", T.SCALE_DTYPES, None, dev)
    T.tensor(scale_b, "scale_b", T.SCALE_DTYPES, None, dev)
    a_mode, sa, b_mode, sb = _scales(scale_a, scale_b, e, tuple(a.shape[:-1]), n, k)
    if use_fast_accum and a_mode == _lib.SCALE_BLOCK:
        raise _lib.fast_with_block_scales()
    bias_ptr, bias_type = _bias(bias, e, n, dev)
    out = _out(a, n, out_dtype, torch.zeros)            # rows of no expert stay 0
    if out.numel() == 0:
        return out
    masked = a.dim() == 3
    layout, rows = (_lib.GROUPED_MASKED, a.shape[1]) if masked else (_lib.GROUPED_CONTIGUOUS, a.shape[0])
    T.run_on(dev, _lib.grouped_gemm, layout, e, rows, n, k, 0 if masked else groups, groups if masked else 0,
             a.data_ptr(), lda, a_type, enk.data_ptr(), ldb, b_type, out.data_ptr(), out.stride(-2),
             T.WIDE_DTYPES[out_dtype], a_mode, sa.data_ptr(), b_mode, sb.data_ptr(), bias_ptr, bias_type,
             T.stream(dev), use_fast_accum)
    return out


def grouped_mm_fake(a, b, scale_a, scale_b, offs, bias=None, out_dtype=torch.bfloat16):
    """What grouped_mm returns, for tracing (shape, dtype and strides, no data)."""
    k = a.shape[-1]
    return _out(a, b.shape[1] if _b_is_enk(b, k) else b.shape[2], out_dtype or torch.bfloat16, torch.empty)
