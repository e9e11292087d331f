"""vLLM's real layers with fp8kit selected: its FP8 linear layers (Fp8Config per tensor,
static and dynamic, Fp8Config with 128x128 blocks, FBGEMMFp8Config's per-channel weights)
and its FusedMoE layer, weights processed by vLLM and the plugin, then apply traced on
fake CUDA tensors with a symbolic number of tokens: the graph has fp8kit's operators and
none of vLLM's GEMM or quantisation kernels, and the result has the right shape, dtype
and strides.

vLLM's own weight processing reads values in places (it requantises fused shards), so
linear layers are built and processed on CPU tensors and then moved to fake CUDA tensors;
the dynamic per-tensor MoE layer is built and processed under the fake mode itself.
"""

import logging

import pytest
import torch
from conftest import FP8, capability, fill_checkpoint, served_capability, to_fake_cuda
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext
from vllm.model_executor.layers.fused_moe import FusedMoEFactory
from vllm.model_executor.layers.fused_moe.activation import MoEActivation
from vllm.model_executor.layers.linear import MergedColumnParallelLinear
from vllm.model_executor.layers.quantization.fbgemm_fp8 import FBGEMMFp8Config
from vllm.model_executor.layers.quantization.fp8 import Fp8Config
from vllm.utils.torch_utils import set_default_torch_dtype
from vllm.v1.worker import workspace
from vllm.v1.worker.workspace import init_workspace_manager

from fp8kit._choose import choose_path
from fp8kit.vllm import _support
from fp8kit.vllm.linear import Fp8kitBlockScaledMMLinearKernel, Fp8kitScaledMMLinearKernel
from fp8kit.vllm.moe import Fp8kitBatchedExperts, Fp8kitExperts

K, WIDTHS, TOKENS = 512, [256, 256], 33
EXPERTS, TOPK, INNER = 8, 2, 256
# Where the test runs, fp8kit must have an image (8.9 in the default build).
SERVED = served_capability()
# Operators of vLLM's own that the fp8kit path may keep: its fused MoE activation.
VLLM_KEPT = {"_C.silu_and_mul.default"}

LINEAR_CONFIGS = {
    "Fp8Config static per tensor": (lambda: Fp8Config(True, activation_scheme="static"),
                                    Fp8kitScaledMMLinearKernel),
    "Fp8Config dynamic per token": (lambda: Fp8Config(True, activation_scheme="dynamic"),
                                    Fp8kitScaledMMLinearKernel),
    "Fp8Config 128x128 blocks": (lambda: Fp8Config(True, activation_scheme="dynamic", weight_block_size=[128, 128]),
                                 Fp8kitBlockScaledMMLinearKernel),
    "FBGEMMFp8Config per channel": (lambda: FBGEMMFp8Config(ignore_list=[], input_scale_ub=1200.0),
                                    Fp8kitScaledMMLinearKernel),
}


def _symbolic_input(mode, *shape, dtype=torch.bfloat16):
    """A fake CUDA tensor whose first dimension is symbolic."""
    dims = [DimDynamic.DYNAMIC] + [DimDynamic.STATIC] * (len(shape) - 1)
    x = mode.from_tensor(torch.empty(shape, dtype=dtype), symbolic_context=StatelessSymbolicContext(dynamic_sizes=dims))
    with mode:
        return x.to("cuda")


def _calls(gm):
    return [str(node.target) for node in gm.graph.nodes if node.op == "call_function"]


def _result(gm):
    out = next(node for node in gm.graph.nodes if node.op == "output").args[0]
    return (out[0] if isinstance(out, (tuple, list)) else out).meta["val"]


def _assert_fp8kit_only(calls, expected):
    for op in expected:
        assert op in calls, (op, calls)
    vllm_ops = [c for c in calls if c.startswith("_C.") and c not in VLLM_KEPT]
    assert not vllm_ops and "aten._scaled_mm.default" not in calls, calls
    # The weights are read where they lie: no copy of any tensor in the apply path.
    assert not [c for c in calls if c in ("aten.clone.default", "aten.contiguous.default")], calls


