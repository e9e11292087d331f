"""Tensor-parallel FP8 linear layers over torch.distributed (any backend: NCCL
across GPUs, gloo for tests), built on fp8kit's operators. fp8kit's part in a
tensor-parallel engine is the GEMM inside each rank; the collectives are
PyTorch's own (all_gather_into_tensor, all_reduce), nothing home-made.

    col = ColumnParallelFp8Linear.from_full(w1, w1_scale, gather_output=False)  # w1 [N1, K]
    row = RowParallelFp8Linear.from_full(w2, w2_scale, b2)                      # w2 [N2, N1]
    y = row(col(x))        # x [..., K] bf16, replicated on every rank -> y [..., N2] on every rank

Column-parallel: rank r holds rows [r*N/W, (r+1)*N/W) of the [N, K] weight
(and of its per-channel scale, bias, or 128-row blocks of block scales); the
input is the full [..., K] activation; the output is the rank's [..., N/W]
columns, or all N gathered along the last dimension (gather_output=True).

Row-parallel: rank r holds columns [r*K/W, (r+1)*K/W) of the weight (and of
its block scales; per-tensor and per-channel scales are whole on every rank).
Each rank computes a partial [M, N] in reduce_dtype (float32 by default: each
partial is rounded once and the sum once, so the result is as accurate as one
GPU's; bfloat16 halves the bytes on the wire and rounds every partial to 8 bits
before summing) and all_reduce(SUM) adds the partials; the result is then cast
to out_dtype. The bias is added once, by rank 0 in its GEMM's epilogue (fused,
no extra kernel); the other ranks add none.

Activation scales. A column-parallel input is the same on every rank, so its
quantisation is too. A row-parallel input already split along K
(input_is_parallel=True, the column -> row pairing) is quantised per rank: a
per-token or per-tensor scale is then taken over the rank's K slice only, so
it differs between ranks. That is still exact algebra (every partial is
dequantised before the sum) but rounds differently from one GPU, whose scale
covers the full row. 1x128 group scales lie inside a rank's slice, so block
mode quantises identically either way. For one GPU's quantisation in every mode
pass the full input (input_is_parallel=False): it is quantised from the full
rows, then each rank takes its K slice of the FP8 values and scales.

World size: the group's (default: the default process group). The collectives
run whenever a process group is initialised, also at world size 1 (one GPU's
tests run the multi-GPU code path); without one the layer is a world of one,
one GEMM in out_dtype with the bias fused, and calls no collective.
Every argument is checked before any work, raising TPError (an fp8kit.Error and
a ValueError) that names it. docs/python.md has the details.
"""

import os

import torch
import torch.distributed as dist

from . import _shard
from . import _torch as T
from ._lib import BLOCK, ceil_div
from ._shard import TPError, bad, shard_column, shard_row

__all__ = ["ColumnParallelFp8Linear", "RowParallelFp8Linear", "column_parallel_linear", "row_parallel_linear",
           "shard_column", "shard_row", "TPError", "NO_MULTICAST_ENV", "disable_multicast", "group_rank_world"]

# NVLink multicast (NVLS) off in NCCL, PyTorch's symmetric memory and NVSHMEM: the
# test and benchmark scripts set these before creating a process group.
NO_MULTICAST_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def disable_multicast(environ=os.environ):
    """Set NO_MULTICAST_ENV in environ (default: this process's environment)."""
    environ.update(NO_MULTICAST_ENV)
    return environ


def group_rank_world(group=None):
    """(rank, world size) in group; (0, 1) when torch.distributed has no process group."""
    if not dist.is_available() or not dist.is_initialized():
        if group is not None:
            raise bad("group: given, but torch.distributed has no initialised process group")
        return 0, 1
    if group is not None and not isinstance(group, dist.ProcessGroup):
        raise bad(f"group: expected a torch.distributed ProcessGroup or None, got {type(group).__name__}")
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    if rank < 0:
        raise bad("group: this process is not a member of it")
    return rank, world


def _ops():
    """fp8kit.ops, looked up per call (the CPU tests stand in for its GEMM and quantisation)."""
    from . import ops
    return ops


