"""The package without a GPU (and mostly without torch): it imports without torch,
its packed descriptors match the C layout, it finds its library in the documented
order, and its errors carry fp8kit's status."""

import ctypes
import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import fp8kit
from fp8kit import _lib


def test_import_does_not_import_torch():
    code = "import sys, fp8kit; print(fp8kit.__version__); sys.exit('torch' in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))


def _offsets(fmt):
    """(offset, size) of each item of a struct format, in order ('0q' padding excluded)."""
    order, items = fmt[0], re.findall(r"(\d*)([a-zA-Z?])", fmt[1:])
    out, prefix = [], order
    for count, code in items:
        if count == "0":
            prefix += count + code
            continue
        out.append((struct.calcsize(prefix + "0" + code), struct.calcsize(order + code)))
        prefix += code
    return out


def _header_layout():
    tool = os.environ.get("FP8KIT_ABI_LAYOUT")
    if not tool:
        pytest.skip("no layout tool (FP8KIT_ABI_LAYOUT: the build's fp8kit_abi_layout)")
    return json.loads(subprocess.run([tool], check=True, capture_output=True, text=True).stdout)


@pytest.mark.parametrize("name", sorted(_lib.LAYOUTS))
def test_packed_struct_matches_the_header(name):
    # The header, as the C compiler lays it out, against the package's format.
    c = _header_layout()[name]
    fmt, fields = _lib.LAYOUTS[name]
    assert struct.calcsize(fmt) == c["size"]
    assert fields == [f for f, _, _ in c["fields"]]
    assert _offsets(fmt) == [(off, size) for _, off, size in c["fields"]]


def test_every_header_struct_is_packed():
    assert sorted(_header_layout()) == sorted(_lib.LAYOUTS)


def test_package_version_is_the_headers():
    header = os.environ.get("FP8KIT_HEADER")
    if not header:
        pytest.skip("FP8KIT_HEADER names include/fp8kit/fp8kit.h")
    m = re.search(r'#define FP8KIT_VERSION_STRING "([^"]+)"', Path(header).read_text())
    assert m and m.group(1) == fp8kit.__version__


def test_library_of_another_version_is_refused(monkeypatch):
    if not os.environ.get("FP8KIT_LIBRARY") and not Path(fp8kit.library_path()).exists():
        pytest.skip("no libfp8kit.so to load (set FP8KIT_LIBRARY)")
    monkeypatch.setattr(_lib, "_lib", None)
    monkeypatch.setattr(_lib, "__version__", "9.8.7")
    with pytest.raises(fp8kit.Error, match="this package is fp8kit 9.8.7") as info:
        _lib.library()
    assert info.value.status == "unsupported" and fp8kit.__version__ in str(info.value)


def test_choose_path_without_a_gpu():
    if not os.environ.get("FP8KIT_LIBRARY") and not Path(fp8kit.library_path()).exists():
        pytest.skip("no libfp8kit.so to load (set FP8KIT_LIBRARY)")
    # Some shipped capability has an image in any build; 7.0 never does.
    answers = [fp8kit.choose_path(major, minor) for major, minor in ((7, 5), (8, 9), (9, 0), (10, 0), (12, 0))]
    assert any(a.ok for a in answers)
    for a in answers:
        assert (a.path in _lib.PATHS and a.image and a.family) if a.ok else ("no image" in a.reason)
    old = fp8kit.choose_path(7, 0)
    assert not old.ok and "7.5 or newer" in old.reason and old.family == "unknown"



# docs/loader.md's cases: (images, capability, the image loaded or None).
LOADER_CASES = [
    (["sm_80"], 86, "sass sm_80"), (["sm_80"], 90, None), (["sm_80", "sm_86"], 89, "sass sm_86"),
    (["sm_120"], 121, "sass sm_120"), (["sm_120a"], 121, None), (["sm_120f"], 121, "sass sm_120f"),
    (["sm_100a"], 103, None), (["sm_90", "compute_80"], 100, "ptx compute_80 (JIT)"),
    (["sm_90", "compute_120"], 90, "sass sm_90"), (["compute_120"], 103, None),
    (["compute_100f"], 103, "ptx compute_100f (JIT)"), (["compute_100f"], 110, None),
    (["compute_90a"], 90, "ptx compute_90a (JIT)"), (["compute_90a"], 100, None), ([], 90, None),
]


