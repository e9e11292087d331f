"""The C library through ctypes: finding it, its enums, its descriptors, its errors.

Nothing here imports torch: `import fp8kit` and `fp8kit.Error` work without it.

Descriptors and options are packed with `struct` into one bytes object each per
call (the layouts of include/fp8kit/fp8kit.h, LAYOUTS below, checked against the
build's own account of the header by tests/python/test_package.py): no ctypes
Structure built per call, and nothing shared between threads.

The library must be this package's version (fp8kit_version()): a mismatched
libfp8kit.so is refused when it loads, naming both versions.
"""

import ctypes
import os
import struct
from pathlib import Path

from ._version import __version__

# fp8kit.h enums.
DTYPE_E4M3, DTYPE_E5M2, DTYPE_BF16, DTYPE_F16, DTYPE_F32 = range(5)
PATHS = {"auto": 0, "sm90_wgmma": 1, "sm89_mma": 2, "sm75_hmma": 3, "sm120_mma": 4, "cuda_cores": 5}
TENSOR_CORES = {0: "none", 1: "native", 2: "emulated", 3: "fallback", 4: "unknown"}
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


# The C structs, packed with `struct` (native alignment, '@', reproduces the C
# padding; '0q' pads a struct's end to 8 bytes). Each begins with struct_size
# (fp8kit.h: versioned structs); the field names are the C ones, in order, and
# tests/python/test_package.py checks offsets and sizes against the layout the
# build prints from the real header (tests/abi/layout.c).
OPERANDS = ("PqiPqiPqiiPiPPi0q", ["a", "lda", "a_type", "b", "ldb", "b_type", "d", "ldd", "d_type",
                                  "a_scale_mode", "a_scale", "b_scale_mode", "b_scale", "bias", "bias_type"])
LAYOUTS = {
    "fp8kit_gemm_desc": ("@Qqqq" + OPERANDS[0], ["struct_size", "m", "n", "k"] + ["op." + f for f in OPERANDS[1]]),
    "fp8kit_grouped_gemm_desc": ("@QiqqqqPP" + OPERANDS[0],
                                 ["struct_size", "layout", "experts", "rows", "n", "k", "offs", "counts"]
                                 + ["op." + f for f in OPERANDS[1]]),
    "fp8kit_quantize_desc": ("@QqqPqiPqiifPP", ["struct_size", "m", "k", "x", "ldx", "x_type", "q", "ldq", "q_type",
                                                "mode", "eps", "scale", "rms_weight"]),
    "fp8kit_gemm_options": ("@QiiPQiiii", ["struct_size", "path", "checked", "workspace", "workspace_size",
                                           "programmatic_launch", "workspace_zeroed", "accumulation", "reserved"]),
    "fp8kit_path_choice": ("@QiiPP", ["struct_size", "path", "tensor_cores", "family", "image"]),
}
_GEMM, _GROUPED, _QUANTIZE, _OPTIONS = (struct.Struct(LAYOUTS[n][0]) for n in (
    "fp8kit_gemm_desc", "fp8kit_grouped_gemm_desc", "fp8kit_quantize_desc", "fp8kit_gemm_options"))
_pack_gemm, _pack_grouped, _pack_quantize, _pack_options = (s.pack for s in (_GEMM, _GROUPED, _QUANTIZE, _OPTIONS))


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


def version_number(text):
    """FP8KIT_VERSION of a "major.minor.patch" string."""
    major, minor, patch = (int(x) for x in text.split("."))
    return major * 10000 + minor * 100 + patch


def _check_version(lib, path):
    """Refuses a library of another version than this package's."""
    if not hasattr(lib, "fp8kit_version"):
        raise Error(STATUS_UNSUPPORTED, f"{path} is fp8kit 0.1 (it has no fp8kit_version); this package is "
                    f"fp8kit {__version__}: install the matching library (pip install fp8kit=={__version__})")
    lib.fp8kit_version.restype = ctypes.c_int
    lib.fp8kit_version_string.restype = ctypes.c_char_p
    if lib.fp8kit_version() != version_number(__version__):
        raise Error(STATUS_UNSUPPORTED, f"{path} is fp8kit {lib.fp8kit_version_string().decode()}; this package "
                    f"is fp8kit {__version__}: the two must be the same version")