def _expected_scale_shape(mode, m, k):
    return {"tensor": None, "row": ((m, 1), (m,)), "block": ((m, ceil_div(k, BLOCK)),)}[mode]


def _activation(x, x_scale, k, mode, input_scale, weight):
    """(q [M, K], scale, leading dims) for x: an FP8 [M, K] with its x_scale, or a
    bf16 / f16 / f32 [..., K] tensor quantised here in `mode`."""
    if not isinstance(x, torch.Tensor):
        raise bad(f"x: expected a torch.Tensor, got {type(x).__name__}")
    _shard.same_device(x, "x", weight, "weight")
    if x.dim() < 1 or x.shape[-1] != k:
        raise bad(f"x has shape {tuple(x.shape)}: its last dimension must be K = {k}")
    if x.dtype in T.FP8_DTYPES:
        if x.dim() != 2:
            raise bad(f"x has shape {tuple(x.shape)}: an FP8 x must be 2-D [M, K]")
        if x_scale is None:
            raise bad("x_scale: an FP8 x needs its scale (x_scale=)")
        _shard.check_tensor(x_scale, "x_scale", T.SCALE_DTYPES)
        _shard.same_device(x_scale, "x_scale", weight, "weight")
        shapes = _expected_scale_shape(mode, x.shape[0], k)
        if (x_scale.numel() != 1) if shapes is None else tuple(x_scale.shape) not in shapes:
            want = "1 element" if shapes is None else " or ".join(str(list(s)) for s in shapes)
            raise bad(f"x_scale has shape {tuple(x_scale.shape)}: act_mode {mode!r} takes {want}")
        return x, x_scale, x.shape[:-1]
    if x.dtype not in T.WIDE_DTYPES:
        raise bad(f"x.dtype = {x.dtype}: must be float8_e4m3fn / float8_e5m2 (with x_scale) or "
                  f"bfloat16, float16, float32")
    if x_scale is not None:
        raise bad(f"x_scale: only an FP8 x takes a scale; x is {x.dtype} and is quantised here")
    q, s = _ops().quantize(x.reshape(-1, k), mode, scale=input_scale if mode == "tensor" else None)
    return q, s, x.shape[:-1]


def _gather_columns(y, world, group):
    """[M, N/W] on each rank -> [M, N] with rank r's columns at [r*N/W, (r+1)*N/W)."""
    m, part = y.shape
    buf = torch.empty((world * m, part), dtype=y.dtype, device=y.device)
    dist.all_gather_into_tensor(buf, T.dense(y), group=group)
    return buf.view(world, m, part).permute(1, 0, 2).reshape(m, world * part)


def _check_flag(value, name):
    if not isinstance(value, bool):
        raise bad(f"{name} = {value!r}: must be True or False")


def _check_options(mode, w_mode, input_scale, weight, out_dtype, reduce_dtype=None):
    a_mode = _shard.act_mode(mode, w_mode)
    if input_scale is not None:
        if a_mode != "tensor":
            raise bad(f"input_scale: a static input scale is per tensor; act_mode is {a_mode!r}")
        _shard.check_tensor(input_scale, "input_scale", T.SCALE_DTYPES)
        _shard.same_device(input_scale, "input_scale", weight, "weight")
        if input_scale.numel() != 1:
            raise bad(f"input_scale has shape {tuple(input_scale.shape)}: must have 1 element")
    if out_dtype not in T.WIDE_DTYPES:
        raise bad(f"out_dtype = {out_dtype}: must be one of bfloat16, float16, float32")
    if reduce_dtype is not None and reduce_dtype not in T.WIDE_DTYPES:
        raise bad(f"reduce_dtype = {reduce_dtype}: must be one of float32, bfloat16, float16")
    return a_mode


