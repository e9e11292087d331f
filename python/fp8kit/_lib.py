"""The C library through ctypes: finding it, its enums, its descriptors, its errors.

Nothing here imports torch: `import fp8kit` and `fp8kit.Error` work without it.

Descriptors are packed with `struct` into one bytes object per call (the layout of
`fp8kit_gemm_desc` / `fp8kit_quantize_desc` / `fp8kit_grouped_gemm_desc` in include/fp8kit/fp8kit.h, checked
against the ctypes mirrors below by tests/python/test_package.py): one allocation,
no ctypes Structure built per call, and nothing shared between threads.
"""

import ctypes
import os
import struct
from pathlib import Path

# fp8kit.h enums.
DTYPE_E4M3, DTYPE_E5M2, DTYPE_BF16, DTYPE_F16, DTYPE_F32 = range(5)
SCALE_NONE, SCALE_TENSOR, SCALE_ROW, SCALE_COL, SCALE_BLOCK = range(5)
GROUPED_CONTIGUOUS, GROUPED_MASKED = range(2)
STATUS_SUCCESS, STATUS_INVALID_ARGUMENT, STATUS_UNSUPPORTED, STATUS_CUDA_ERROR, STATUS_INTERNAL_ERROR = range(5)
_STATUS_NAMES = {1: "invalid_argument", 2: "unsupported", 3: "cuda_error", 4: "internal_error"}

# Block scaling granularity of fp8kit_gemm / fp8kit_quantize: 1x128 groups of A, 128x128 blocks of B.
BLOCK = 128
# Largest finite value of each FP8 format (fp8kit.h: FP8_MAX).
FP8_MAX = {DTYPE_E4M3: 448.0, DTYPE_E5M2: 57344.0}


