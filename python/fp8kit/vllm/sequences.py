"""The fp8kit op sequences behind the vLLM plugin's apply paths, with no vLLM import:
the plugin's kernel classes call exactly these, and tests/python/test_vllm_gpu.py runs
them against the float64 reference on a GPU without vLLM.

Every step is an fp8kit operator (fp8kit.ops: the implementation in eager mode, the
torch.ops.fp8kit.* operator with its fake implementation under torch.compile) or a
torch op with no host synchronisation, so each sequence is CUDA-graph capturable and
traces into one graph with a symbolic number of tokens.

    linear(x, weight, weight_scale, act_mode, ...)      x [M, K] -> [M, N]
        act_mode "tensor" (static with input_scale, else dynamic), "row" (per token)
        or "block" (1x128 groups; weight_scale then [ceil(N/128), ceil(K/128)])
    moe_standard(x, topk_ids, topk_weights, ...)        x [M, K] -> [M, K]
        tokens routed to E experts, sorted by expert into fp8kit's contiguous layout
    moe_batched(x, counts, ...)                         x [E, max_m, K] -> [E, max_m, K]
        fp8kit's masked layout as it is
    nvfp4_linear(x, weight, weight_scale, global_scale, alpha, ...)   x [M, K] -> [M, N]
        W4A4: fp8kit's NVFP4 quantiser (swizzled scales) then its NVFP4 GEMM

Weights are [N, K] (linear) or [E, N, K] (experts) with K contiguous, as vLLM stores them;
scales are float32 in those orientations (docs/python.md: scaled_mm, grouped_mm).
"""

import torch

from .. import _nvfp4, ops

FP8 = torch.float8_e4m3fn
NVFP4_BLOCK = 16  # K elements per E4M3 block scale


def quantize(x, act_mode, input_scale=None, input_scale_ub=None):
    """(q, s) of x [R, K] for act_mode; input_scale makes "tensor" static. input_scale_ub
    bounds a per-token scale (vLLM's fbgemm scheme): s = min(amax, ub) / FP8_MAX is the
    dynamic scale of x clamped to [-ub, ub], which is what is quantised."""
    if input_scale_ub is not None:
        x = torch.clamp(x, -input_scale_ub, input_scale_ub)
    scale = input_scale if act_mode == "tensor" else None
    return ops.quantize(x, act_mode, FP8, scale)


def linear(x, weight, weight_scale, act_mode, input_scale=None, input_scale_ub=None, bias=None,
           out_dtype=torch.bfloat16):
    """out [M, N] = quantize(x) . weight^T * scales (+ bias): one fp8kit quantize, one fp8kit GEMM.
    weight [N, K]; weight_scale 1 element, [N] / [N, 1] (per channel) or, with act_mode
    "block", [ceil(N/128), ceil(K/128)]. Accumulation as vLLM's own Hopper kernels
    do it: fast (CUTLASS's FP8FastAccum) except with block scales."""
    q, s = quantize(x, act_mode, input_scale, input_scale_ub)
    return ops.scaled_mm(q, weight, s, weight_scale, bias, out_dtype, use_fast_accum=act_mode != "block")


def route(topk_ids, num_experts, expert_map=None):
    """(order, offs) for the expanded rows r = t * topk + j (token t's j-th expert):
    order lists them sorted by local expert (stable), offs [E] int32 holds each expert's
    cumulative row end, fp8kit's contiguous layout. Experts another rank serves
    (expert_map gives -1) sort last, past offs[-1], where fp8kit writes zeros."""
    ids = topk_ids.reshape(-1).long()
    if expert_map is not None:
        ids = expert_map[ids].long()
    key = torch.where(ids < 0, num_experts, ids)
    sorted_key, order = torch.sort(key, stable=True)
    ends = torch.arange(1, num_experts + 1, device=key.device, dtype=key.dtype)
    return order, torch.searchsorted(sorted_key, ends, out_int32=True)


