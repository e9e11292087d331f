"""fp8kit for Python and PyTorch: FP8 scaled GEMM and quantisation on every NVIDIA
family from SM75 up, through the C library (ctypes; nothing to compile).

    import fp8kit
    q, s = fp8kit.quantize(x, "row")                      # x [M, K] bf16 -> e4m3 + [M, 1]
    d = fp8kit.scaled_mm(q, w, s, w_scale, bias=None, out_dtype=torch.bfloat16)
    y = fp8kit.grouped_mm(q, w_experts, s, w_scales, offs)   # MoE: q [T, K] sorted by expert
    q4, s4 = fp8kit.nvfp4_quantize(x, global_scale)        # NVFP4: uint8 [M, K/2] + swizzled E4M3
    d = fp8kit.nvfp4_mm(q4, w4, s4, w4_scale, alpha)       # W4A4 (or x itself as a: W4A16)

`fp8kit.ops` registers the torch.library operators (torch.ops.fp8kit.*), which
torch.compile traces and CUDA graphs capture; `fp8kit.compat` has vLLM's
signatures (cutlass_scaled_mm, scaled_fp8_quant, per_token_group_quant_fp8).
Errors raise fp8kit.Error naming the argument. docs/python.md has the details.

The library is the libfp8kit.so bundled in this package (pip install), else
$FP8KIT_LIBRARY, else a source tree's build/src, else the loader's search path;
it must be this package's version (fp8kit.Error otherwise, naming both).
`fp8kit.configure(path=..., programmatic_launch=...)` sets the options of every
later call; each GEMM call lends fp8kit the workspace it asks for (split-K) from
PyTorch's caching allocator. Importing fp8kit does not import torch; its torch
parts load on first use.
"""

from ._choose import choose_path
from ._lib import Error, build_targets, configure, library_path
from ._version import __version__

__all__ = ["Error", "scaled_mm", "quantize", "grouped_mm", "nvfp4_mm", "nvfp4_grouped_mm", "nvfp4_quantize",
           "configure", "choose_path", "library_path", "build_targets", "ops", "compat", "__version__"]

_LAZY = {"scaled_mm": "ops", "quantize": "ops", "grouped_mm": "ops", "nvfp4_mm": "_nvfp4",
         "nvfp4_grouped_mm": "_nvfp4", "nvfp4_quantize": "_nvfp4", "ops": None, "compat": None}


def __getattr__(name):
    """torch-dependent parts, imported on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'fp8kit' has no attribute {name!r}")
    import importlib
    module = importlib.import_module(f".{_LAZY[name] or name}", __name__)
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value
    return value