def library():
    """The loaded C library (loaded on first use, its version checked, argtypes set once)."""
    global _lib
    if _lib is None:
        path = library_path()
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise Error(STATUS_UNSUPPORTED, f"cannot load libfp8kit.so ({path}): {e}; "
                        "set FP8KIT_LIBRARY or pip install fp8kit") from None
        _check_version(lib, path)
        for fn in (lib.fp8kit_gemm, lib.fp8kit_gemm_select, lib.fp8kit_gemm_workspace_size,
                   lib.fp8kit_grouped_gemm):
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
            fn.restype = ctypes.c_int
        lib.fp8kit_quantize.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.fp8kit_quantize.restype = ctypes.c_int
        lib.fp8kit_choose_path.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
        lib.fp8kit_choose_path.restype = ctypes.c_int
        lib.fp8kit_last_error.argtypes = []
        lib.fp8kit_last_error.restype = ctypes.c_char_p
        lib.fp8kit_build_targets.argtypes = []
        lib.fp8kit_build_targets.restype = ctypes.c_char_p
        _lib = lib
    return _lib


def check(status):
    if status != STATUS_SUCCESS:
        raise Error(status, library().fp8kit_last_error().decode())


class Options:
    """fp8kit_gemm_options as this package passes them: the path (a PATHS name; the
    library's FP8KIT_PATH still applies where it is "auto") and programmatic launch
    (fp8kit.h: only when the kernel before a GEMM does not write its B). Set with
    fp8kit.configure. The split-K workspace: "per_call" (the default) lends fresh
    memory from PyTorch's caching allocator to each call, which zeroes its
    counters first (a memset node in a graph); "per_stream" keeps one zeroed
    workspace per CUDA stream and lends it with fp8kit's zeroed promise
    (fp8kit.h: workspace_zeroed), so a call is one kernel. per_stream is for
    programs whose fp8kit calls on a stream, graph replays included, never
    run concurrently with each other (a serving engine's one stream)."""

    def __init__(self, path="auto", programmatic_launch=False, workspace="per_call"):
        if path not in PATHS:
            raise invalid(f"path = {path!r}: must be one of {', '.join(PATHS)}")
        if workspace not in WORKSPACE_MODES:
            raise invalid(f"workspace = {workspace!r}: must be one of {', '.join(WORKSPACE_MODES)}")
        self.path = path
        self.programmatic_launch = bool(programmatic_launch)
        self.workspace = workspace

    def pack(self, workspace=0, workspace_size=0, fast_accum=False, zeroed=False):
        return _pack_options(_OPTIONS.size, PATHS[self.path], 0, workspace, workspace_size,
                             int(self.programmatic_launch), int(zeroed),
                             ACCUMULATION_FAST if fast_accum else ACCUMULATION_PROMOTED, 0)


WORKSPACE_MODES = ("per_call", "per_stream")


ACCUMULATION_PROMOTED, ACCUMULATION_FAST = range(2)  # fp8kit_accumulation


def fast_with_block_scales():
    """The error for use_fast_accum with block scales (the library refuses the same)."""
    return invalid("use_fast_accum = True: block scales are applied, and so promoted, per 128-deep K block; "
                   "fast accumulation applies to per-tensor, per-token and per-channel scales")
options = Options()
_no_workspace = options.pack()
_workspace_bytes = {}


def configure(path=None, programmatic_launch=None, workspace=None):
    """Sets the options of every later call (None keeps a setting); returns the
    previous (path, programmatic_launch, workspace)."""
    global options, _no_workspace
    before = (options.path, options.programmatic_launch, options.workspace)
    options = Options(before[0] if path is None else path,
                      before[1] if programmatic_launch is None else programmatic_launch,
                      before[2] if workspace is None else workspace)
    _no_workspace = options.pack()
    _workspace_bytes.clear()
    return before