def ceil_div(a, b):
    return -(-a // b)


class Error(RuntimeError):
    """An fp8kit call failed or was refused; .status is fp8kit's status name
    ("invalid_argument", "unsupported", "cuda_error", "internal_error")."""

    def __init__(self, status, message):
        self.status = _STATUS_NAMES.get(status, str(status))
        super().__init__(f"fp8kit: {self.status}: {message}")


def invalid(message):
    """The Error for bad input; the message names the argument."""
    return Error(STATUS_INVALID_ARGUMENT, message)


class GemmDesc(ctypes.Structure):
    """Mirror of fp8kit_gemm_desc; the per-call path packs GEMM_FORMAT instead."""

    _fields_ = [("m", ctypes.c_int64), ("n", ctypes.c_int64), ("k", ctypes.c_int64),
                ("a", ctypes.c_void_p), ("lda", ctypes.c_int64), ("a_type", ctypes.c_int),
                ("b", ctypes.c_void_p), ("ldb", ctypes.c_int64), ("b_type", ctypes.c_int),
                ("d", ctypes.c_void_p), ("ldd", ctypes.c_int64), ("d_type", ctypes.c_int),
                ("a_scale_mode", ctypes.c_int), ("a_scale", ctypes.c_void_p),
                ("b_scale_mode", ctypes.c_int), ("b_scale", ctypes.c_void_p),
                ("bias", ctypes.c_void_p), ("bias_type", ctypes.c_int)]


class QuantizeDesc(ctypes.Structure):
    """Mirror of fp8kit_quantize_desc; the per-call path packs QUANTIZE_FORMAT instead."""

    _fields_ = [("m", ctypes.c_int64), ("k", ctypes.c_int64),
                ("x", ctypes.c_void_p), ("ldx", ctypes.c_int64), ("x_type", ctypes.c_int),
                ("q", ctypes.c_void_p), ("ldq", ctypes.c_int64), ("q_type", ctypes.c_int),
                ("mode", ctypes.c_int), ("scale", ctypes.c_void_p),
                ("rms_weight", ctypes.c_void_p), ("eps", ctypes.c_float)]


class GroupedDesc(ctypes.Structure):
    """Mirror of fp8kit_grouped_gemm_desc; the per-call path packs GROUPED_FORMAT instead."""

    _fields_ = [("layout", ctypes.c_int), ("experts", ctypes.c_int64), ("rows", ctypes.c_int64),
                ("n", ctypes.c_int64), ("k", ctypes.c_int64),
                ("offs", ctypes.c_void_p), ("counts", ctypes.c_void_p),
                ("a", ctypes.c_void_p), ("lda", ctypes.c_int64), ("a_type", ctypes.c_int),
                ("b", ctypes.c_void_p), ("ldb", ctypes.c_int64), ("b_type", ctypes.c_int),
                ("d", ctypes.c_void_p), ("ldd", ctypes.c_int64), ("d_type", ctypes.c_int),
                ("a_scale_mode", ctypes.c_int), ("a_scale", ctypes.c_void_p),
                ("b_scale_mode", ctypes.c_int), ("b_scale", ctypes.c_void_p),
                ("bias", ctypes.c_void_p), ("bias_type", ctypes.c_int)]


# Native alignment ('@') reproduces the C padding; '0q' pads the tail to 8 bytes.
GEMM_FORMAT = "@qqqPqiPqiPqiiPiPPi0q"
QUANTIZE_FORMAT = "@qqPqiPqiiPPf0q"
GROUPED_FORMAT = "@iqqqqPPPqiPqiPqiiPiPPi0q"
_pack_gemm = struct.Struct(GEMM_FORMAT).pack
_pack_quantize = struct.Struct(QUANTIZE_FORMAT).pack
_pack_grouped = struct.Struct(GROUPED_FORMAT).pack


def library_path():
    """The libfp8kit.so this package loads: the one bundled inside the package
    (pip install), else $FP8KIT_LIBRARY, else a source tree's build/src, else
    the loader's search path."""
    here = Path(__file__).resolve().parent
    bundled = here / "libfp8kit.so"
    if bundled.exists():
        return str(bundled)
    env = os.environ.get("FP8KIT_LIBRARY")
    if env:
        return env
    in_tree = here.parents[1] / "build" / "src" / "libfp8kit.so"
    if in_tree.exists():
        return str(in_tree)
    return "libfp8kit.so"


_lib = None


def library():
    """The loaded C library (loaded on first use, argtypes set once)."""
    global _lib
    if _lib is None:
        try:
            lib = ctypes.CDLL(library_path())
        except OSError as e:
            raise Error(STATUS_UNSUPPORTED, f"cannot load libfp8kit.so ({library_path()}): {e}; "
                        "set FP8KIT_LIBRARY or pip install fp8kit") from None
        for fn in (lib.fp8kit_gemm, lib.fp8kit_gemm_select, lib.fp8kit_gemm_workspace_size,
                   lib.fp8kit_grouped_gemm):
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
            fn.restype = ctypes.c_int
        lib.fp8kit_quantize.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.fp8kit_quantize.restype = ctypes.c_int
        lib.fp8kit_last_error.argtypes = []
        lib.fp8kit_last_error.restype = ctypes.c_char_p
        lib.fp8kit_build_targets.argtypes = []
        lib.fp8kit_build_targets.restype = ctypes.c_char_p
        _lib = lib
    return _lib


def check(status):
    if status != STATUS_SUCCESS:
        raise Error(status, library().fp8kit_last_error().decode())


def gemm(m, n, k, a, lda, a_type, b, ldb, b_type, d, ldd, d_type,
         a_mode, a_scale, b_mode, b_scale, bias, bias_type, stream):
    """fp8kit_gemm with default options on `stream` (raw cudaStream_t as int).
    Pointers are ints (0 for none)."""
    desc = _pack_gemm(m, n, k, a, lda, a_type, b, ldb, b_type, d, ldd, d_type,
                      a_mode, a_scale, b_mode, b_scale, bias, bias_type)
    check((_lib or library()).fp8kit_gemm(desc, None, stream))


def quantize(m, k, x, ldx, x_type, q, ldq, q_type, mode, scale, rms_weight, eps, stream):
    """fp8kit_quantize on `stream`; pointers are ints (0 for none)."""
    desc = _pack_quantize(m, k, x, ldx, x_type, q, ldq, q_type, mode, scale, rms_weight, eps)
    check((_lib or library()).fp8kit_quantize(desc, stream))


def grouped_gemm(layout, experts, rows, n, k, offs, counts, a, lda, a_type, b, ldb, b_type, d, ldd, d_type,
                 a_mode, a_scale, b_mode, b_scale, bias, bias_type, stream):
    """fp8kit_grouped_gemm with default options on `stream`; pointers are ints (0 for none)."""
    desc = _pack_grouped(layout, experts, rows, n, k, offs, counts, a, lda, a_type, b, ldb, b_type, d, ldd, d_type,
                         a_mode, a_scale, b_mode, b_scale, bias, bias_type)
    check((_lib or library()).fp8kit_grouped_gemm(desc, None, stream))


def build_targets():
    """The targets each kernel path of the loaded library was built for."""
    return library().fp8kit_build_targets().decode()


# ---- NVFP4 (include/fp8kit/nvfp4.h) -------------------------------------------------------
DTYPE_NVFP4 = 5
NVFP4_SWIZZLED, NVFP4_LINEAR = range(2)
NVFP4_BLOCK = 16      # K elements per E4M3 scale
NVFP4_K_GRANULE = 32  # a GEMM's K is a multiple of this
# struct_size (size_t) first, as the header lays the structs out; fp8kit_nvfp4_operands is
# a, lda, a_scale, b, ldb, b_scale, alpha, d, ldd, bias, then the six 32-bit enums.
_NVFP4_OPERANDS = "PqPPqPPPqPiiiiii"
NVFP4_GEMM_FORMAT = "@Nqqq" + _NVFP4_OPERANDS + "0q"
NVFP4_GROUPED_FORMAT = "@NiqqqqPP" + _NVFP4_OPERANDS + "0q"
NVFP4_QUANTIZE_FORMAT = "@NqqPqPqPPPiiif0q"
_nvfp4_gemm_struct = struct.Struct(NVFP4_GEMM_FORMAT)
_nvfp4_grouped_struct = struct.Struct(NVFP4_GROUPED_FORMAT)
_nvfp4_quantize_struct = struct.Struct(NVFP4_QUANTIZE_FORMAT)
_nvfp4_bound = False


def _nvfp4_library():
    global _nvfp4_bound
    lib = _lib or library()
    if not _nvfp4_bound:
        for fn in (lib.fp8kit_nvfp4_gemm, lib.fp8kit_nvfp4_grouped_gemm):
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
            fn.restype = ctypes.c_int
        lib.fp8kit_nvfp4_quantize.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.fp8kit_nvfp4_quantize.restype = ctypes.c_int
        _nvfp4_bound = True
    return lib


def nvfp4_gemm(m, n, k, operands, stream):
    """fp8kit_nvfp4_gemm with default options; operands: the 16 fields of
    fp8kit_nvfp4_operands in header order (pointers as ints, 0 for none)."""
    desc = _nvfp4_gemm_struct.pack(_nvfp4_gemm_struct.size, m, n, k, *operands)
    check(_nvfp4_library().fp8kit_nvfp4_gemm(desc, None, stream))


def nvfp4_grouped_gemm(layout, experts, rows, n, k, offs, counts, operands, stream):
    """fp8kit_nvfp4_grouped_gemm with default options; operands as for nvfp4_gemm."""
    desc = _nvfp4_grouped_struct.pack(_nvfp4_grouped_struct.size, layout, experts, rows, n, k, offs, counts,
                                      *operands)
    check(_nvfp4_library().fp8kit_nvfp4_grouped_gemm(desc, None, stream))


def nvfp4_quantize(m, k, x, ldx, q, ldq, scale, global_scale, rms_weight, x_type, scale_layout, eps, stream):
    """fp8kit_nvfp4_quantize on `stream`; pointers are ints (0 for none)."""
    desc = _nvfp4_quantize_struct.pack(_nvfp4_quantize_struct.size, m, k, x, ldx, q, ldq, scale, global_scale,
                                       rms_weight, x_type, DTYPE_NVFP4, scale_layout, eps)
    check(_nvfp4_library().fp8kit_nvfp4_quantize(desc, stream))


def nvfp4_scale_bytes(rows, k, swizzled):
    """Bytes of the E4M3 scales of a [rows, k] NVFP4 operand (fp8kit/nvfp4.h's layouts)."""
    blocks = k // NVFP4_BLOCK
    if swizzled:
        return -(-rows // 128) * 128 * (-(-blocks // 4) * 4)
    return rows * blocks