@pytest.mark.parametrize("images, cap, loaded", LOADER_CASES)
def test_select_image_is_the_loader_rule(images, cap, loaded):
    from fp8kit._choose import select_image

    assert select_image(cap, images) == loaded


def test_choose_nvfp4_path_without_a_gpu():
    if not os.environ.get("FP8KIT_LIBRARY") and not Path(fp8kit.library_path()).exists():
        pytest.skip("no libfp8kit.so to load (set FP8KIT_LIBRARY)")
    from fp8kit._choose import choose_nvfp4_path

    for major, minor in ((7, 5), (8, 0), (8, 9), (9, 0), (10, 0), (12, 0), (12, 1)):
        a = choose_nvfp4_path(major, minor)
        assert (a.path in ("sm120_mma", "sm75_hmma") and a.image) if a.ok else ("no NVFP4 image" in a.reason)
        assert a.path != "sm120_mma" or major == 12
    old = choose_nvfp4_path(7, 0)
    assert not old.ok and "7.5 or newer" in old.reason

def test_path_and_tensor_core_names_are_the_librarys():
    if not os.environ.get("FP8KIT_LIBRARY") and not Path(fp8kit.library_path()).exists():
        pytest.skip("no libfp8kit.so to load (set FP8KIT_LIBRARY)")
    lib = _lib.library()
    lib.fp8kit_path_name.restype = ctypes.c_char_p
    for name, value in _lib.PATHS.items():
        assert lib.fp8kit_path_name(value).decode() == name
    assert lib.fp8kit_path_name(len(_lib.PATHS)).decode() == "unknown_path"


def test_configure_checks_the_path():
    before = fp8kit.configure(path="sm89_mma")
    try:
        assert fp8kit.configure() == ("sm89_mma", before[1], before[2])
        with pytest.raises(fp8kit.Error, match="path = 'sm99'"):
            fp8kit.configure(path="sm99")
    finally:
        fp8kit.configure(*before)


def test_library_path_prefers_the_bundled_library(tmp_path, monkeypatch):
    monkeypatch.setenv("FP8KIT_LIBRARY", "/elsewhere/libfp8kit.so")
    here = Path(_lib.__file__).resolve().parent
    expected = str(here / "libfp8kit.so") if (here / "libfp8kit.so").exists() else "/elsewhere/libfp8kit.so"
    assert fp8kit.library_path() == expected


def test_missing_library_is_an_fp8kit_error(monkeypatch):
    if (Path(_lib.__file__).resolve().parent / "libfp8kit.so").exists():
        pytest.skip("a bundled library takes precedence over FP8KIT_LIBRARY")
    monkeypatch.setenv("FP8KIT_LIBRARY", "/nonexistent/libfp8kit.so")
    monkeypatch.setattr(_lib, "_lib", None)
    with pytest.raises(fp8kit.Error, match="cannot load libfp8kit.so") as info:
        _lib.library()
    assert info.value.status == "unsupported"


def test_library_loads_and_reports_its_targets():
    if not os.environ.get("FP8KIT_LIBRARY") and not Path(fp8kit.library_path()).exists():
        pytest.skip("no libfp8kit.so to load (set FP8KIT_LIBRARY)")
    assert "sm89_mma:" in fp8kit.build_targets()


def test_error_carries_the_status_name():
    e = fp8kit.Error(_lib.STATUS_INVALID_ARGUMENT, "scale_a has shape (63,)")
    assert e.status == "invalid_argument" and "scale_a" in str(e) and isinstance(e, RuntimeError)