def gemm_desc(m, n, k, a, lda, a_type, b, ldb, b_type, d, ldd, d_type, a_mode, a_scale, b_mode, b_scale, bias,
              bias_type):
    """The packed fp8kit_gemm_desc; pointers are ints (0 for none)."""
    return _pack_gemm(_GEMM.size, m, n, k, a, lda, a_type, b, ldb, b_type, d, ldd, d_type,
                      a_mode, a_scale, b_mode, b_scale, bias, bias_type)


def workspace_bytes(desc, key):
    """The workspace fp8kit_gemm would use for `desc` with the current options,
    asked once per `key` (what the answer depends on: M, N, K, block scales, device)."""
    nbytes = _workspace_bytes.get(key)
    if nbytes is None:
        out = ctypes.c_size_t(0)
        check((_lib or library()).fp8kit_gemm_workspace_size(desc, _no_workspace, ctypes.byref(out)))
        nbytes = _workspace_bytes[key] = out.value
    return nbytes


def gemm(desc, workspace, workspace_size, stream, fast_accum=False, zeroed=False):
    """fp8kit_gemm of a packed descriptor with the package's options and the lent
    workspace (device pointer and bytes; 0, 0 for none; zeroed: fp8kit's
    workspace_zeroed promise) on `stream` (raw cudaStream_t); fast_accum: FAST
    accumulation (fp8kit.h)."""
    opts = options.pack(workspace, workspace_size, fast_accum, zeroed) if workspace_size or fast_accum \
        else _no_workspace
    check((_lib or library()).fp8kit_gemm(desc, opts, stream))


def quantize(m, k, x, ldx, x_type, q, ldq, q_type, mode, scale, rms_weight, eps, stream):
    """fp8kit_quantize on `stream`; pointers are ints (0 for none)."""
    desc = _pack_quantize(_QUANTIZE.size, m, k, x, ldx, x_type, q, ldq, q_type, mode, eps, scale, rms_weight)
    check((_lib or library()).fp8kit_quantize(desc, stream))


def grouped_desc(layout, experts, rows, n, k, offs, counts, a, lda, a_type, b, ldb, b_type, d, ldd, d_type,
                 a_mode, a_scale, b_mode, b_scale, bias, bias_type):
    """The packed fp8kit_grouped_gemm_desc; pointers are ints (0 for none)."""
    return _pack_grouped(_GROUPED.size, layout, experts, rows, n, k, offs, counts, a, lda, a_type, b, ldb, b_type,
                         d, ldd, d_type, a_mode, a_scale, b_mode, b_scale, bias, bias_type)


def grouped_gemm(layout, experts, rows, n, k, offs, counts, a, lda, a_type, b, ldb, b_type, d, ldd, d_type,
                 a_mode, a_scale, b_mode, b_scale, bias, bias_type, stream, fast_accum=False):
    """fp8kit_grouped_gemm with the package's options on `stream`; pointers are ints (0 for none)."""
    desc = grouped_desc(layout, experts, rows, n, k, offs, counts, a, lda, a_type, b, ldb, b_type, d, ldd, d_type,
                        a_mode, a_scale, b_mode, b_scale, bias, bias_type)
    opts = options.pack(fast_accum=True) if fast_accum else _no_workspace
    check((_lib or library()).fp8kit_grouped_gemm(desc, opts, stream))


def build_targets():
    """The targets each kernel path of the loaded library was built for."""
    return library().fp8kit_build_targets().decode()


# ---- NVFP4 (include/fp8kit/nvfp4.h) -------------------------------------------------------
DTYPE_NVFP4 = 5
NVFP4_SWIZZLED, NVFP4_LINEAR = range(2)
NVFP4_BLOCK = 16      # K elements per E4M3 scale
NVFP4_K_GRANULE = 32  # a GEMM's K is a multiple of this
# The NVFP4 structs (struct_size first), in LAYOUTS with the others.
NVFP4_OPERANDS = ("PqPPqPPPqPiiiiii", ["a", "lda", "a_scale", "b", "ldb", "b_scale", "alpha", "d", "ldd", "bias",
                                       "a_type", "b_type", "a_scale_layout", "b_scale_layout", "d_type", "bias_type"])