class _Layer:
    """What a column- or row-parallel layer needs per call, checked once."""

    def __init__(self, kind, weight, weight_scale, bias, group, act_mode, input_scale, out_dtype,
                 reduce_dtype=None):
        self.rank, self.world = group_rank_world(group)
        # Collectives run whenever a process group exists, also at world size 1 (so that
        # path is what a one-GPU test runs); without one the layer is a plain GEMM.
        self.collective = dist.is_available() and dist.is_initialized()
        self.group = group
        n, k, w_mode = _shard.check_weight(weight, weight_scale, bias)
        if kind == "column":
            _shard.world_part(n * self.world, self.world, "N", w_mode == "block")
        else:
            _shard.world_part(k * self.world, self.world, "K", w_mode == "block")
        self.mode = _check_options(act_mode, w_mode, input_scale, weight, out_dtype, reduce_dtype)
        self.weight_mode, self.n, self.k = w_mode, n, k
        self.out_dtype, self.reduce_dtype = out_dtype, reduce_dtype

    def column(self, x, x_scale, weight, weight_scale, bias, input_scale, gather_output):
        q, s, lead = _activation(x, x_scale, self.k, self.mode, input_scale, weight)
        y = _ops().scaled_mm(q, weight, s, weight_scale, bias, self.out_dtype)
        if gather_output and self.collective:
            y = _gather_columns(y, self.world, self.group)
        return y.reshape(*lead, y.shape[-1])

    def row(self, x, x_scale, weight, weight_scale, bias, input_scale, input_is_parallel):
        if input_is_parallel:
            q, s, lead = _activation(x, x_scale, self.k, self.mode, input_scale, weight)
        else:
            q, s, lead = _activation(x, x_scale, self.k * self.world, self.mode, input_scale, weight)
            q, s = _shard.split_activation(q, s, self.mode, self.rank, self.k)
        if not self.collective:
            y = _ops().scaled_mm(q, weight, s, weight_scale, bias, self.out_dtype)
            return y.reshape(*lead, self.n)
        partial = _ops().scaled_mm(q, weight, s, weight_scale, bias if self.rank == 0 else None,
                                   self.reduce_dtype)
        partial = T.dense(partial)
        dist.all_reduce(partial, op=dist.ReduceOp.SUM, group=self.group)
        y = partial if self.reduce_dtype == self.out_dtype else partial.to(self.out_dtype)
        return y.reshape(*lead, self.n)


def column_parallel_linear(x, weight, weight_scale, bias=None, *, x_scale=None, act_mode=None, input_scale=None,
                           group=None, gather_output=True, out_dtype=torch.bfloat16):
    """This rank's part of y = x . W^T (+ bias) with W split along N: weight [N/W, K]
    FP8 and weight_scale / bias this rank's shard (shard_column gives them). x: the
    full [..., K] activation (bf16 / f16 / f32, quantised here in act_mode) or an
    FP8 [M, K] with x_scale. Returns [..., N] (gathered) or [..., N/W]."""
    _check_flag(gather_output, "gather_output")
    layer = _Layer("column", weight, weight_scale, bias, group, act_mode, input_scale, out_dtype)
    return layer.column(x, x_scale, weight, weight_scale, bias, input_scale, gather_output)


def row_parallel_linear(x, weight, weight_scale, bias=None, *, x_scale=None, act_mode=None, input_scale=None,
                        group=None, input_is_parallel=True, reduce_dtype=torch.float32, out_dtype=torch.bfloat16):
    """y = x . W^T (+ bias) on every rank with W split along K: weight [N, K/W] FP8 and
    weight_scale this rank's shard (shard_row), bias the whole [N] (added by rank 0).
    x: this rank's [..., K/W] slice (input_is_parallel) or the full [..., K]; bf16 /
    f16 / f32 (quantised here) or FP8 [M, *] with x_scale. Partials are summed in
    reduce_dtype. Returns [..., N]."""
    _check_flag(input_is_parallel, "input_is_parallel")
    layer = _Layer("row", weight, weight_scale, bias, group, act_mode, input_scale, out_dtype, reduce_dtype)
    return layer.row(x, x_scale, weight, weight_scale, bias, input_scale, input_is_parallel)