def _gather_rows(q, s, act_mode, rows):
    """q's and its scale's rows in `rows` order; 1x128 scales stay M-contiguous (strides (1, R)),
    the layout fp8kit's grouped GEMM reads without a copy."""
    q = q.index_select(0, rows)
    if act_mode == "row":
        s = s.index_select(0, rows)
    elif act_mode == "block":
        s = s.t().index_select(1, rows).t()
    return q, s


def _channel_scale(w_scale, w):
    """vLLM's per-channel expert scale [E, N, 1] read as fp8kit's [E, N] (a view); a 128x128
    block scale [E, ceil(N/128), 1] (one K block) stays as it is."""
    if w_scale.dim() == 3 and w_scale.shape[-1] == 1 and w_scale.shape[1] == w.shape[1] > 1:
        return w_scale.reshape(w_scale.shape[0], -1)
    return w_scale


def _activate(activation, h, act_out):
    """act_out [R, D] = activation(h [R, N]) through the caller's function (vLLM's MoE
    activation in the plugin); rows fp8kit left zero stay zero for every gated and
    plain activation vLLM has (f(0) = 0)."""
    activation(act_out, h)
    return act_out


def moe_standard(x, topk_ids, topk_weights, w1, w2, w1_scale, w2_scale, act_mode, activation, act_dim,
                 a1_scale=None, a2_scale=None, w1_bias=None, w2_bias=None, expert_map=None,
                 weights_applied=False, act_out=None):
    """The experts of a mixture-of-experts layer in the standard format, reduced over top-k:
    out[t] = sum_j w[t, j] * FFN_{e(t, j)}(x[t]), x [M, K] bf16 / f16, topk_ids / topk_weights
    [M, topk]. w1 [E, N, K], w2 [E, K, act_dim] with K contiguous; scales per expert [E],
    per channel [E, N] / [E, N, 1] or 128x128 blocks [E, ceil(N/128), ceil(K/128)].
    activation(out, in) writes act_dim columns from N; act_out optionally lends its buffer
    ([M * topk, act_dim]). weights_applied: the router weights are already in x.

    Quantise x once (fp8kit), gather its rows by expert, grouped GEMM, activation,
    quantise (fp8kit), grouped GEMM, then scatter back and reduce in f32."""
    m, k = x.shape
    topk = topk_ids.shape[1]
    experts = w1.shape[0]
    order, offs = route(topk_ids, experts, expert_map)
    q, s = quantize(x, act_mode, a1_scale)
    q, s = _gather_rows(q, s, act_mode, torch.div(order, topk, rounding_mode="floor"))
    h = ops.grouped_mm(q, w1, s, _channel_scale(w1_scale, w1), offs, w1_bias, x.dtype)
    if act_out is None:
        act_out = torch.empty((m * topk, act_dim), dtype=x.dtype, device=x.device)
    a = _activate(activation, h, act_out)
    q2, s2 = quantize(a, act_mode, a2_scale)
    y = ops.grouped_mm(q2, w2, s2, _channel_scale(w2_scale, w2), offs, w2_bias, x.dtype)
    y = torch.empty((m * topk, k), dtype=y.dtype, device=y.device).index_copy_(0, order, y)
    y = y.view(m, topk, k).float()
    if not weights_applied:
        y = y * topk_weights.view(m, topk, 1).float()
    return y.sum(dim=1).to(x.dtype)


def _batched_scale(s, act_mode, experts, rows):
    """A scale of the flattened [E * max_m, K] rows as the masked layout reads it."""
    if act_mode == "row":
        return s.view(experts, rows, 1)
    if act_mode == "block":
        return s.view(experts, rows, s.shape[-1])
    return s


def _dispatched_scale(s, experts):
    """The scale a batched dispatcher produced with x: per expert [E, 1, 1] for one element
    per expert, else [E, max_m, 1] or [E, max_m, ceil(K/128)]."""
    if s.dim() == 3:
        return s
    if s.numel() == 1:
        return s
    return s.view(experts, -1, s.shape[-1])


