"""fp8kit's NVFP4 linear kernel for vLLM: the class the plugin puts at the head of
vLLM's CUDA `nvfp4` list (W4A4: ModelOpt NVFP4 and compressed-tensors NVFP4 checkpoints).

    Fp8kitNvFp4LinearKernel  NVFP4 activations (fp8kit's quantiser, static global scale,
                             E4M3 scales per 16) x NVFP4 weights (E4M3 scales per 16,
                             one global scale), f32 accumulation, bf16 / f16 out

The layer reaches process_weights_after_loading with vLLM's names, as its NVFP4 methods
leave them: weight uint8 [N, K/2], weight_scale float8_e4m3fn [N, K/16] row-major,
input_global_scale_inv (the quantiser's global scale) and alpha (input_global_scale x
weight_global_scale, the GEMM's factor). The weight scales are swizzled once (the layout
fp8kit's quantiser writes for the activations and its GEMM reads), a K that is not a
multiple of the GEMM's 32 is zero-padded once to it, the global scales are made f32 [1]
once; apply is fp8kit's NVFP4 quantise and NVFP4 GEMM (fake implementations for
torch.compile, no host synchronisation for CUDA graphs), sequences.nvfp4_linear.

Weight-only NVFP4 (W4A16) is not offered: vLLM picks those kernels from a fixed tuple.
"""

import dataclasses

import torch
from vllm.model_executor.kernels.linear.nvfp4.base import NvFp4LinearKernel, NvFp4LinearLayerConfig
from vllm.model_executor.utils import replace_parameter

from . import _support as S
from . import sequences

K_GRANULE = 32  # fp8kit's NVFP4 GEMM takes K a multiple of this (16 bytes of a packed row)
# NvFp4LinearLayerConfig's fields this class reads (vLLM 0.33.0's has none); a config
# with others describes a scheme fp8kit has not been checked against.
KNOWN_FIELDS = frozenset()


def _f32_one(t):
    """t as a contiguous float32 [1], or None when it already is one."""
    if t.dtype == torch.float32 and t.dim() == 1 and t.numel() == 1:
        return None
    return t.reshape(1).to(torch.float32).contiguous()


class Fp8kitNvFp4LinearKernel(NvFp4LinearKernel):
    """vLLM's `nvfp4` kind (W4A4) on fp8kit: nvfp4_quantize + nvfp4_mm."""

    kind = S.NVFP4

    @classmethod
    def is_supported(cls, compute_capability=None):
        return S.is_supported(compute_capability, cls.kind)

    @classmethod
    @S.never_raises
    def can_implement(cls, config):
        if not isinstance(config, NvFp4LinearLayerConfig):
            return False, f"{type(config).__name__} is not an NvFp4LinearLayerConfig"
        unknown = sorted(f.name for f in dataclasses.fields(config) if f.name not in KNOWN_FIELDS)
        if unknown:
            return False, (f"the NVFP4 layer config carries {', '.join(unknown)}, which fp8kit's kernel does not "
                           "read (checked against vLLM 0.33.0's config, which has no fields)")
        return True, None

    def process_weights_after_loading(self, layer):
        weight = layer.weight.data  # uint8 [N, K/2]: two E2M1 values a byte along K
        n, k = weight.shape[0], 2 * weight.shape[1]
        k_pad = -k % K_GRANULE
        if weight.dtype != torch.uint8 or k_pad or not weight.is_contiguous():
            laid = weight.view(torch.uint8)
            if k_pad:  # zero values with zero block scales: the product is unchanged
                laid = torch.nn.functional.pad(laid, (0, k_pad // 2))
            replace_parameter(layer, "weight", laid.contiguous())
        scale = layer.weight_scale.data
        if tuple(scale.shape) != (n, k // sequences.NVFP4_BLOCK):
            raise ValueError(f"fp8kit: weight_scale has shape {tuple(scale.shape)}; the NVFP4 weight [{n}, {k // 2}] "
                             f"needs row-major scales [{n}, {k // sequences.NVFP4_BLOCK}]")
        # The zero block of a padded K lies inside round_up(K/16, 4) of the swizzled layout.
        replace_parameter(layer, "weight_scale", sequences.swizzle_nvfp4_scales(scale.view(torch.float8_e4m3fn)))
        for name in ("input_global_scale_inv", "alpha"):
            laid = _f32_one(getattr(layer, name))
            if laid is not None:
                replace_parameter(layer, name, laid)

    def apply_weights(self, layer, x, bias=None):
        k = x.shape[-1]
        n = layer.weight.shape[0]
        y = sequences.nvfp4_linear(x.reshape(-1, k), layer.weight, layer.weight_scale, layer.input_global_scale_inv,
                                   layer.alpha, bias, x.dtype, 2 * layer.weight.shape[1] - k)
        return y.view(*x.shape[:-1], n)