class _ParallelFp8Linear(torch.nn.Module):
    """The shard and its scales as buffers (FP8 weights are not trained here)."""

    def _hold(self, weight, weight_scale, bias, input_scale):
        self.register_buffer("weight", weight)
        self.register_buffer("weight_scale", weight_scale)
        self.register_buffer("bias", bias)
        self.register_buffer("input_scale", input_scale)
        self.rank, self.world_size = self._layer.rank, self._layer.world
        self.scale_mode, self.act_mode = self._layer.weight_mode, self._layer.mode

    @staticmethod
    def _placed(kwargs, device):
        if device is not None and kwargs.get("input_scale") is not None:
            kwargs["input_scale"] = kwargs["input_scale"].to(device)
        return kwargs


class ColumnParallelFp8Linear(_ParallelFp8Linear):
    """Column-parallel FP8 linear layer (see the module's docstring). Built from this
    rank's shard (weight [N/W, K], its scale, bias [N/W]) or from_full(...)."""

    def __init__(self, weight, weight_scale, bias=None, *, act_mode=None, input_scale=None, group=None,
                 gather_output=True, out_dtype=torch.bfloat16):
        super().__init__()
        self._layer = _Layer("column", weight, weight_scale, bias, group, act_mode, input_scale, out_dtype)
        self._hold(weight, weight_scale, bias, input_scale)
        _check_flag(gather_output, "gather_output")
        self.gather_output = gather_output
        self.in_features = self._layer.k
        self.out_features_per_rank = self._layer.n
        self.out_features = self._layer.n * self.world_size

    @classmethod
    def from_full(cls, weight, weight_scale, bias=None, *, group=None, device=None, **kwargs):
        """This rank's layer from the full [N, K] weight, its scale and bias [N] (split by
        shard_column; copied to device if given)."""
        rank, world = group_rank_world(group)
        w, s, b = shard_column(weight, weight_scale, bias, rank, world, device)
        return cls(w, s, b, group=group, **cls._placed(kwargs, device))

    def forward(self, x, x_scale=None):
        return self._layer.column(x, x_scale, self.weight, self.weight_scale, self.bias, self.input_scale,
                                  self.gather_output)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features} "
                f"({self.out_features_per_rank} on rank {self.rank} of {self.world_size}), "
                f"scales={self.scale_mode} x {self.act_mode}, gather_output={self.gather_output}")


class RowParallelFp8Linear(_ParallelFp8Linear):
    """Row-parallel FP8 linear layer (see the module's docstring). Built from this
    rank's shard (weight [N, K/W], its scale, the whole bias [N]) or from_full(...)."""

    def __init__(self, weight, weight_scale, bias=None, *, act_mode=None, input_scale=None, group=None,
                 input_is_parallel=True, reduce_dtype=torch.float32, out_dtype=torch.bfloat16):
        super().__init__()
        self._layer = _Layer("row", weight, weight_scale, bias, group, act_mode, input_scale, out_dtype,
                             reduce_dtype)
        self._hold(weight, weight_scale, bias, input_scale)
        _check_flag(input_is_parallel, "input_is_parallel")
        self.input_is_parallel = input_is_parallel
        self.in_features_per_rank = self._layer.k
        self.in_features = self._layer.k * self.world_size
        self.out_features = self._layer.n

    @classmethod
    def from_full(cls, weight, weight_scale, bias=None, *, group=None, device=None, **kwargs):
        """This rank's layer from the full [N, K] weight, its scale and bias [N] (split by
        shard_row; copied to device if given)."""
        rank, world = group_rank_world(group)
        w, s, b = shard_row(weight, weight_scale, bias, rank, world, device)
        return cls(w, s, b, group=group, **cls._placed(kwargs, device))

    def forward(self, x, x_scale=None):
        return self._layer.row(x, x_scale, self.weight, self.weight_scale, self.bias, self.input_scale,
                               self.input_is_parallel)

    def extra_repr(self):
        return (f"in_features={self.in_features} ({self.in_features_per_rank} on rank {self.rank} of "
                f"{self.world_size}), out_features={self.out_features}, scales={self.scale_mode} x "
                f"{self.act_mode}, reduce_dtype={self.reduce_dtype}, input_is_parallel={self.input_is_parallel}")

    @property
    def reduce_dtype(self):
        return self._layer.reduce_dtype
