"""Splitting an FP8 linear layer's weight, scales and bias across tensor-parallel
ranks, and the checks behind fp8kit.distributed. No collectives and no GPU here:
everything works on CPU and meta tensors, so CI tests it.

A weight is [N, K] (out_features x in_features, K contiguous), in fp8kit's
orientation; its scale says the mode (the shapes fp8kit.scaled_mm takes):

    "tensor"    1 element                          -> every rank keeps it
    "channel"   [N], [N, 1] or [1, N]              -> column-parallel: the rank's N rows;
                                                      row-parallel: every rank keeps all N
    "block"     [ceil(N/128), ceil(K/128)]         -> the rank's 128x128 blocks; a split
                                                      that would cut a block is refused

Column-parallel splits N (rank r holds rows [r*N/W, (r+1)*N/W)), row-parallel
splits K the same way. Splits are equal: N (or K) must be divisible by the
world size W, and in block mode the per-rank N (or K) must be a multiple of 128.
Row-parallel shards also keep fp8kit's K % 16 == 0 per rank.
"""

import torch

from . import _lib
from . import _torch as T
from ._lib import BLOCK, ceil_div

WEIGHT_MODES = ("tensor", "channel", "block")
# The activation's scale mode each weight mode pairs with by default, and those it may take.
DEFAULT_ACT_MODE = {"tensor": "tensor", "channel": "row", "block": "block"}
ACT_MODES = {"tensor": ("tensor", "row"), "channel": ("tensor", "row"), "block": ("block",)}
# fp8kit_gemm: K is a multiple of 16.
K_MULTIPLE = 16


class TPError(_lib.Error, ValueError):
    """A tensor-parallel layer refused an argument (the message names it): an
    fp8kit.Error with status "invalid_argument" and also a ValueError."""


def bad(message):
    return TPError(_lib.STATUS_INVALID_ARGUMENT, message)


