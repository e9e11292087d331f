"""fp8kit's FP8 mixture-of-experts experts for vLLM: FusedMoEExpertsModular classes over
fp8kit's grouped GEMM, one per vLLM activation format (= fp8kit's two grouped layouts).

    Fp8kitExperts         standard format: hidden states [M, K] and top-k ids; the rows
                          are sorted by expert into fp8kit's contiguous layout, and the
                          result is reduced over top-k here (TP, and EP without all2all)
    Fp8kitBatchedExperts  batched format: [E, max_m, K] with per-expert counts, fp8kit's
                          masked layout as it is (DeepEP low-latency, NIXL EP, batched)

Weights and scales stay as vLLM's Triton experts keep them ([E, N, K] with K contiguous,
f32 scales per expert, per channel or in 128x128 blocks): that is the layout fp8kit's
grouped GEMM reads, so the oracle patch (fp8kit.vllm._oracle) hands these classes the
weights of vLLM's TRITON backend, converted by nothing. The op sequences are
fp8kit.vllm.sequences.moe_standard / moe_batched.
"""

import torch
import vllm.envs as envs
import vllm.model_executor.layers.fused_moe.modular_kernel as mk
from vllm.model_executor.layers.fused_moe.activation import apply_moe_activation_supported
from vllm.model_executor.layers.fused_moe.topk_weight_and_reduce import (
    TopKWeightAndReduceDelegate,
    TopKWeightAndReduceNoOP,
)
from vllm.model_executor.layers.quantization.utils.quant_utils import (
    kFp8Dynamic128Sym,
    kFp8DynamicTensorSym,
    kFp8DynamicTokenSym,
    kFp8Static128BlockSym,
    kFp8StaticChannelSym,
    kFp8StaticTensorSym,
)
from vllm.platforms import current_platform

from . import _support as S
from . import sequences

# (weight key, activation key) pairs fp8kit's grouped GEMM and quantiser serve.
SCHEMES = (
    (kFp8Static128BlockSym, kFp8Dynamic128Sym),
    (kFp8StaticChannelSym, kFp8DynamicTokenSym),
    (kFp8StaticTensorSym, kFp8DynamicTokenSym),
    (kFp8StaticTensorSym, kFp8StaticTensorSym),
    (kFp8StaticTensorSym, kFp8DynamicTensorSym),
)
MOE_DTYPES = (torch.bfloat16, torch.float16)


def _act_mode(quant_config):
    if quant_config.block_shape is not None:
        return "block"
    return "row" if quant_config.per_act_token_quant else "tensor"


def _workspace(buffer, rows, cols):
    return buffer.flatten()[: rows * cols].view(rows, cols)


class _Fp8kitExperts(mk.FusedMoEExpertsModular):
    """What both formats share: the support checks and the activation."""

    @staticmethod
    def is_supported_config(cls, moe_config, weight_key, activation_key, activation_format):
        if cls.__name__ in envs.VLLM_DISABLED_KERNELS:
            return False, f"{cls.__name__} is disabled by VLLM_DISABLED_KERNELS"
        if current_platform.is_cuda():
            ok, reason = S.is_supported(None, "fp8_block" if weight_key == kFp8Static128BlockSym else "fp8")
            if not ok:
                return False, f"fp8kit {reason}"
        supported, reason = mk.FusedMoEExperts.is_supported_config(
            cls, moe_config, weight_key, activation_key, activation_format)
        if not supported:
            return supported, reason
        inner = moe_config.intermediate_size_per_partition
        if inner % S.K_MULTIPLE:
            return False, f"intermediate size {inner} per partition is not a multiple of {S.K_MULTIPLE} (fp8kit's K)"
        if moe_config.in_dtype not in MOE_DTYPES:
            return False, f"activation dtype {S.dtype_name(moe_config.in_dtype)}: fp8kit's experts take bf16 / f16"
        return True, None

    @staticmethod
    def _supports_current_device():
        return current_platform.is_cuda() and S.is_supported(None, "fp8")[0]

    @staticmethod
    def _supports_no_act_and_mul():
        return True

    @staticmethod
    def _supports_quant_scheme(weight_key, activation_key):
        return (weight_key, activation_key) in SCHEMES

    @staticmethod
    def _supports_activation(activation):
        return apply_moe_activation_supported(activation)

    @staticmethod
    def _supports_shape(hidden_dim):
        return hidden_dim % S.K_MULTIPLE == 0

    def __init__(self, moe_config, quant_config, max_num_tokens=None, num_dispatchers=None):
        super().__init__(moe_config, quant_config, max_num_tokens, num_dispatchers)
        self.act_mode = _act_mode(quant_config)

    def _activation(self, activation):
        """activation(out, in) through vLLM's MoE activation (its fused kernels)."""
        return lambda out, h: mk.FusedMoEExpertsModular.activation(self, activation, out, h)


