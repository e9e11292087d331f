"""vLLM's `nvfp4` kind (W4A4) on fp8kit: the class heads vLLM's CUDA list where fp8kit's
NVFP4 dispatch has an image for the GPU and falls through with the reason where it has
none; `--linear-backend fp8kit` restricts NVFP4 layers to it; weight-only (W4A16) layers
keep vLLM's kernels; refusals are answers, never exceptions; vLLM's NVFP4 linear layers
(ModelOpt and compressed-tensors), weights processed by vLLM and the plugin, traced on
fake CUDA tensors with a symbolic token count, run fp8kit's NVFP4 operators only."""

import dataclasses
import logging

import pytest
import torch
import vllm.model_executor.kernels.linear as linear
from conftest import capability
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from test_layers import _assert_fp8kit_only, _calls, _result, _symbolic_input
from vllm.config import KernelConfig, VllmConfig, set_current_vllm_config
from vllm.model_executor.kernels.linear.nvfp4.base import NvFp4LinearLayerConfig
from vllm.model_executor.layers.linear import MergedColumnParallelLinear
from vllm.model_executor.layers.quantization.modelopt import ModelOptNvFp4Config
from vllm.platforms import PlatformEnum
from vllm.utils.torch_utils import set_default_torch_dtype

import fp8kit._choose as choose
from fp8kit._choose import choose_nvfp4_path
from fp8kit.vllm import _support
from fp8kit.vllm.nvfp4 import Fp8kitNvFp4LinearKernel

OURS = Fp8kitNvFp4LinearKernel
LOGGER = "vllm.plugins.fp8kit"
CAPABILITIES = (121, 120, 103, 100, 90, 89, 80, 75, 70)
WIDTHS = [256, 256]
E4M3 = torch.float8_e4m3fn