def check_tensor(t, name, dtypes, dim=None):
    """t is a torch.Tensor of one of dtypes (and rank dim), else TPError naming it."""
    if not isinstance(t, torch.Tensor):
        raise bad(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in dtypes:
        raise bad(f"{name}.dtype = {t.dtype}: must be one of {T._names(dtypes)}")
    if dim is not None and t.dim() != dim:
        raise bad(f"{name} has shape {tuple(t.shape)}: must be {dim}-D")


def same_device(t, name, ref, ref_name):
    if t.device != ref.device:
        raise bad(f"{name} is on {t.device}: must be on {ref_name}'s device {ref.device}")


def weight_mode(weight_scale, n, k):
    """"tensor", "channel" or "block" from weight_scale's shape for an [N, K] weight
    (the non-block reading first, as fp8kit.scaled_mm reads it)."""
    name = "weight_scale"
    check_tensor(weight_scale, name, T.SCALE_DTYPES)
    shape = tuple(weight_scale.shape)
    if weight_scale.numel() == 1:
        return "tensor"
    if shape in ((n,), (n, 1), (1, n)):
        return "channel"
    if shape == (ceil_div(n, BLOCK), ceil_div(k, BLOCK)):
        return "block"
    raise bad(f"{name} has shape {shape}: for a [{n}, {k}] weight it must have 1 element (per tensor), "
              f"be [N], [N, 1] or [1, N] (per channel) or [ceil(N/128), ceil(K/128)] = "
              f"[{ceil_div(n, BLOCK)}, {ceil_div(k, BLOCK)}] (128x128 blocks)")


def act_mode(mode, w_mode):
    """The activation scale mode: `mode`, or the weight mode's default when None."""
    if mode is None:
        return DEFAULT_ACT_MODE[w_mode]
    if mode not in ACT_MODES[w_mode]:
        raise bad(f"act_mode = {mode!r}: a {w_mode!r}-scaled weight takes "
                  f"{' or '.join(repr(m) for m in ACT_MODES[w_mode])}")
    return mode


def world_part(size, world, dim, block, name="weight"):
    """Per-rank length of dimension `dim` ("N" or "K", length size) split into world equal parts."""
    if not isinstance(world, int) or world < 1:
        raise bad(f"world_size = {world!r}: must be a positive int")
    if size % world:
        raise bad(f"{name}: {dim} = {size} is not divisible by the world size {world}")
    part = size // world
    if block and world > 1 and part % BLOCK:
        raise bad(f"{name}: splitting {dim} = {size} over {world} ranks gives {part} per rank, which cuts a "
                  f"128x128 block of the block scales (the per-rank {dim} must be a multiple of {BLOCK})")
    if dim == "K" and part % K_MULTIPLE:
        raise bad(f"{name}: splitting K = {size} over {world} ranks gives {part} per rank; fp8kit needs "
                  f"K % {K_MULTIPLE} == 0 on every rank")
    return part


def check_rank(rank, world):
    if not isinstance(rank, int) or not 0 <= rank < world:
        raise bad(f"rank = {rank!r}: must be an int in [0, {world})")


def check_weight(weight, weight_scale, bias):
    """(n, k, mode) of an FP8 [N, K] weight with its scale and its bias ([N] or None)."""
    check_tensor(weight, "weight", T.FP8_DTYPES, 2)
    n, k = weight.shape
    mode = weight_mode(weight_scale, n, k)
    same_device(weight_scale, "weight_scale", weight, "weight")
    if bias is not None:
        check_tensor(bias, "bias", T.WIDE_DTYPES, 1)
        same_device(bias, "bias", weight, "weight")
        if bias.shape[0] != n:
            raise bad(f"bias has shape {tuple(bias.shape)}: must be [N] = [{n}]")
    return n, k, mode


def _owned(t, device):
    """A contiguous copy of t on device, sharing no storage with the full tensor."""
    out = torch.empty(t.shape, dtype=t.dtype, device=t.device if device is None else device)
    out.copy_(t)
    return out


def shard_column(weight, weight_scale, bias, rank, world_size, device=None):
    """(weight [N/W, K], scale, bias [N/W] or None) of `rank` for a column-parallel layer."""
    n, k, mode = check_weight(weight, weight_scale, bias)
    part = world_part(n, world_size, "N", mode == "block")
    check_rank(rank, world_size)
    rows = slice(rank * part, (rank + 1) * part)
    if mode == "tensor":
        scale = weight_scale.reshape(1)
    elif mode == "channel":
        scale = weight_scale.reshape(n)[rows]
    else:
        scale = weight_scale[rank * part // BLOCK:ceil_div((rank + 1) * part, BLOCK)]
    return (_owned(weight[rows], device), _owned(scale, device),
            None if bias is None else _owned(bias[rows], device))


def shard_row(weight, weight_scale, bias, rank, world_size, device=None):
    """(weight [N, K/W], scale, bias [N] or None) of `rank` for a row-parallel layer. Every
    rank gets the whole bias; the layer adds it on rank 0 only (fp8kit.distributed)."""
    n, k, mode = check_weight(weight, weight_scale, bias)
    part = world_part(k, world_size, "K", mode == "block")
    check_rank(rank, world_size)
    cols = slice(rank * part, (rank + 1) * part)
    if mode == "block":
        scale = weight_scale[:, rank * part // BLOCK:ceil_div((rank + 1) * part, BLOCK)]
    else:
        scale = weight_scale.reshape(1) if mode == "tensor" else weight_scale.reshape(n)
    return (_owned(weight[:, cols], device), _owned(scale, device),
            None if bias is None else _owned(bias, device))


def split_activation(q, scale, mode, rank, part):
    """The rank's K slice [M, part] of a full quantised activation q [M, K] and its
    scale: per tensor and per token unchanged (the same on every rank), 1x128
    groups sliced on the same block boundaries as the weight."""
    cols = slice(rank * part, (rank + 1) * part)
    if mode == "block":
        scale = scale[:, rank * part // BLOCK:ceil_div((rank + 1) * part, BLOCK)]
    return q[:, cols], scale
