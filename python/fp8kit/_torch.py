"""torch-side helpers shared by the op implementations: dtype codes, argument
checks that raise fp8kit.Error naming the argument, the current raw stream,
and running on the tensors' device."""

import torch

from . import _lib
from ._lib import invalid

FP8_DTYPES = {torch.float8_e4m3fn: _lib.DTYPE_E4M3, torch.float8_e5m2: _lib.DTYPE_E5M2}
WIDE_DTYPES = {torch.bfloat16: _lib.DTYPE_BF16, torch.float16: _lib.DTYPE_F16, torch.float32: _lib.DTYPE_F32}
SCALE_DTYPES = {torch.float32: _lib.DTYPE_F32}
# fp8kit_gemm / fp8kit_quantize: base pointers and row pitches are multiples of 16 bytes.
ROW_ALIGN_BYTES = 16


def _names(dtypes):
    return ", ".join(str(d).replace("torch.", "") for d in dtypes)


def cuda_device(t, name):
    """Device index of the CUDA tensor t; fp8kit.Error for anything else."""
    if not isinstance(t, torch.Tensor):
        raise invalid(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    dev = t.get_device()
    if dev < 0 or not t.is_cuda:
        raise invalid(f"{name} is on {t.device}: fp8kit runs on CUDA tensors")
    return dev


def tensor(t, name, dtypes, dim, dev):
    """fp8kit dtype code of t after checking type, device, dtype and rank."""
    if not isinstance(t, torch.Tensor):
        raise invalid(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.get_device() != dev:
        raise invalid(f"{name} is on {t.device}: every tensor must be on cuda:{dev}")
    code = dtypes.get(t.dtype)
    if code is None:
        raise invalid(f"{name}.dtype = {t.dtype}: must be one of {_names(dtypes)}")
    if dim is not None and t.dim() != dim:
        raise invalid(f"{name} has shape {tuple(t.shape)}: must be {dim}-D")
    return code


def row_pitch(t, name):
    """Row pitch (elements) of the 2-D tensor t, whose last dimension must be contiguous."""
    stride = t.stride()
    if stride[1] != 1 and t.shape[1] > 1:
        raise invalid(f"{name} has strides {stride}: its last dimension must be contiguous (stride 1)")
    return stride[0]


def dense(t):
    """t as a contiguous tensor; a copy only when t is a strided view."""
    return t if t.is_contiguous() else t.contiguous()


def output_ready(t):
    """True when the 2-D tensor t can be fp8kit's output as it is: last dimension
    contiguous, 16-byte base and row pitch."""
    stride = t.stride()
    return (stride[1] == 1 or t.shape[1] == 1) and (stride[0] * t.element_size()) % ROW_ALIGN_BYTES == 0 \
        and t.data_ptr() % ROW_ALIGN_BYTES == 0


def padded_empty(m, n, dtype, device, lead=(), make=torch.empty):
    """An [*lead, m, n] tensor whose row pitch is a multiple of 16 bytes: a view of an
    [*lead, m, n rounded up] allocation when n alone is not (fp8kit takes any N, but
    every output row must start 16-byte aligned). make: torch.empty or torch.zeros."""
    per_row = ROW_ALIGN_BYTES // dtype.itemsize
    n_pad = _lib.ceil_div(n, per_row) * per_row
    full = make(tuple(lead) + (m, n_pad), dtype=dtype, device=device)
    return full if n_pad == n else full[..., :n]


def stream(dev):
    """The raw cudaStream_t (int) current on device dev: what fp8kit launches on,
    the capture stream under CUDA-graph capture."""
    return torch._C._cuda_getCurrentRawStream(dev)


def run_on(dev, fn, *args):
    """fn(*args) with dev as the current CUDA device (fp8kit runs on the current
    device); no device switch when it already is."""
    if dev == torch._C._cuda_getDevice():
        return fn(*args)
    with torch.cuda.device(dev):
        return fn(*args)
