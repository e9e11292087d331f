"""NVFP4 from Python without a GPU or torch: the packed descriptors as the C library
reads them (each bad field comes back named, so Python packs every field where the
header puts it), and the scale buffers' sizes."""

import pytest

from fp8kit import _lib


def _operands(**kw):
    f = dict(a=0x10000, lda=64, a_scale=0x20000, b=0x30000, ldb=64, b_scale=0x40000, alpha=0x50000,
             d=0x60000, ldd=72, bias=0, a_type=_lib.DTYPE_NVFP4, b_type=_lib.DTYPE_NVFP4,
             a_layout=_lib.NVFP4_SWIZZLED, b_layout=_lib.NVFP4_SWIZZLED, d_type=_lib.DTYPE_BF16,
             bias_type=_lib.DTYPE_F32)
    f.update(kw)
    return tuple(f.values())


@pytest.mark.parametrize("m, n, k, fields, message", [
    (33, 65, 48, {}, "k = 48"),
    (33, 65, 128, {"b_type": _lib.DTYPE_BF16}, "b_type = bf16"),
    (33, 65, 128, {"ldd": 66}, "ldd = 66"),
    (33, 65, 128, {"b_layout": 7}, "b_scale_layout = 7"),
    (33, 65, 128, {"bias": 0x70001, "bias_type": _lib.DTYPE_F16}, "bias = "),
])
def test_the_library_reads_each_field_where_python_packs_it(m, n, k, fields, message):
    with pytest.raises(_lib.Error, match=message):
        _lib.nvfp4_gemm(m, n, k, _operands(**fields), 0)


def test_grouped_and_quantize_descriptors_reach_their_checks():
    with pytest.raises(_lib.Error, match="experts = 0"):
        _lib.nvfp4_grouped_gemm(_lib.GROUPED_MASKED, 0, 8, 64, 128, 0, 0x80000, _operands(), 0)
    with pytest.raises(_lib.Error, match="ldq = 12"):
        _lib.nvfp4_quantize(4, 32, 0x10000, 32, 0x20000, 12, 0x30000, 0, 0, _lib.DTYPE_BF16, _lib.NVFP4_SWIZZLED,
                            1e-6, 0)
    with pytest.raises(_lib.Error, match="scale_layout = 5"):
        _lib.nvfp4_quantize(4, 32, 0x10000, 32, 0x20000, 16, 0x30000, 0, 0, _lib.DTYPE_BF16, 5, 1e-6, 0)


def test_scale_bytes():
    assert _lib.nvfp4_scale_bytes(129, 80, True) == 256 * 8
    assert _lib.nvfp4_scale_bytes(129, 80, False) == 129 * 5