def nvfp4_served():
    """A capability this build runs NVFP4 W4A4 on (12.1 first: the GB10)."""
    for cc in (121, 120, 90, 89, 80, 100, 103, 75):
        if choose_nvfp4_path(cc // 10, cc % 10).ok:
            return cc
    raise RuntimeError("this fp8kit build serves NVFP4 on no shipped capability")


SERVED = nvfp4_served()


@pytest.fixture(autouse=True)
def fallback_allowed(monkeypatch):
    """The tests below take fp8kit's HMMA fallback as served (FP8KIT_VLLM_FALLBACK=1),
    so that a build without an SM12x image still exercises the class; the gate itself
    has its own test."""
    monkeypatch.setenv(_support.FALLBACK_VARIABLE, "1")
    _support._answer.cache_clear()
    yield
    _support._answer.cache_clear()


@pytest.mark.parametrize("cc", CAPABILITIES)
def test_the_hmma_fallback_is_kept_off_unless_asked(monkeypatch, cc):
    """Without FP8KIT_VLLM_FALLBACK=1, NVFP4 is served only where fp8kit has its tensor
    cores (SM12x, OMMA.SF); elsewhere vLLM's own kernels stay, with the reason."""
    monkeypatch.delenv(_support.FALLBACK_VARIABLE)
    _support._answer.cache_clear()
    answer = _support.served(cc, "nvfp4")
    choice = choose_nvfp4_path(cc // 10, cc % 10)
    assert answer.ok == (choice.ok and choice.tensor_cores == "native")
    if choice.ok and not answer.ok:
        assert "no NVFP4 tensor cores" in answer.why and _support.FALLBACK_VARIABLE in answer.why


def _select(use_a16=False):
    return linear.init_nvfp4_linear_kernel(use_a16=use_a16)


def test_fp8kit_heads_the_nvfp4_list_once():
    kernels = linear._POSSIBLE_NVFP4_KERNELS[PlatformEnum.CUDA]
    assert kernels[0] is OURS and kernels.count(OURS) == 1
    assert OURS in linear._LINEAR_BACKEND_KERNEL_MAP["fp8kit"]


@pytest.mark.parametrize("cc", CAPABILITIES)
def test_selection_follows_fp8kits_nvfp4_dispatch(vllm_config, cc, caplog):
    _support._answer.cache_clear()  # its "not selected" line is logged once per answer
    answer = _support.served(cc, "nvfp4")
    _support._answer.cache_clear()
    with capability(cc), caplog.at_level(logging.INFO, logger=LOGGER):
        chosen = type(_select())
        ok, reason = linear.is_supported_and_can_implement_kernel(OURS, NvFp4LinearLayerConfig(), None)
    assert answer.choice == choose_nvfp4_path(cc // 10, cc % 10)
    if answer.ok:
        assert chosen is OURS and ok
    else:
        assert chosen is not OURS and not ok
        assert answer.why in reason
        assert any(answer.why in r.getMessage() and "nvfp4 not selected" in r.getMessage()
                   for r in caplog.records if r.name == LOGGER)


@pytest.mark.parametrize("cc", (90, 120, 121))
def test_hopper_and_sm12x_follow_this_builds_images(cc):
    ok, reason = OURS.is_supported(cc)
    answer = choose_nvfp4_path(cc // 10, cc % 10)
    if answer.ok:
        assert ok and reason is None
        assert answer.path == ("sm120_mma" if "sm_120f" in answer.image else "sm75_hmma")
    else:
        assert not ok and f"compute capability {cc // 10}.{cc % 10}: no NVFP4 image in this build" in reason


def test_below_turing_is_a_no_with_a_reason():
    ok, reason = OURS.is_supported(70)
    assert not ok and "compute capability 7.0: fp8kit needs 7.5 or newer" in reason


# build_targets() of the builds fp8kit ships or developers make: (text, {capability: (path, image)}).
TARGETS = {
    "default": ("sm75_hmma: sm_75 sm_80 sm_86 compute_80; sm89_mma: sm_89 sm_90 sm_100 sm_120 compute_120; "
                "sm90_wgmma: sm_90a; sm120_mma: sm_120f; nvfp4 hmma f16: sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 "
                "sm_120 compute_120; nvfp4 hmma bf16: sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 compute_120; "
                "nvfp4 omma: sm_120f",
                {121: ("sm120_mma", "sass sm_120f"), 120: ("sm120_mma", "sass sm_120f"),
                 103: ("sm75_hmma", "sass sm_100"), 90: ("sm75_hmma", "sass sm_90"),
                 86: ("sm75_hmma", "sass sm_86"), 75: ("sm75_hmma", "sass sm_75"), 70: None}),
    "120 only": ("sm75_hmma: ; sm89_mma: sm_120 compute_120; sm90_wgmma: ; sm120_mma: sm_120f; nvfp4 hmma f16: "
                 "sm_120 compute_120; nvfp4 hmma bf16: sm_120 compute_120; nvfp4 omma: sm_120f",
                 {121: ("sm120_mma", "sass sm_120f"), 90: None, 103: None}),
    "90 only": ("sm75_hmma: ; sm89_mma: sm_90 compute_90; sm90_wgmma: sm_90a; sm120_mma: ; nvfp4 hmma f16: "
                "sm_90 compute_120; nvfp4 hmma bf16: sm_90 compute_120; nvfp4 omma: ",
                {90: ("sm75_hmma", "sass sm_90"), 121: ("sm75_hmma", "ptx compute_120 (JIT)"), 89: None}),
}


@pytest.mark.parametrize("build", TARGETS)
def test_nvfp4_path_per_build(monkeypatch, build):
    text, expected = TARGETS[build]
    monkeypatch.setattr(choose._lib, "build_targets", lambda: text)
    for cc, want in expected.items():
        answer = choose_nvfp4_path(cc // 10, cc % 10)
        if want is None:
            assert not answer.ok and answer.reason, (cc, answer)
        else:
            assert answer.ok and (answer.path, answer.image) == want, (cc, answer)


def test_weight_only_layers_keep_vllms_kernels(vllm_config):
    with capability(SERVED):
        assert type(_select(use_a16=True)) is not OURS


def test_vllm_disabled_kernels_falls_through(vllm_config, monkeypatch):
    monkeypatch.setenv("VLLM_DISABLED_KERNELS", "Fp8kitNvFp4LinearKernel")
    with capability(SERVED):
        assert type(_select()) is not OURS
        ok, reason = linear.is_supported_and_can_implement_kernel(OURS, NvFp4LinearLayerConfig(), None)
    assert not ok and "disabled by environment variable" in reason


@dataclasses.dataclass
class _NewerConfig(NvFp4LinearLayerConfig):
    weight_shape: tuple = (512, 512)


def test_can_implement_answers_and_never_raises():
    assert OURS.can_implement(NvFp4LinearLayerConfig()) == (True, None)
    ok, reason = OURS.can_implement(object())
    assert not ok and "is not an NvFp4LinearLayerConfig" in reason
    ok, reason = OURS.can_implement(_NewerConfig())
    assert not ok and "carries weight_shape" in reason
    ok, reason = OURS.can_implement(None)
    assert not ok and reason
    assert OURS.is_supported("not a capability")[0] is False


def test_linear_backend_fp8kit_selects_it(vllm_config):
    config = VllmConfig(model_config=vllm_config.model_config, kernel_config=KernelConfig(linear_backend="fp8kit"))
    with set_current_vllm_config(config), capability(SERVED):
        assert type(_select()) is OURS
        resolved = linear._resolve_backend_kernels(linear._POSSIBLE_NVFP4_KERNELS[PlatformEnum.CUDA], "NVFP4",
                                                   quantization="nvfp4_w4a4")
        assert resolved == [OURS]
        # Weight-only: fp8kit has no class there; vLLM keeps its automatic choice.
        assert type(_select(use_a16=True)) is not OURS
    with set_current_vllm_config(config), capability(70), pytest.raises(ValueError, match="needs 7.5 or newer"):
        _select()


def _fill_nvfp4(layer):
    """Random packed weights, positive E4M3 block scales and f32 global scales, as a
    checkpoint load leaves them."""
    with torch.no_grad():
        for name, p in layer.named_parameters():
            if p.dtype == torch.uint8:
                p.copy_(torch.randint(0, 256, p.shape, dtype=torch.uint8))
            elif p.dtype == E4M3:
                p.copy_((torch.rand(p.shape) * 4 + 0.25).to(E4M3))
            elif p.dtype == torch.float32:
                p.copy_(torch.rand(p.shape) * 0.01 + 0.001)
            else:
                p.copy_(torch.randn(p.shape))


def _swizzled_index(rows, k):
    kb4 = -(-(k // 16) // 4) * 4
    r, kb = torch.arange(rows).view(-1, 1), torch.arange(k // 16).view(1, -1)
    return ((r // 128) * (kb4 // 4) + kb // 4) * 512 + (r % 32) * 16 + ((r % 128) // 32) * 4 + kb % 4


def _modelopt():
    return ModelOptNvFp4Config("NVFP4", is_checkpoint_nvfp4_serialized=True, exclude_modules=[], group_size=16)


def _compressed_tensors():
    from vllm.model_executor.layers.quantization.compressed_tensors.compressed_tensors import (
        CompressedTensorsConfig,
    )

    nvfp4 = {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": True,
             "dynamic": False}
    return CompressedTensorsConfig.from_config({
        "quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized", "ignore": [],
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": nvfp4,
                                      "input_activations": {**nvfp4, "dynamic": "local"}}}})


def _kernel_of(layer):
    method = layer.quant_method
    return getattr(method, "kernel", None) or layer.scheme.kernel


@pytest.mark.parametrize("checkpoint", ["modelopt", "compressed-tensors"])
@pytest.mark.parametrize("k, bias", [(512, False), (512, True), (528, False)])
def test_nvfp4_layer_processed_and_traced(vllm_config, layer_name, checkpoint, k, bias):
    make_config = {"modelopt": _modelopt, "compressed-tensors": _compressed_tensors}[checkpoint]
    with capability(SERVED), set_default_torch_dtype(torch.bfloat16):
        layer = MergedColumnParallelLinear(k, WIDTHS, bias=bias, quant_config=make_config(),
                                           params_dtype=torch.bfloat16, prefix=f"{layer_name}.gate_up_proj")
    assert type(_kernel_of(layer)) is OURS
    _fill_nvfp4(layer)
    n = sum(WIDTHS)
    loaded = getattr(layer, "weight_scale").detach().clone()
    loaded_weight = (getattr(layer, "weight", None) if checkpoint == "modelopt" else layer.weight_packed).clone()
    layer.quant_method.process_weights_after_loading(layer)

    kp = -(-k // 32) * 32
    assert layer.weight.shape == (n, kp // 2) and layer.weight.dtype == torch.uint8 and layer.weight.is_contiguous()
    assert torch.equal(layer.weight[:, :k // 2], loaded_weight) and not layer.weight[:, k // 2:].any()
    kb4 = -(-(kp // 16) // 4) * 4
    assert layer.weight_scale.shape == (-(-n // 128) * 128, kb4) and layer.weight_scale.dtype == E4M3
    swizzled = layer.weight_scale.view(torch.uint8).flatten()
    assert torch.equal(swizzled[_swizzled_index(n, k)], loaded.view(torch.uint8))
    assert int(swizzled.count_nonzero()) == int(loaded.view(torch.uint8).count_nonzero())  # zero padding
    for name in ("alpha", "input_global_scale_inv"):
        t = getattr(layer, name)
        assert t.shape == (1,) and t.dtype == torch.float32
    assert torch.allclose(layer.alpha, layer.input_global_scale * layer.weight_global_scale)

    mode = FakeTensorMode(shape_env=ShapeEnv())
    from conftest import to_fake_cuda
    to_fake_cuda(layer, mode)
    x = _symbolic_input(mode, 33, k)
    gm = make_fx(lambda x: layer(x)[0], tracing_mode="fake")(x)
    calls = _calls(gm)
    _assert_fp8kit_only(calls, ["fp8kit.nvfp4_quantize.default", "fp8kit.nvfp4_mm.default"])
    assert calls.count("fp8kit.nvfp4_mm.default") == 1 and "aten.add.Tensor" not in calls  # bias in the GEMM
    assert ("aten.cat.default" in calls) == (kp != k)
    out = _result(gm)
    assert out.shape[1] == n and isinstance(out.shape[0], torch.SymInt)
    assert out.dtype == torch.bfloat16 and out.device.type == "cuda" and out.stride() == (n, 1)
    out3 = _result(make_fx(lambda x: layer(x)[0], tracing_mode="fake")(_symbolic_input(mode, 3, 11, k)))
    assert out3.shape[1:] == (11, n) and out3.dtype == torch.bfloat16
