"""The package without a GPU (and mostly without torch): it imports without torch,
its packed descriptors match the C layout, it finds its library in the documented
order, and its errors carry fp8kit's status."""

import ctypes
import os
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


@pytest.mark.parametrize("fmt, mirror", [(_lib.GEMM_FORMAT, _lib.GemmDesc), (_lib.QUANTIZE_FORMAT, _lib.QuantizeDesc),
                                         (_lib.GROUPED_FORMAT, _lib.GroupedDesc)])
def test_packed_descriptor_matches_the_c_layout(fmt, mirror):
    # Every field gets a distinct value; unpacking the bytes as the ctypes mirror must give it back.
    values = []
    for i, (_, ctype) in enumerate(mirror._fields_):
        values.append(0.5 + i if ctype is ctypes.c_float else 1000 + i)
    packed = struct.pack(fmt, *values)
    assert len(packed) == ctypes.sizeof(mirror)
    desc = mirror.from_buffer_copy(packed)
    assert [getattr(desc, name) for name, _ in mirror._fields_] == values


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
