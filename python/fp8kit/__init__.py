"""PyTorch front end of fp8kit, through its C API (ctypes; no extension to build).

    import fp8kit
    d = fp8kit.scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16)

computes D = (A . B^T) * scales + bias with A [M, K] and B [N, K] FP8 CUDA
tensors (K contiguous), on the current CUDA stream. Scale shapes pick the mode:
a 1-element tensor is per-tensor; scale_a [M] / scale_b [N] per token / per
channel; scale_a [ceil(K/128), M] with scale_b [ceil(N/128), ceil(K/128)]
1x128 / 128x128 blocks. `fp8kit.quantize` produces A and scale_a.

The library is found through $FP8KIT_LIBRARY, else libfp8kit.so next to this
package or in the build tree, else the loader's search path. Errors raise
fp8kit.Error with the library's message (it names the argument).
"""

import ctypes
import os
from pathlib import Path

import torch

__all__ = ["Error", "scaled_mm", "quantize", "library_path"]

# fp8kit.h enums
_DTYPE = {torch.float8_e4m3fn: 0, torch.float8_e5m2: 1, torch.bfloat16: 2, torch.float16: 3, torch.float32: 4}
_SCALE_NONE, _SCALE_TENSOR, _SCALE_ROW, _SCALE_COL, _SCALE_BLOCK = range(5)
_STATUS = {1: "invalid_argument", 2: "unsupported", 3: "cuda_error", 4: "internal_error"}
_BLOCK = 128


class Error(RuntimeError):
    """An fp8kit call failed; .status is fp8kit's status name."""

    def __init__(self, status, message):
        super().__init__(f"fp8kit: {_STATUS.get(status, status)}: {message}")
        self.status = _STATUS.get(status, str(status))


class _GemmDesc(ctypes.Structure):
    _fields_ = [("m", ctypes.c_int64), ("n", ctypes.c_int64), ("k", ctypes.c_int64),
                ("a", ctypes.c_void_p), ("lda", ctypes.c_int64), ("a_type", ctypes.c_int),
                ("b", ctypes.c_void_p), ("ldb", ctypes.c_int64), ("b_type", ctypes.c_int),
                ("d", ctypes.c_void_p), ("ldd", ctypes.c_int64), ("d_type", ctypes.c_int),
                ("a_scale_mode", ctypes.c_int), ("a_scale", ctypes.c_void_p),
                ("b_scale_mode", ctypes.c_int), ("b_scale", ctypes.c_void_p),
                ("bias", ctypes.c_void_p), ("bias_type", ctypes.c_int)]


class _QuantDesc(ctypes.Structure):
    _fields_ = [("m", ctypes.c_int64), ("k", ctypes.c_int64),
                ("x", ctypes.c_void_p), ("ldx", ctypes.c_int64), ("x_type", ctypes.c_int),
                ("q", ctypes.c_void_p), ("ldq", ctypes.c_int64), ("q_type", ctypes.c_int),
                ("mode", ctypes.c_int), ("scale", ctypes.c_void_p),
                ("rms_weight", ctypes.c_void_p), ("eps", ctypes.c_float)]


def library_path():
    env = os.environ.get("FP8KIT_LIBRARY")
    if env:
        return env
    here = Path(__file__).resolve().parent
    for candidate in (here / "libfp8kit.so", here.parents[1] / "build" / "src" / "libfp8kit.so"):
        if candidate.exists():
            return str(candidate)
    return "libfp8kit.so"


_lib = None


def _library():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(library_path())
        lib.fp8kit_gemm.argtypes = [ctypes.POINTER(_GemmDesc), ctypes.c_void_p, ctypes.c_void_p]
        lib.fp8kit_quantize.argtypes = [ctypes.POINTER(_QuantDesc), ctypes.c_void_p]
        lib.fp8kit_last_error.restype = ctypes.c_char_p
        _lib = lib
    return _lib


def _check(status):
    if status != 0:
        raise Error(status, _library().fp8kit_last_error().decode())


def _dtype(t, what):
    if t.dtype not in _DTYPE:
        raise Error(1, f"{what}.dtype = {t.dtype}: not a dtype fp8kit takes")
    return _DTYPE[t.dtype]


def _ptr(t):
    return None if t is None else t.data_ptr()


def _scale_modes(scale_a, scale_b, m, n, k):
    kb, nb = -(-k // _BLOCK), -(-n // _BLOCK)
    if scale_a.numel() == kb * m and scale_a.dim() == 2 and scale_b.dim() == 2 and scale_b.numel() == nb * kb:
        return _SCALE_BLOCK, _SCALE_BLOCK
    a_mode = _SCALE_TENSOR if scale_a.numel() == 1 else _SCALE_ROW
    b_mode = _SCALE_TENSOR if scale_b.numel() == 1 else _SCALE_COL
    return a_mode, b_mode


def scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16, out=None):
    """D[M, N] = (a[M, K] . b[N, K]^T) * scales (+ bias[N]) on the current stream."""
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[1]:
        raise Error(1, f"a {tuple(a.shape)} and b {tuple(b.shape)}: need [M, K] and [N, K]")
    if a.stride(1) != 1 or b.stride(1) != 1:
        raise Error(1, "a and b must have K contiguous (stride(1) == 1)")
    m, k = a.shape
    n = b.shape[0]
    if out is None:
        out = torch.empty((m, n), dtype=out_dtype, device=a.device)
    scale_a = scale_a.to(torch.float32).contiguous()
    scale_b = scale_b.to(torch.float32).contiguous()
    a_mode, b_mode = _scale_modes(scale_a, scale_b, m, n, k)
    d = _GemmDesc(m, n, k, _ptr(a), a.stride(0), _dtype(a, "a"), _ptr(b), b.stride(0), _dtype(b, "b"),
                  _ptr(out), out.stride(0), _dtype(out, "out"), a_mode, _ptr(scale_a), b_mode, _ptr(scale_b),
                  _ptr(bias), _dtype(bias, "bias") if bias is not None else 4)
    stream = torch.cuda.current_stream(a.device).cuda_stream
    _check(_library().fp8kit_gemm(ctypes.byref(d), None, stream))
    return out


def quantize(x, mode="row", fp8_dtype=torch.float8_e4m3fn, scale=None, rms_weight=None, eps=1e-6):
    """FP8 copy of x [M, K] and its scales: mode "tensor" (scale given), "row"
    ([M]) or "block" ([ceil(K/128), M]); rms_weight fuses an RMSNorm first."""
    m, k = x.shape
    q = torch.empty((m, k), dtype=fp8_dtype, device=x.device)
    if mode == "tensor":
        if scale is None:
            raise Error(1, "mode 'tensor' quantises with a given scale: pass scale=")
        s, code = scale.to(torch.float32).reshape(1).contiguous(), _SCALE_TENSOR
    elif mode == "row":
        s, code = torch.empty(m, dtype=torch.float32, device=x.device), _SCALE_ROW
    elif mode == "block":
        s, code = torch.empty((-(-k // _BLOCK), m), dtype=torch.float32, device=x.device), _SCALE_BLOCK
    else:
        raise Error(1, f"mode = {mode!r}: must be 'tensor', 'row' or 'block'")
    d = _QuantDesc(m, k, _ptr(x), x.stride(0), _dtype(x, "x"), _ptr(q), q.stride(0), _dtype(q, "q"), code,
                   _ptr(s), _ptr(rms_weight), eps)
    _check(_library().fp8kit_quantize(ctypes.byref(d), torch.cuda.current_stream(x.device).cuda_stream))
    return q, s