@pytest.mark.parametrize("name", LINEAR_CONFIGS)
def test_linear_layer_processed_and_traced(vllm_config, layer_name, name):
    make_config, kernel = LINEAR_CONFIGS[name]
    with capability(SERVED), set_default_torch_dtype(torch.bfloat16):  # as vLLM's model loader does
        layer = MergedColumnParallelLinear(K, WIDTHS, bias=False, quant_config=make_config(),
                                           params_dtype=torch.bfloat16, prefix=f"{layer_name}.gate_up_proj")
    assert type(layer.quant_method.fp8_linear) is kernel
    fill_checkpoint(layer)
    if hasattr(layer, "weight_scale") and layer.weight_scale.dim() == 1:
        # A checkpoint that stores the fused module with one scale (vLLM's unfused case
        # requantises on the GPU).
        layer.weight_scale.data[1:] = torch.finfo(torch.float32).min
    layer.quant_method.process_weights_after_loading(layer)
    n = sum(WIDTHS)
    if kernel is Fp8kitBlockScaledMMLinearKernel:
        assert layer.weight.shape == (n, K) and layer.weight.stride() == (K, 1)
        assert layer.weight_scale_inv.shape == (n // 128, K // 128) and layer.weight_scale_inv.dtype == torch.float32
    else:  # vLLM's [K, N] view of the K-contiguous [N, K] weight: what fp8kit reads
        assert layer.weight.shape == (K, n) and layer.weight.t().stride() == (K, 1)
        assert layer.weight_scale.dtype == torch.float32 and layer.weight_scale.numel() in (1, n)

    mode = FakeTensorMode(shape_env=ShapeEnv())
    to_fake_cuda(layer, mode)
    x = _symbolic_input(mode, TOKENS, K)
    gm = make_fx(lambda x: layer(x)[0], tracing_mode="fake")(x)
    _assert_fp8kit_only(_calls(gm), ["fp8kit.quantize.default", "fp8kit.scaled_mm.default"])
    out = _result(gm)
    assert out.shape[1] == n and isinstance(out.shape[0], torch.SymInt)
    assert out.dtype == torch.bfloat16 and out.device.type == "cuda" and out.stride() == (n, 1)

    x3 = _symbolic_input(mode, 3, 11, K)
    out3 = _result(make_fx(lambda x: layer(x)[0], tracing_mode="fake")(x3))
    assert out3.shape[1:] == (11, n) and out3.dtype == torch.bfloat16


def _moe(layer_name, quant_config):
    return FusedMoEFactory(num_experts=EXPERTS, top_k=TOPK, hidden_size=K, intermediate_size=INNER,
                           params_dtype=torch.bfloat16, quant_config=quant_config, prefix=f"{layer_name}.experts")


def _trace_experts(experts, mode):
    # vLLM's workspace is per process; each trace here is its own fake process.
    workspace._manager = None
    init_workspace_manager(torch.device("cuda:0"))
    kernel = experts.quant_method.moe_kernel
    x = _symbolic_input(mode, TOKENS, K)
    with mode:
        weights = torch.empty((x.shape[0], TOPK), dtype=torch.float32, device="cuda")
        ids = torch.empty((x.shape[0], TOPK), dtype=torch.int32, device="cuda")

    def apply(x, weights, ids):
        return kernel.apply(x, experts.w13_weight, experts.w2_weight, weights, ids, MoEActivation.SILU, EXPERTS,
                            None, False)

    return make_fx(apply, tracing_mode="fake")(x, weights, ids)


MOE_EXPECTED = ["fp8kit.quantize.default", "fp8kit.grouped_mm.default", "aten.sort.stable",
                "aten.searchsorted.Tensor"]


def _check_moe_trace(gm):
    calls = _calls(gm)
    _assert_fp8kit_only(calls, MOE_EXPECTED)
    assert calls.count("fp8kit.grouped_mm.default") == 2 and calls.count("fp8kit.quantize.default") == 2
    out = _result(gm)
    assert out.shape[1] == K and isinstance(out.shape[0], torch.SymInt)
    assert out.dtype == torch.bfloat16 and out.stride() == (K, 1)


def test_fused_moe_block_layer_processed_and_traced(vllm_config, layer_name):
    with capability(SERVED):
        runner = _moe(layer_name, Fp8Config(True, activation_scheme="dynamic", weight_block_size=[128, 128]))
    experts = runner.routed_experts
    assert experts.quant_method.experts_cls is Fp8kitExperts
    fill_checkpoint(experts)
    experts.quant_method.process_weights_after_loading(experts)
    # The layout fp8kit's grouped GEMM reads, as vLLM's TRITON backend keeps it.
    assert experts.w13_weight.stride() == (2 * INNER * K, K, 1)
    assert experts.w13_weight_scale_inv.shape == (EXPERTS, 2 * INNER // 128, K // 128)
    mode = FakeTensorMode(shape_env=ShapeEnv())
    to_fake_cuda(experts, mode)
    experts.quant_method._init_moe_kernel(experts)  # vLLM's kernel, rebuilt over the fake weights
    assert type(experts.quant_method.moe_kernel.fused_experts) is Fp8kitExperts
    _check_moe_trace(_trace_experts(experts, mode))


def test_fused_moe_per_tensor_layer_built_and_traced_under_fake_mode(vllm_config, layer_name):
    mode = FakeTensorMode(shape_env=ShapeEnv())
    with capability(SERVED), mode, torch.device("cuda"):
        runner = _moe(layer_name, Fp8Config(True, activation_scheme="dynamic"))
        experts = runner.routed_experts
        experts.quant_method.process_weights_after_loading(experts)
    assert type(experts.quant_method.moe_kernel.fused_experts) is Fp8kitExperts
    assert experts.w13_weight_scale.shape == (EXPERTS,)
    _check_moe_trace(_trace_experts(experts, mode))


@pytest.mark.parametrize("cc", (121, 120, 103, 90, 89, 80))
def test_fused_moe_selection_follows_fp8kits_dispatch(vllm_config, layer_name, cc, caplog):
    _support._answer.cache_clear()
    with capability(cc), caplog.at_level(logging.INFO, logger="vllm.plugins.fp8kit"):
        runner = _moe(layer_name, Fp8Config(True, activation_scheme="dynamic", weight_block_size=[128, 128]))
    chosen = runner.routed_experts.quant_method.experts_cls
    answer = _support.served(cc, "fp8_block")
    if answer.ok:
        assert chosen is Fp8kitExperts
    else:
        assert chosen is not Fp8kitExperts
        assert any("FP8 MoE experts not used" in r.getMessage() and answer.why in r.getMessage()
                   for r in caplog.records)


def test_fused_moe_disabled_by_name_falls_through(vllm_config, layer_name, monkeypatch, caplog):
    monkeypatch.setenv("VLLM_DISABLED_KERNELS", "Fp8kitExperts")
    with capability(SERVED), caplog.at_level(logging.INFO, logger="vllm.plugins.fp8kit"):
        runner = _moe(layer_name, Fp8Config(True, activation_scheme="dynamic", weight_block_size=[128, 128]))
    assert runner.routed_experts.quant_method.experts_cls is not Fp8kitExperts
    assert any("disabled by VLLM_DISABLED_KERNELS" in r.getMessage() for r in caplog.records)


def test_batched_experts_traced(vllm_config, layer_name):
    """The masked format (what DeepEP low-latency dispatch hands over): vLLM's dispatcher
    quantised the activations, [E, max_m, K] with [E, max_m, K/128] scales and counts."""
    with capability(SERVED):  # every query below (the support check, the dispatch) sees it
        runner = _moe(layer_name, Fp8Config(True, activation_scheme="dynamic", weight_block_size=[128, 128]))
        method = runner.routed_experts.quant_method
        import vllm.model_executor.layers.fused_moe.modular_kernel as mk

        fmt = mk.FusedMoEActivationFormat.BatchedExperts
        ok, reason = Fp8kitBatchedExperts.is_supported_config(Fp8kitBatchedExperts, method.moe, *_block_keys(), fmt)
        assert ok, reason
        experts = runner.routed_experts
        fill_checkpoint(experts)
        method.process_weights_after_loading(experts)
        mode = FakeTensorMode(shape_env=ShapeEnv())
        to_fake_cuda(experts, mode)
        quant = method.get_fused_moe_quant_config(experts)
        batched = Fp8kitBatchedExperts(method.moe, quant, max_num_tokens=16, num_dispatchers=1)
        max_m = 16
        with mode:
            x = torch.empty((EXPERTS, max_m, K), dtype=FP8, device="cuda")
            x_scale = torch.empty((EXPERTS, max_m, K // 128), dtype=torch.float32, device="cuda")
            counts = torch.empty((EXPERTS,), dtype=torch.int32, device="cuda")
            out = torch.empty((EXPERTS, max_m, K), dtype=torch.bfloat16, device="cuda")
            work2 = torch.empty(batched.workspace_shapes(max_m, 2 * INNER, K, TOPK, EXPERTS, EXPERTS, None,
                                                         MoEActivation.SILU)[1], dtype=torch.bfloat16, device="cuda")

        def apply(x, x_scale, counts, out):
            meta = mk.ExpertTokensMetadata(expert_num_tokens=counts, expert_num_tokens_cpu=None)
            batched.apply(out, x, experts.w13_weight, experts.w2_weight, None, torch.empty((1, TOPK), device="cuda"),
                          MoEActivation.SILU, EXPERTS, None, x_scale, None, None, work2, meta, False)
            return out

        calls = _calls(make_fx(apply, tracing_mode="fake")(x, x_scale, counts, out))
        _assert_fp8kit_only(calls, ["fp8kit.grouped_mm.default", "fp8kit.quantize.default"])
    assert calls.count("fp8kit.grouped_mm.default") == 2 and calls.count("fp8kit.quantize.default") == 1


def _block_keys():
    from vllm.model_executor.layers.quantization.utils.quant_utils import kFp8Dynamic128Sym, kFp8Static128BlockSym
    return kFp8Static128BlockSym, kFp8Dynamic128Sym


def test_vllms_own_log_says_fp8kit_is_selected(vllm_config, layer_name, capsys):
    """What a user sees in vLLM's log (docs/vllm.md quotes this test's output): vLLM's
    logging configured as `vllm serve` configures it."""
    from fp8kit._choose import choose_path
    if not choose_path(12, 1).ok:
        pytest.skip("this build of fp8kit has no image for 12.1 (a developer build of other targets)")
    import vllm.logger
    from vllm.config.logging import LoggingConfig

    root = logging.getLogger("vllm")
    saved = root.handlers[:], root.propagate, root.level
    vllm.logger._print_info_once.cache_clear()
    try:
        vllm.logger.configure_logging(LoggingConfig())
        with capability(121), set_default_torch_dtype(torch.bfloat16):
            for config in (Fp8Config(True, activation_scheme="dynamic"),
                           Fp8Config(True, activation_scheme="dynamic", weight_block_size=[128, 128])):
                MergedColumnParallelLinear(K, WIDTHS, bias=False, quant_config=config, params_dtype=torch.bfloat16,
                                           prefix=f"{layer_name}.gate_up_proj")
            _moe(layer_name, Fp8Config(True, activation_scheme="dynamic", weight_block_size=[128, 128]))
    finally:
        root.handlers[:], root.propagate = saved[0], saved[1]
        root.setLevel(saved[2])
    log = capsys.readouterr()
    text = log.out + log.err
    with capsys.disabled():
        print("\n" + text)
    assert "Selected Fp8kitScaledMMLinearKernel for Fp8LinearMethod" in text
    assert "Selected Fp8kitBlockScaledMMLinearKernel for Fp8LinearMethod" in text
    assert "FP8 MoE experts Fp8kitExperts (fp8kit grouped GEMM) ahead of vLLM's backends" in text
