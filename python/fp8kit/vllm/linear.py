"""fp8kit's linear kernels for vLLM: the classes the plugin puts at the head of vLLM's
CUDA lists (`fp8` and `fp8_block`), over fp8kit.vllm.sequences.

    Fp8kitScaledMMLinearKernel       fp8: activations per tensor (static or dynamic) or per
                                     token (dynamic); weights per tensor or per channel
    Fp8kitBlockScaledMMLinearKernel  fp8_block: 1x128 dynamic activation groups, 128x128
                                     weight blocks

Both quantise the activations with fp8kit's own kernel and run fp8kit's GEMM; their
apply path is two fp8kit operators (fake implementations for torch.compile, no host
synchronisation for CUDA graphs). Weights stay where vLLM's loading put them whenever
fp8kit reads that layout as it is (vLLM's [K, N] view of an [N, K] K-contiguous weight
is fp8kit's B); anything else is laid out once in process_weights_after_loading.

Fast accumulation: fp8kit has none yet. vLLM's own CUTLASS FP8 kernels on Hopper use
the FP8 fast-accumulation schedules (KernelTmaWarpSpecialized*FP8FastAccum); torch's
_scaled_mm path (the "torch" backend) does not.
"""

import torch
from vllm.model_executor.kernels.linear.scaled_mm.BlockScaledMMLinearKernel import (
    FP8BlockParams,
    Fp8BlockScaledMMLinearKernel,
)
from vllm.model_executor.kernels.linear.scaled_mm.ScaledMMLinearKernel import FP8ScaledMMLinearKernel
from vllm.model_executor.layers.quantization.utils.quant_utils import GroupShape
from vllm.model_executor.layers.quantization.utils.w8a8_utils import convert_to_channelwise
from vllm.model_executor.utils import replace_parameter

from .. import ops
from . import _support as S
from . import sequences

FP8 = torch.float8_e4m3fn
WIDE = (torch.bfloat16, torch.float16, torch.float32)
BLOCK_WEIGHT, BLOCK_ACT = GroupShape(128, 128), GroupShape(1, 128)


def _fp8_keys(c):
    """A reason when the activation or weight key is not symmetric float8_e4m3fn with f32 scales."""
    for side, key in (("activation", c.activation_quant_key), ("weight", c.weight_quant_key)):
        if key.dtype != FP8:
            return f"{side} dtype {S.dtype_name(key.dtype)}: fp8kit's vLLM kernels take float8_e4m3fn"
        if not key.symmetric:
            return f"asymmetric {side} quantisation"
    return None


def _dims(c):
    """A reason when the layer's K, input or output dtype is not what fp8kit's GEMM takes."""
    _, k = c.weight_shape
    if k % S.K_MULTIPLE:
        return f"K = {k} is not a multiple of {S.K_MULTIPLE}"
    if c.input_dtype not in WIDE:
        return f"input dtype {S.dtype_name(c.input_dtype)}: fp8kit quantises {', '.join(S.WIDE_DTYPE_NAMES)}"
    if c.out_dtype is not None and c.out_dtype not in WIDE:
        return f"output dtype {S.dtype_name(c.out_dtype)}: fp8kit writes {', '.join(S.WIDE_DTYPE_NAMES)}"
    return None


def _k_major(w_nk):
    """w_nk [N, K] as fp8kit reads it (K contiguous, row pitch a multiple of 16 bytes), or None
    when it already is."""
    if w_nk.stride(-1) == 1 and w_nk.stride(0) % 16 == 0:
        return None
    return w_nk.contiguous()


def _f32(t):
    """t as a contiguous float32 tensor, or None when it already is one."""
    if t.dtype == torch.float32 and t.is_contiguous():
        return None
    return t.to(torch.float32).contiguous()


class _Fp8kitKernel:
    """What both classes share: fp8kit's own answer for the GPU, and the checks every
    FP8 layer passes before its kind's scheme is looked at."""

    kind = None

    @classmethod
    def is_supported(cls, compute_capability=None):
        return S.is_supported(compute_capability, cls.kind)

    @classmethod
    @S.never_raises
    def can_implement(cls, c):
        reason = (_fp8_keys(c) or _dims(c)
                  or cls._scheme_refusal(c.activation_quant_key.scale, c.weight_quant_key.scale))
        return (False, reason) if reason else (True, None)


