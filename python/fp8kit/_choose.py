"""fp8kit_choose_path from Python: which kernel path fp8kit's AUTO dispatch would run
on a GPU of a given compute capability, judged from the images this build of the
library carries. No GPU and no torch are needed (the vLLM plugin asks it for every
capability vLLM names).

    choose_path(12, 1, SCALE_ROW, SCALE_COL)
        -> PathChoice(ok=True, path="sm120_mma", tensor_cores="native",
                      family="Blackwell (SM12x)", image="sass sm_120f", reason="")
    choose_path(9, 0)  # a build without a Hopper image
        -> PathChoice(ok=False, ..., reason="compute capability 9.0: no image in this build (...)")
"""

import ctypes
from typing import NamedTuple

from . import _lib

# fp8kit.h: fp8kit_path and fp8kit_tensor_cores, by value.
PATH_NAMES = {0: "auto", 1: "sm90_wgmma", 2: "sm89_mma", 3: "sm75_hmma", 4: "sm120_mma"}
TENSOR_CORE_NAMES = {0: "none", 1: "native", 2: "emulated", 3: "fallback", 4: "unknown"}


class _PathChoice(ctypes.Structure):
    """Mirror of fp8kit_path_choice."""

    _fields_ = [("path", ctypes.c_int), ("tensor_cores", ctypes.c_int),
                ("family", ctypes.c_char_p), ("image", ctypes.c_char_p)]


class PathChoice(NamedTuple):
    ok: bool
    path: str
    tensor_cores: str
    family: str
    image: str
    reason: str  # fp8kit's message when not ok, else ""


_choose = None


def _function():
    global _choose
    if _choose is None:
        fn = _lib.library().fp8kit_choose_path
        fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(_PathChoice)]
        fn.restype = ctypes.c_int
        _choose = fn
    return _choose


def _text(p):
    return p.decode() if p else ""


def choose_path(major, minor, a_mode=_lib.SCALE_TENSOR, b_mode=_lib.SCALE_TENSOR):
    """What fp8kit's AUTO dispatch runs on capability major.minor for these scale modes.
    A library that cannot be loaded is an answer too (ok=False, with the reason)."""
    try:
        fn = _function()
    except _lib.Error as e:
        return PathChoice(False, "auto", "none", "unknown", "", str(e))
    choice = _PathChoice()
    status = fn(int(major), int(minor), int(a_mode), int(b_mode), ctypes.byref(choice))
    reason = "" if status == _lib.STATUS_SUCCESS else _lib.library().fp8kit_last_error().decode()
    return PathChoice(status == _lib.STATUS_SUCCESS, PATH_NAMES.get(choice.path, str(choice.path)),
                      TENSOR_CORE_NAMES.get(choice.tensor_cores, str(choice.tensor_cores)),
                      _text(choice.family), _text(choice.image), reason)