def moe_batched(x, counts, w1, w2, w1_scale, w2_scale, act_mode, activation, act_dim, a1_scale=None,
                a2_scale=None, w1_bias=None, w2_bias=None, x_scale=None, out_dtype=None, act_out=None):
    """The experts in the batched (masked) format: x [E, max_m, K], expert e's first
    counts[e] rows valid (int32 [E], on the device). Returns [E, max_m, K], rows past
    counts[e] zero. x is either bf16 / f16 (quantised here; with dynamic per-tensor
    activations the rows past the counts enter the amax, so they must be zero, as vLLM's
    batched dispatch leaves them) or FP8 as a dispatcher quantised it, with x_scale; the
    result is out_dtype (default: x's, bfloat16 for FP8 x)."""
    experts, rows, k = x.shape
    out_dtype = out_dtype or (torch.bfloat16 if x.dtype == FP8 else x.dtype)
    if x.dtype == FP8:
        q, s = x, _dispatched_scale(x_scale, experts)
    else:
        q, s = quantize(x.reshape(experts * rows, k), act_mode, a1_scale)
        q, s = q.view(experts, rows, k), _batched_scale(s, act_mode, experts, rows)
    h = ops.grouped_mm(q, w1, s, _channel_scale(w1_scale, w1), counts, w1_bias, out_dtype)
    if act_out is None:
        act_out = torch.empty((experts * rows, act_dim), dtype=out_dtype, device=x.device)
    a = _activate(activation, h.view(experts * rows, h.shape[-1]), act_out)
    q2, s2 = quantize(a, act_mode, a2_scale)
    return ops.grouped_mm(q2.view(experts, rows, act_dim), w2, _batched_scale(s2, act_mode, experts, rows),
                          _channel_scale(w2_scale, w2), counts, w2_bias, out_dtype)


def swizzle_nvfp4_scales(scale):
    """Row-major E4M3 block scales [N, K/16] in the swizzled layout fp8kit's NVFP4 GEMM
    and vLLM's kernels read (docs/nvfp4.md): [round_up(N, 128), round_up(K/16, 4)], 512-byte
    tiles of 128 rows x 4 blocks, K-fastest, zero padding. Row r = 128a + 32b + c, block
    kb = 4d + e lies at ((a * Kb4/4 + d) * 32 + c) * 16 + 4b + e: dims (a, b, c, d, e) of
    the padded [N, Kb] permuted to (a, d, c, b, e)."""
    n, kb = scale.shape
    n_pad, kb_pad = -(-n // 128) * 128, -(-kb // 4) * 4
    padded = scale.new_zeros((n_pad, kb_pad))
    padded[:n, :kb] = scale
    tiles = padded.view(n_pad // 128, 4, 32, kb_pad // 4, 4).permute(0, 3, 2, 1, 4)
    return tiles.contiguous().view(n_pad, kb_pad)


def nvfp4_linear(x, weight, weight_scale, global_scale, alpha, bias=None, out_dtype=torch.bfloat16, k_pad=0):
    """out [M, N] = alpha * quantize(x) . weight^T (+ bias): one fp8kit NVFP4 quantise,
    one fp8kit NVFP4 GEMM. x bf16 / f16 [M, K]; weight uint8 [N, (K + k_pad)/2] and its
    swizzled scales; global_scale the quantiser's f32 [1] (vLLM's input_global_scale_inv),
    alpha f32 [1] (input_global_scale * weight_global_scale). k_pad zero columns (a
    multiple of 16 elements) extend K to the GEMM's granule of 32: the quantised
    activation gets k_pad / 2 zero bytes per row, and its swizzled scales already hold the
    zero block (round_up(K/16, 4) covers it)."""
    q, s = _nvfp4.nvfp4_quantize(x, global_scale, True)
    if k_pad:  # torch.cat keeps the token count symbolic when traced (constant_pad_nd specialises it)
        q = torch.cat([q, q.new_zeros((q.shape[0], k_pad // 2))], dim=1)
    return _nvfp4.nvfp4_mm(q, weight, s, weight_scale, alpha, bias, out_dtype, True)
