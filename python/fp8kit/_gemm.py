"""The GEMM behind fp8kit's ops: out[M, N] = (a[M, K] . b[N, K]^T) * scales (+ bias[N]).

Everything fp8kit_gemm will touch is checked here first, because the C API sees
pointers, not allocations: tensor types, devices, dtypes, shapes, strides and
every scale's length. Scale shapes (logical, in b's [N, K] orientation):

    scale_a   1 element (per tensor) | [M] or [M, 1] (per token) | [M, ceil(K/128)] (1x128 groups)
    scale_b   1 element (per tensor) | [N], [N, 1] or [1, N] (per channel) | [ceil(N/128), ceil(K/128)]

Block scaling is on both sides or neither. As in vLLM, the non-block reading
wins where a shape fits both (then both readings give the same product). fp8kit
reads block scales of A M-contiguous ([M, kb] with strides (1, M), what
fp8kit.quantize and vLLM's column-major group quantisation produce) and those of
B row-major; other strides are copied into that layout first.
"""

import torch

from . import _lib
from . import _torch as T
from ._lib import BLOCK, ceil_div, invalid

# gemm_into's fast_accum for vLLM's semantics: fast accumulation except with block scales.
UNLESS_BLOCK = object()

# Argument names in messages: the fp8kit spelling, and vLLM's for its out variant.
NAMES = {"a": "a", "b": "b", "scale_a": "scale_a", "scale_b": "scale_b", "bias": "bias", "out": "out"}


def _scales(scale_a, scale_b, m, n, k, names):
    """(a_mode, a_scale, b_mode, b_scale): fp8kit modes and f32 tensors laid out as fp8kit reads them."""
    sa, sb = scale_a.shape, scale_b.shape
    a_mode = _lib.SCALE_TENSOR if scale_a.numel() == 1 else _lib.SCALE_ROW if sa == (m, 1) or sa == (m,) else None
    b_mode = _lib.SCALE_TENSOR if scale_b.numel() == 1 else \
        _lib.SCALE_COL if sb == (1, n) or sb == (n, 1) or sb == (n,) else None
    if a_mode is not None and b_mode is not None:
        return a_mode, T.dense(scale_a), b_mode, T.dense(scale_b)
    kb, nb = ceil_div(k, BLOCK), ceil_div(n, BLOCK)
    if sa == (m, kb) and sb == (nb, kb):
        return _lib.SCALE_BLOCK, T.dense(scale_a.t()), _lib.SCALE_BLOCK, T.dense(scale_b)
    a_name, b_name, sa, sb = names["scale_a"], names["scale_b"], tuple(sa), tuple(sb)
    if sb == (nb, kb):
        raise invalid(f"{a_name} has shape {sa}: with block scales for B it must be [M, ceil(K/128)] = [{m}, {kb}]")
    if sa == (m, kb) and kb != 1:
        raise invalid(f"{b_name} has shape {sb}: with 1x128 scales for A it must be "
                      f"[ceil(N/128), ceil(K/128)] = [{nb}, {kb}] (as b [N, K])")
    if a_mode is None:
        raise invalid(f"{a_name} has shape {sa}: must have 1 element (per tensor), be [M] or [M, 1] "
                      f"(per token) or [M, ceil(K/128)] (1x128 groups), M = {m}, K = {k}")
    raise invalid(f"{b_name} has shape {sb}: must have 1 element (per tensor), be [N], [N, 1] or "
                  f"[1, N] (per channel) or [ceil(N/128), ceil(K/128)] (128x128 blocks), N = {n}, K = {k}")


def gemm_into(out, a, b, scale_a, scale_b, bias, names=NAMES, fresh=False, fast_accum=False):
    """out[M, N] = (a . b^T) * scales (+ bias) with b [N, K], on the current stream
    of a's device. out is written through a padded temporary when its own row
    pitch or base is not 16-byte aligned (fresh: out came from padded_empty).
    fast_accum: FAST accumulation (fp8kit.h; refused with block scales), or
    UNLESS_BLOCK: FAST except with block scales."""
    dev = T.cuda_device(a, names["a"])
    a_type = T.tensor(a, names["a"], T.FP8_DTYPES, 2, dev)
    b_type = T.tensor(b, names["b"], T.FP8_DTYPES, 2, dev)
    d_type = T.tensor(out, names["out"], T.WIDE_DTYPES, 2, dev)
    T.tensor(scale_a, names["scale_a"], T.SCALE_DTYPES, None, dev)
    T.tensor(scale_b, names["scale_b"], T.SCALE_DTYPES, None, dev)
    m, k = a.shape
    n, k_b = b.shape
    if k_b != k:
        raise invalid(f"{names['b']} has shape {tuple(b.shape)} (as [N, K]): K must match {names['a']}'s {k}")
    if out.shape != (m, n):
        raise invalid(f"{names['out']} has shape {tuple(out.shape)}: must be [M, N] = [{m}, {n}]")
    lda = T.row_pitch(a, names["a"])
    ldb = T.row_pitch(b, names["b"])
    bias_type, bias_ptr = _lib.DTYPE_F32, 0
    if bias is not None:
        bias_type = T.tensor(bias, names["bias"], T.WIDE_DTYPES, 1, dev)
        if bias.shape[0] != n or (n > 1 and bias.stride(0) != 1):
            raise invalid(f"{names['bias']} has shape {tuple(bias.shape)}, strides {bias.stride()}: "
                          f"must be a contiguous [N] = [{n}]")
        bias_ptr = bias.data_ptr()
    a_mode, sa, b_mode, sb = _scales(scale_a, scale_b, m, n, k, names)
    if fast_accum is UNLESS_BLOCK:
        fast_accum = a_mode != _lib.SCALE_BLOCK
    elif fast_accum and a_mode == _lib.SCALE_BLOCK:
        raise _lib.fast_with_block_scales()
    if m == 0 or n == 0:
        return out
    target = out if fresh or T.output_ready(out) else T.padded_empty(m, n, out.dtype, out.device)
    desc = _lib.gemm_desc(m, n, k, a.data_ptr(), lda, a_type, b.data_ptr(), ldb, b_type, target.data_ptr(),
                          target.stride(0), d_type, a_mode, sa.data_ptr(), b_mode, sb.data_ptr(), bias_ptr,
                          bias_type)
    T.run_on(dev, _run, desc, (m, n, k, a_mode == _lib.SCALE_BLOCK, dev), dev, fast_accum)
    if target is not out:
        out.copy_(target)
    return out


