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


# ---- NVFP4 --------------------------------------------------------------------------
# The library has no offline NVFP4 question (fp8kit_choose_path answers for the FP8
# registry), so this answers from fp8kit_build_targets(), which names every NVFP4
# family's images, with the loader model of docs/loader.md (src/arch/loader.hpp) and
# the W4A4 registry order of src/gemm/nvfp4/nvfp4_dispatch.cpp: sm120_mma (the
# block-scaled FP4 mma, 12.x) first, then sm75_hmma (decode to f16, HMMA, 7.5 and up).
# On Hopper sm90_wgmma's decode kernel also takes W4A4 of at most 16 tokens where it
# splits K little (shape-dependent); the answer here is the path that takes every other
# W4A4 shape.
NVFP4_W4A4_PATHS = (
    # (path, the build_targets() entry of its images, valid range [lo, hi), tensor cores)
    ("sm120_mma", "nvfp4 omma", (120, 130), "native"),
    ("sm75_hmma", "nvfp4 hmma f16", (75, 1000), "fallback"),
)
MIN_CAPABILITY = 75


def _images(targets, entry):
    """The image names ("sm_90", "sm_120f", "compute_120") of one build_targets() entry."""
    for part in targets.split(";"):
        name, _, images = part.partition(":")
        if name.strip() == entry:
            return images.split()
    return []


def _parse_image(image):
    """(sass, capability, variant) of "sm_120f" / "compute_120": variant "", "a" or "f"."""
    kind, _, rest = image.partition("_")
    variant = rest[-1] if rest[-1:] in ("a", "f") else ""
    return kind == "sm", int(rest.rstrip("af")), variant


def select_image(cap, images):
    """The image the driver loads on capability cap (10 * major + minor), or None:
    the highest SASS whose range holds cap (sm_XY: X.Z for Z >= Y; sm_XYf the same
    within the family; sm_XYa exactly X.Y; ties to a, then f), else the highest PTX
    at or below cap (compute_XYa only X.Y, compute_XYf only within major X)."""
    order = {"a": 2, "f": 1, "": 0}
    best = None
    for image in images:
        sass, target, variant = _parse_image(image)
        if variant == "a":
            hi = target + 1
        elif sass or variant == "f":
            hi = (target // 10 + 1) * 10
        else:  # plain PTX: every later GPU
            hi = float("inf")
        if not target <= cap < hi:
            continue
        key = (sass, target, order[variant])
        if best is None or key > best[0]:
            best = (key, image)
    if best is None:
        return None
    return ("sass " if best[0][0] else "ptx ") + best[1] + ("" if best[0][0] else " (JIT)")


def choose_nvfp4_path(major, minor):
    """The path fp8kit_nvfp4_gemm's AUTO dispatch runs for W4A4 (NVFP4 activations) on
    capability major.minor, judged from this build's images, as a PathChoice.
    A library that cannot be loaded is an answer too (ok=False, with the reason)."""
    family = choose_path(major, minor).family
    try:
        targets = _lib.build_targets()
    except _lib.Error as e:
        return PathChoice(False, "auto", "none", family, "", str(e))
    cap = int(major) * 10 + int(minor)
    if cap < MIN_CAPABILITY:
        return PathChoice(False, "auto", "none", family, "",
                          f"compute capability {major}.{minor}: fp8kit needs 7.5 or newer")
    for path, entry, (lo, hi), tensor_cores in NVFP4_W4A4_PATHS:
        image = select_image(cap, _images(targets, entry)) if lo <= cap < hi else None
        if image:
            return PathChoice(True, path, tensor_cores, family, image, "")
    return PathChoice(False, "auto", "none", family, "",
                      f"compute capability {major}.{minor}: no NVFP4 image in this build ({targets})")