class Fp8kitScaledMMLinearKernel(_Fp8kitKernel, FP8ScaledMMLinearKernel):
    """vLLM's `fp8` kind on fp8kit: quantize (per tensor / per token) + scaled_mm."""

    kind = "fp8"

    @staticmethod
    def _scheme_refusal(a, w):
        if a.group_shape.is_per_token() and a.static:
            return "static per-token activation scales (fp8kit quantises per token dynamically)"
        if not (a.group_shape.is_per_tensor() or a.group_shape.is_per_token()):
            return (f"activation scale groups {tuple(a.group_shape)}: this kind takes per-tensor or "
                    "per-token scales (1x128 groups are fp8kit's fp8_block kernel)")
        if not w.static:
            return "dynamic weight scales"
        if not (w.group_shape.is_per_tensor() or w.group_shape.is_per_channel() or w.group_shape.is_per_token()):
            return f"weight scale groups {tuple(w.group_shape)}: this kind takes per-tensor or per-channel"
        if a.dtype != torch.float32 or w.dtype != torch.float32:
            return "scales that are not float32"
        return None

    def __init__(self, c, layer_param_names):
        super().__init__(c, layer_param_names)
        self.act_mode = "tensor" if c.activation_quant_key.scale.group_shape.is_per_tensor() else "row"
        self.static_input = c.activation_quant_key.scale.static

    def get_output_padding(self):
        return None

    def input_quant_key(self):
        return None

    def process_weights_after_loading(self, layer):
        w_name, ws_name, xs_name, _ = self.layer_param_names
        weight = getattr(layer, w_name)  # vLLM's [K, N] view of the [N, K] weight
        laid = _k_major(weight.t())
        if laid is not None:
            replace_parameter(layer, w_name, laid.t())
        n = weight.shape[1]
        w_scale = getattr(layer, ws_name)
        widths = getattr(layer, "logical_widths", None) or [n]
        if w_scale.numel() not in (1, n) and w_scale.numel() == len(widths):
            # One scale per fused shard (QKV, gate-up) not requantised to one: fp8kit's
            # per-channel mode takes it, expanded once to [N, 1].
            replace_parameter(layer, ws_name, convert_to_channelwise(w_scale, widths))
        elif (laid_scale := _f32(w_scale)) is not None:
            replace_parameter(layer, ws_name, laid_scale)
        input_scale = getattr(layer, xs_name, None)
        if self.static_input and input_scale is None:
            raise ValueError(f"fp8kit: a static activation scheme needs layer.{xs_name}")
        if input_scale is not None and input_scale.numel() != 1:
            input_scale = input_scale.max()  # one static scale per tensor, as vLLM's kernels take
            replace_parameter(layer, xs_name, input_scale)
        if input_scale is not None and (laid_scale := _f32(input_scale)) is not None:
            replace_parameter(layer, xs_name, laid_scale)

    def apply_weights(self, layer, x, bias=None):
        w, w_s, x_s, x_s_ub = self._get_layer_params(layer)
        out_dtype = self.config.out_dtype or x.dtype
        y = sequences.linear(x.reshape(-1, x.shape[-1]), w.t(), w_s, self.act_mode,
                             x_s if self.static_input else None, x_s_ub, bias, out_dtype)
        return y.view(*x.shape[:-1], w.shape[1])

    def apply_scaled_mm(self, *, A, B, out_dtype, As, Bs, bias, output_shape):
        # Fast accumulation, as vLLM's CUTLASS FP8 kernels for these scales.
        return ops.scaled_mm(A, B.t(), As, Bs, bias, out_dtype, use_fast_accum=True).view(*output_shape)


class Fp8kitBlockScaledMMLinearKernel(_Fp8kitKernel, Fp8BlockScaledMMLinearKernel):
    """vLLM's `fp8_block` kind on fp8kit: quantize (1x128 groups) + scaled_mm (128x128 blocks)."""

    kind = "fp8_block"

    @staticmethod
    def _scheme_refusal(a, w):
        if a.static:
            return "static activation scales (fp8kit quantises 1x128 groups dynamically)"
        if tuple(a.group_shape) != tuple(BLOCK_ACT) or tuple(w.group_shape) != tuple(BLOCK_WEIGHT):
            return (f"groups {tuple(a.group_shape)} x {tuple(w.group_shape)}: fp8kit takes 1x128 activation "
                    "groups and 128x128 weight blocks")
        if not w.static:
            return "dynamic weight scales"
        if a.dtype != torch.float32 or w.dtype not in (torch.float32, torch.float8_e8m0fnu):
            return "scales that are neither float32 nor (weights) e8m0"
        return None

    def process_weights_after_loading(self, layer):
        params = self._get_layer_params(layer)
        laid = _k_major(params.weight)
        if laid is not None:
            replace_parameter(layer, params.WEIGHT, laid)
        # e8m0 block scales are powers of two: exact in float32, converted once.
        laid_scale = _f32(params.block_scale)
        if laid_scale is not None:
            replace_parameter(layer, params.block_scale_attr, laid_scale)

    def apply_weights(self, layer, x, bias=None, **kwargs):
        params = FP8BlockParams.from_layer(layer)
        out_dtype = self.config.out_dtype or x.dtype
        y = sequences.linear(x.reshape(-1, x.shape[-1]), params.weight, params.block_scale, "block", bias=bias,
                             out_dtype=out_dtype)
        return y.view(*x.shape[:-1], params.weight.shape[0])

    def apply_block_scaled_mm(self, A, B, As, Bs):
        return ops.scaled_mm(A, B, As, Bs, None, self.config.out_dtype or torch.bfloat16)