def _run(desc, key, dev, fast_accum):
    """fp8kit_gemm of a packed descriptor on the current stream, lending it the
    workspace its plan asks for (split-K: decode shapes on Hopper). per_call
    (the default): fresh memory from PyTorch's caching allocator on that stream,
    which CUDA-graph capture also serves; fp8kit zeroes its split-K counters.
    per_stream: the stream's zeroed workspace, lent with the zeroed promise
    (fp8kit.configure)."""
    nbytes = _lib.workspace_bytes(desc, key)
    stream = T.stream(dev)
    if nbytes == 0:
        _lib.gemm(desc, 0, 0, stream, fast_accum)
        return
    if _lib.options.workspace == "per_stream":
        kept = _stream_workspace(dev, stream, nbytes)
        try:
            _lib.gemm(desc, kept.data_ptr(), kept.numel(), stream, fast_accum, zeroed=True)
        except _lib.Error:
            _stream_workspaces[(dev, stream)].append(torch.zeros_like(kept))  # a failed call voids the promise
            raise
        return
    workspace = torch.empty(nbytes, dtype=torch.uint8, device=torch.device("cuda", dev))
    _lib.gemm(desc, workspace.data_ptr(), nbytes, stream, fast_accum)


# (device, stream) -> the zero-filled uint8 workspaces made for it, fp8kit's alone,
# newest last. A grown one never frees the ones before it: a captured graph
# may still hold their addresses.
_stream_workspaces = {}


def _stream_workspace(dev, stream, nbytes):
    """The stream's zeroed workspace of at least nbytes, grown (zero-filled on the
    stream, ahead of the call) where it is smaller. Grown during a CUDA-graph
    capture, it comes from the graph's pool and its zero-fill is a node of the
    graph, ahead of the calls that use it: one memset per graph, not per call."""
    made = _stream_workspaces.setdefault((dev, stream), [])
    if made and made[-1].numel() >= nbytes:
        return made[-1]
    made.append(torch.zeros(max(nbytes, 2 * made[-1].numel() if made else 0), dtype=torch.uint8,
                            device=torch.device("cuda", dev)))
    return made[-1]


def scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16, use_fast_accum=False):
    """A new [M, N] out_dtype tensor = (a[M, K] . b[N, K]^T) * scales (+ bias)."""
    if out_dtype not in T.WIDE_DTYPES:
        raise invalid(f"out_dtype = {out_dtype}: must be one of bfloat16, float16, float32")
    dev = T.cuda_device(a, "a")
    if not isinstance(b, torch.Tensor) or b.dim() != 2:
        T.tensor(b, "b", T.FP8_DTYPES, 2, dev)
    out = T.padded_empty(a.shape[0] if a.dim() == 2 else 0, b.shape[0], out_dtype, a.device)
    return gemm_into(out, a, b, scale_a, scale_b, bias, fresh=True, fast_accum=use_fast_accum)


def scaled_mm_fake(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16, use_fast_accum=False):
    """What scaled_mm returns, for tracing (shape, dtype and strides, no data)."""
    return T.padded_empty(a.shape[0], b.shape[0], out_dtype, a.device)


VLLM_NAMES = {"a": "a", "b": "b (as b.t())", "scale_a": "a_scales", "scale_b": "b_scales (as b_scales.t())",
              "bias": "bias", "out": "out"}


def cutlass_scaled_mm_into(out, a, b, a_scales, b_scales, bias=None, fresh=False):
    """vLLM's cutlass_scaled_mm(out, a, b, a_scales, b_scales, bias): b is [K, N]
    column-major (the transpose of a [N, K] row-major weight), a_scales 1 element,
    [M, 1] or [M, ceil(K/128)], b_scales 1 element, [1, N] / [N, 1] or
    [ceil(K/128), ceil(N/128)]. Accumulation follows vLLM's own Hopper kernels:
    CUTLASS's FP8 fast accumulation for per-tensor and per-token / per-channel
    scales, promotion per K block for block scales."""
    if not isinstance(b, torch.Tensor) or b.dim() != 2:
        raise invalid(f"b: must be a 2-D [K, N] tensor, got {getattr(b, 'shape', type(b).__name__)}")
    if not isinstance(b_scales, torch.Tensor):
        raise invalid(f"b_scales: expected a torch.Tensor, got {type(b_scales).__name__}")
    bt_scales = b_scales.t() if b_scales.dim() == 2 else b_scales
    return gemm_into(out, a, b.t(), a_scales, bt_scales, bias, VLLM_NAMES, fresh, fast_accum=UNLESS_BLOCK)


def cutlass_scaled_mm_into_none(out, a, b, a_scales, b_scales, bias=None):
    """cutlass_scaled_mm_into as the op's implementation (the op returns nothing)."""
    cutlass_scaled_mm_into(out, a, b, a_scales, b_scales, bias)