class Fp8kitExperts(_Fp8kitExperts):
    """The standard (contiguous, token-permuted) format on fp8kit."""

    @staticmethod
    def activation_format():
        return mk.FusedMoEActivationFormat.Standard

    @staticmethod
    def _supports_parallel_config(moe_parallel_config):
        # The standard all2all dispatchers (DeepEP high-throughput, ...) hand over their own
        # token layout; without all2all (TP, EP within one DP rank) the tokens are this rank's.
        return not moe_parallel_config.use_all2all_kernels

    @property
    def expects_unquantized_inputs(self):
        # fp8kit quantises the activations itself (one fused kernel, its own scale layout).
        return True

    def finalize_weight_and_reduce_impl(self):
        return TopKWeightAndReduceNoOP()

    def workspace_shapes(self, M, N, K, topk, global_num_experts, local_num_experts, expert_tokens_meta,
                         activation):
        act_dim = self.adjust_N_for_activation(N, activation)
        return (0,), (M, topk, act_dim), (M, K)

    def apply(self, output, hidden_states, w1, w2, topk_weights, topk_ids, activation, global_num_experts,
              expert_map, a1q_scale, a2_scale, workspace13, workspace2, expert_tokens_meta,
              apply_router_weight_on_input):
        m, topk = topk_ids.shape
        act_dim = self.adjust_N_for_activation(w1.shape[1], activation)
        y = sequences.moe_standard(
            hidden_states, topk_ids, topk_weights, w1, w2, self.w1_scale, self.w2_scale, self.act_mode,
            self._activation(activation), act_dim, a1_scale=self.a1_scale, a2_scale=a2_scale,
            w1_bias=self.w1_bias, w2_bias=self.w2_bias, expert_map=expert_map,
            weights_applied=apply_router_weight_on_input, act_out=_workspace(workspace2, m * topk, act_dim))
        output.copy_(y)


class Fp8kitBatchedExperts(_Fp8kitExperts):
    """The batched (masked) format on fp8kit: vLLM's dispatcher quantises (its batched
    dispatchers cannot defer that), fp8kit runs both GEMMs and the second quantisation."""

    @staticmethod
    def activation_format():
        return mk.FusedMoEActivationFormat.BatchedExperts

    @staticmethod
    def _supports_parallel_config(moe_parallel_config):
        return True

    def finalize_weight_and_reduce_impl(self):
        return TopKWeightAndReduceDelegate()

    def workspace_shapes(self, M, N, K, topk, global_num_experts, local_num_experts, expert_tokens_meta,
                         activation):
        rows = self.max_num_tokens * self.num_dispatchers
        act_dim = self.adjust_N_for_activation(N, activation)
        return (0,), (local_num_experts, rows, act_dim), (local_num_experts, rows, K)

    def apply(self, output, hidden_states, w1, w2, topk_weights, topk_ids, activation, global_num_experts,
              expert_map, a1q_scale, a2_scale, workspace13, workspace2, expert_tokens_meta,
              apply_router_weight_on_input):
        experts, rows, _ = hidden_states.shape
        act_dim = self.adjust_N_for_activation(w1.shape[1], activation)
        y = sequences.moe_batched(
            hidden_states, expert_tokens_meta.expert_num_tokens, w1, w2, self.w1_scale, self.w2_scale,
            self.act_mode, self._activation(activation), act_dim, a1_scale=self.a1_scale, a2_scale=a2_scale,
            w1_bias=self.w1_bias, w2_bias=self.w2_bias, x_scale=a1q_scale, out_dtype=output.dtype,
            act_out=_workspace(workspace2, experts * rows, act_dim))
        output.copy_(y)