LAYOUTS["fp8kit_nvfp4_gemm_desc"] = ("@Qqqq" + NVFP4_OPERANDS[0],
                                     ["struct_size", "m", "n", "k"] + ["op." + f for f in NVFP4_OPERANDS[1]])
LAYOUTS["fp8kit_nvfp4_grouped_gemm_desc"] = (
    "@QiqqqqPP" + NVFP4_OPERANDS[0],
    ["struct_size", "layout", "experts", "rows", "n", "k", "offs", "counts"] + ["op." + f for f in NVFP4_OPERANDS[1]])
LAYOUTS["fp8kit_nvfp4_quantize_desc"] = ("@QqqPqPqPPPiiif", ["struct_size", "m", "k", "x", "ldx", "q", "ldq", "scale",
                                                            "global_scale", "rms_weight", "x_type", "q_type",
                                                            "scale_layout", "eps"])
_nvfp4_gemm_struct, _nvfp4_grouped_struct, _nvfp4_quantize_struct = (struct.Struct(LAYOUTS[n][0]) for n in (
    "fp8kit_nvfp4_gemm_desc", "fp8kit_nvfp4_grouped_gemm_desc", "fp8kit_nvfp4_quantize_desc"))
_nvfp4_bound = False


def _nvfp4_library():
    global _nvfp4_bound
    lib = _lib or library()
    if not _nvfp4_bound:
        for fn in (lib.fp8kit_nvfp4_gemm, lib.fp8kit_nvfp4_grouped_gemm, lib.fp8kit_nvfp4_gemm_workspace_size,
                   lib.fp8kit_nvfp4_grouped_gemm_workspace_size):
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
            fn.restype = ctypes.c_int
        lib.fp8kit_nvfp4_quantize.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.fp8kit_nvfp4_quantize.restype = ctypes.c_int
        _nvfp4_bound = True
    return lib


_nvfp4_workspace_bytes = {}


def _nvfp4_call(run, size_of, desc, key, lend, stream):
    """An NVFP4 GEMM with default options, lending the workspace the call asks for
    (Hopper: NVFP4 A beyond decode widened to bf16) from lend(nbytes), which
    returns a device pointer that stays valid for the call on `stream`. The size
    is asked once per `key` (the problem's kind, shape and device)."""
    nbytes = _nvfp4_workspace_bytes.get(key)
    if nbytes is None:
        out = ctypes.c_size_t(0)
        check(size_of(desc, None, ctypes.byref(out)))
        nbytes = _nvfp4_workspace_bytes[key] = out.value
    opts = _pack_options(_OPTIONS.size, 0, 0, lend(nbytes), nbytes, 0, 0, ACCUMULATION_PROMOTED, 0) if nbytes \
        else None
    check(run(desc, opts, stream))


def nvfp4_gemm(m, n, k, operands, stream, lend=None, key=None):
    """fp8kit_nvfp4_gemm with default options; operands: the 16 fields of
    fp8kit_nvfp4_operands in header order (pointers as ints, 0 for none). lend:
    as for _nvfp4_call (None: no workspace)."""
    desc = _nvfp4_gemm_struct.pack(_nvfp4_gemm_struct.size, m, n, k, *operands)
    lib = _nvfp4_library()
    if lend is None:
        check(lib.fp8kit_nvfp4_gemm(desc, None, stream))
        return
    _nvfp4_call(lib.fp8kit_nvfp4_gemm, lib.fp8kit_nvfp4_gemm_workspace_size, desc, key, lend, stream)


def nvfp4_grouped_gemm(layout, experts, rows, n, k, offs, counts, operands, stream, lend=None, key=None):
    """fp8kit_nvfp4_grouped_gemm with default options; operands and lend as for nvfp4_gemm."""
    desc = _nvfp4_grouped_struct.pack(_nvfp4_grouped_struct.size, layout, experts, rows, n, k, offs, counts,
                                      *operands)
    lib = _nvfp4_library()
    if lend is None:
        check(lib.fp8kit_nvfp4_grouped_gemm(desc, None, stream))
        return
    _nvfp4_call(lib.fp8kit_nvfp4_grouped_gemm, lib.fp8kit_nvfp4_grouped_gemm_workspace_size, desc, key, lend,
                stream)


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
