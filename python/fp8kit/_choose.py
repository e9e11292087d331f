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
import struct
from typing import NamedTuple

from . import _lib

PATH_NAMES = {v: k for k, v in _lib.PATHS.items()}
_CHOICE = struct.Struct(_lib.LAYOUTS["fp8kit_path_choice"][0])


class PathChoice(NamedTuple):
    ok: bool
    path: str
    tensor_cores: str
    family: str
    image: str
    reason: str  # fp8kit's message when not ok, else ""


def _text(address):
    return ctypes.string_at(address).decode() if address else ""


def choose_path(major, minor, a_mode=_lib.SCALE_TENSOR, b_mode=_lib.SCALE_TENSOR):
    """What fp8kit's AUTO dispatch runs on capability major.minor for these scale modes.
    A library that cannot be loaded is an answer too (ok=False, with the reason)."""
    try:
        lib = _lib.library()
    except _lib.Error as e:
        return PathChoice(False, "auto", "none", "unknown", "", str(e))
    buf = ctypes.create_string_buffer(_CHOICE.pack(_CHOICE.size, 0, 0, 0, 0), _CHOICE.size)
    status = lib.fp8kit_choose_path(int(major), int(minor), int(a_mode), int(b_mode), buf)
    reason = "" if status == _lib.STATUS_SUCCESS else lib.fp8kit_last_error().decode()
    _, path, tensor_cores, family, image = _CHOICE.unpack(buf.raw)
    return PathChoice(status == _lib.STATUS_SUCCESS, PATH_NAMES.get(path, str(path)),
                      _lib.TENSOR_CORES.get(tensor_cores, str(tensor_cores)), _text(family), _text(image), reason)
