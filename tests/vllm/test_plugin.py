"""vLLM finds and loads the plugin, and its own kernel selection then picks fp8kit first
where fp8kit's dispatch has an image for the GPU, and falls through, with the reason
logged, where it has none or VLLM_DISABLED_KERNELS names fp8kit's class."""

import logging
from importlib.metadata import entry_points

import pytest

import fp8kit
import torch
import vllm.model_executor.kernels.linear as linear
from conftest import capability, served_capability
from vllm.config import KernelConfig, VllmConfig, set_current_vllm_config
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.model_executor.kernels.linear.scaled_mm.ScaledMMLinearKernel import FP8ScaledMMLinearLayerConfig
from vllm.model_executor.layers.quantization.utils.quant_utils import (
    GroupShape,
    create_fp8_quant_key,
    kFp8Dynamic128Sym,
    kFp8DynamicTensorSym,
    kFp8DynamicTokenSym,
    kFp8Static128BlockSym,
    kFp8StaticChannelSym,
    kFp8StaticTensorSym,
    kFp8StaticTokenSym,
)
from vllm.platforms import PlatformEnum
from vllm.utils.argparse_utils import FlexibleArgumentParser

import fp8kit.vllm as plugin
from fp8kit import _lib
from fp8kit._choose import choose_path
from fp8kit.vllm import _support
from fp8kit.vllm._support import MODES
from fp8kit.vllm.linear import Fp8kitBlockScaledMMLinearKernel, Fp8kitScaledMMLinearKernel
from fp8kit.vllm.nvfp4 import Fp8kitNvFp4LinearKernel

# The capabilities the issue names (GB10, RTX 50xx, B300, H100, L40, A100) and one
# below fp8kit's minimum.
CAPABILITIES = (121, 120, 103, 90, 89, 80, 70)
LOGGER = "vllm.plugins.fp8kit"
# (activation key, weight key) for each kind and scale scheme vLLM's FP8 methods ask for.
FP8_SCHEMES = {
    "static per tensor": (kFp8StaticTensorSym, kFp8StaticTensorSym),
    "dynamic per tensor": (kFp8DynamicTensorSym, kFp8StaticTensorSym),
    "per token, per tensor weights": (kFp8DynamicTokenSym, kFp8StaticTensorSym),
    "per token, per channel weights": (kFp8DynamicTokenSym, kFp8StaticChannelSym),
    "per token, per row weights (fbgemm, modelopt)": (kFp8DynamicTokenSym, kFp8StaticTokenSym),
}
BLOCK = (kFp8Dynamic128Sym, kFp8Static128BlockSym)


def _lists():
    return {kind.name: getattr(linear, kind.kernel_list)[PlatformEnum.CUDA] for kind in plugin.KINDS}


def _select(act, weight, shape=(512, 512)):
    return linear.init_fp8_linear_kernel(act, weight, torch.bfloat16, torch.bfloat16, shape, module_name="test")


def _ours(kind_name):
    return {"fp8": Fp8kitScaledMMLinearKernel, "fp8_block": Fp8kitBlockScaledMMLinearKernel,
            "nvfp4": Fp8kitNvFp4LinearKernel}[kind_name]


def test_vllm_loads_the_declared_entry_point_and_fp8kit_heads_each_list():
    declared = [ep for ep in entry_points(group="vllm.general_plugins") if ep.name == "fp8kit"]
    assert [ep.value for ep in declared] == ["fp8kit.vllm:register"]
    assert plugin._registered  # load_general_plugins() in conftest ran it
    for name, kernels in _lists().items():
        assert kernels[0] is _ours(name)
    assert linear._LINEAR_BACKEND_KERNEL_MAP["fp8kit"] == {Fp8kitScaledMMLinearKernel, Fp8kitBlockScaledMMLinearKernel,
                                                           Fp8kitNvFp4LinearKernel}
    assert set(_lists()) == {"fp8", "fp8_block", "nvfp4"}


def test_registering_twice_leaves_one_entry(monkeypatch):
    before = {name: list(kernels) for name, kernels in _lists().items()}
    monkeypatch.setattr(plugin, "_registered", False)
    plugin.register()
    plugin._head_of_lists(linear)
    for name, kernels in _lists().items():
        assert kernels == before[name]
        assert kernels.count(_ours(name)) == 1 and kernels[0] is _ours(name)


def test_register_logs_one_line_naming_the_gpu(monkeypatch, caplog):
    monkeypatch.setattr(plugin, "_registered", False)
    cc = served_capability()
    with caplog.at_level(logging.INFO, logger=LOGGER), capability(cc):
        plugin.register()
        plugin.register()
    active = [r.getMessage() for r in caplog.records if r.name == LOGGER and " active:" in r.getMessage()]
    assert len(active) == 1, active
    assert f"fp8kit {fp8kit.__version__} active: linear kinds fp8, fp8_block, nvfp4 first" in active[0]
    answer = choose_path(cc // 10, cc % 10)
    assert f"GPU capability {cc // 10}.{cc % 10} ({answer.family}): {answer.path}, {answer.image}" in active[0]
    nvfp4 = _support.served(cc, "nvfp4")
    assert (f"NVFP4 W4A4 {nvfp4.choice.path}, {nvfp4.choice.image}" if nvfp4.ok else "NVFP4 not served") in active[0]


@pytest.mark.parametrize("cc", CAPABILITIES)
@pytest.mark.parametrize("scheme", list(FP8_SCHEMES) + ["1x128 x 128x128 blocks"])
def test_selection_follows_fp8kits_dispatch(vllm_config, cc, scheme, caplog):
    act, weight = FP8_SCHEMES.get(scheme, BLOCK)
    kind = "fp8" if scheme in FP8_SCHEMES else "fp8_block"
    _support._answer.cache_clear()  # its "not selected" line is logged once per answer
    answer = _support.served(cc, kind)
    _support._answer.cache_clear()
    ours = _ours(kind)
    with capability(cc), caplog.at_level(logging.INFO, logger=LOGGER):
        try:
            chosen = type(_select(act, weight))
        except ValueError as e:  # no kernel of vLLM's takes it either: fp8kit's reason is in vLLM's
            chosen = None
            assert answer.why in str(e)
        ok, reason = linear.is_supported_and_can_implement_kernel(ours, _config(act, weight), None)
    if answer.ok:
        assert chosen is ours and ok
    else:
        assert chosen is not ours and not ok
        assert answer.why in reason
        assert any(answer.why in r.getMessage() for r in caplog.records if r.name == LOGGER)


def _config(act, weight, shape=(512, 512), input_dtype=torch.bfloat16, out_dtype=torch.bfloat16):
    return FP8ScaledMMLinearLayerConfig(weight_quant_key=weight, activation_quant_key=act, weight_shape=shape,
                                        input_dtype=input_dtype, out_dtype=out_dtype)


def test_without_fp8_tensor_cores_vllms_kernels_are_kept(monkeypatch):
    # An Ampere / Turing GPU: fp8kit would run its f16 fallback; the plugin steps aside
    # unless asked, and says so.
    fallback = [cc for cc in (80, 86, 87, 75) if choose_path(cc // 10, cc % 10).tensor_cores == "fallback"]
    if not fallback:
        pytest.skip("this build has no fallback image for 7.5 - 8.7")
    cc = fallback[0]
    _support._answer.cache_clear()
    ok, reason = _support.is_supported(cc, "fp8")
    assert not ok and "no FP8 tensor cores" in reason and _support.FALLBACK_VARIABLE in reason
    monkeypatch.setenv(_support.FALLBACK_VARIABLE, "1")
    _support._answer.cache_clear()
    assert _support.is_supported(cc, "fp8") == (True, None)
    _support._answer.cache_clear()


def test_the_selection_always_has_both_outcomes():
    """Whatever this build carries: 7.0 is below fp8kit's minimum, so it falls through."""
    assert not choose_path(7, 0).ok and "needs 7.5 or newer" in choose_path(7, 0).reason


@pytest.mark.parametrize("disabled, kind", [("Fp8kitScaledMMLinearKernel", "fp8"),
                                            ("Fp8kitBlockScaledMMLinearKernel", "fp8_block")])
def test_vllm_disabled_kernels_falls_through(vllm_config, monkeypatch, disabled, kind):
    monkeypatch.setenv("VLLM_DISABLED_KERNELS", disabled)
    act, weight = (kFp8DynamicTokenSym, kFp8StaticTensorSym) if kind == "fp8" else BLOCK
    with capability(served_capability()):
        assert type(_select(act, weight)) is not _ours(kind)
        ok, reason = linear.is_supported_and_can_implement_kernel(_ours(kind), _config(act, weight), None)
    assert not ok and "disabled by environment variable" in reason


@pytest.mark.parametrize("act, weight, shape, why", [
    (create_fp8_quant_key(static=True, group_shape=GroupShape.PER_TOKEN), kFp8StaticTensorSym, (512, 512),
     "static per-token"),
    (kFp8DynamicTokenSym, kFp8StaticTensorSym, (512, 520), "K = 520 is not a multiple of 16"),
    (kFp8Dynamic128Sym, kFp8Static128BlockSym, (512, 512), "1x128 groups are fp8kit's fp8_block"),
])
def test_fp8_can_implement_refuses_with_a_reason(act, weight, shape, why):
    ok, reason = Fp8kitScaledMMLinearKernel.can_implement(_config(act, weight, shape))
    assert not ok and why in reason


@pytest.mark.parametrize("act, weight, why", [
    (create_fp8_quant_key(static=False, group_shape=GroupShape(1, 64)),
     create_fp8_quant_key(static=True, group_shape=GroupShape(64, 64)), "1x128 activation groups"),
    (kFp8StaticTensorSym, kFp8Static128BlockSym, "static activation scales"),
])
def test_block_can_implement_refuses_with_a_reason(act, weight, why):
    ok, reason = Fp8kitBlockScaledMMLinearKernel.can_implement(_config(act, weight))
    assert not ok and why in reason


def test_can_implement_never_raises():
    for cls in (Fp8kitScaledMMLinearKernel, Fp8kitBlockScaledMMLinearKernel):
        ok, reason = cls.can_implement(object())
        assert not ok and "could not check this layer" in reason
    assert Fp8kitScaledMMLinearKernel.is_supported("not a capability")[0] is False


def test_a_library_that_cannot_load_is_a_no_with_its_reason(monkeypatch):
    import fp8kit._choose as choose

    monkeypatch.setattr(_lib, "_lib", None)
    monkeypatch.setenv("FP8KIT_LIBRARY", "/nonexistent/libfp8kit.so")
    monkeypatch.setattr(_lib, "library_path", lambda: "/nonexistent/libfp8kit.so")
    answer = choose.choose_path(12, 1)
    assert not answer.ok and "cannot load libfp8kit.so" in answer.reason


def test_linear_backend_fp8kit_is_accepted_by_the_parser(vllm_config):
    parser = AsyncEngineArgs.add_cli_args(FlexibleArgumentParser())
    args = parser.parse_args(["--model", vllm_config.model_config.model, "--linear-backend", "fp8kit"])
    assert args.linear_backend == "fp8kit"
    with pytest.raises(SystemExit):
        parser.parse_args(["--model", vllm_config.model_config.model, "--linear-backend", "not-a-backend"])
    kernel_config = KernelConfig(linear_backend=args.linear_backend)
    config = VllmConfig(model_config=vllm_config.model_config, kernel_config=kernel_config)
    with set_current_vllm_config(config), capability(served_capability()):
        assert type(_select(kFp8DynamicTokenSym, kFp8StaticTensorSym)) is Fp8kitScaledMMLinearKernel
        assert type(_select(*BLOCK)) is Fp8kitBlockScaledMMLinearKernel
        resolved = linear._resolve_backend_kernels(linear._POSSIBLE_FP8_KERNELS[PlatformEnum.CUDA], "scaled-mm",
                                                   quantization="fp8_w8a8")
    assert resolved == [Fp8kitScaledMMLinearKernel]
    # Asked for by name where fp8kit cannot run: vLLM stops with fp8kit's reason.
    with set_current_vllm_config(config), capability(70), pytest.raises(ValueError, match="needs 7.5 or newer"):
        _select(kFp8DynamicTokenSym, kFp8StaticTensorSym)


def test_the_moe_oracle_patch_is_left_out_on_other_versions(monkeypatch, caplog):
    import vllm

    from fp8kit.vllm import _oracle

    monkeypatch.setattr(vllm, "__version__", "0.34.0")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert _oracle.install() == "not installed (vLLM 0.34.0 not covered)"
    assert any("vLLM 0.34.0 is not a version its FP8 MoE oracle patch covers (0.33.0); vLLM's MoE backend "
               "choice is left alone" in r.getMessage() for r in caplog.records)


def test_the_moe_oracle_patch_is_installed_once_everywhere():
    import vllm.model_executor.layers.fused_moe.oracle.fp8 as oracle
    import vllm.model_executor.layers.quantization.fp8 as fp8_method

    from fp8kit.vllm import _oracle

    wrapped = oracle.select_fp8_moe_backend
    assert hasattr(wrapped, "fp8kit_wraps")
    _oracle._patch(oracle)
    assert oracle.select_fp8_moe_backend is wrapped and fp8_method.select_fp8_moe_backend is wrapped


DEFERRED = """
import sys, time
import fp8kit.vllm as plugin
start = time.monotonic()
plugin.register()
took = time.monotonic() - start
assert "vllm.model_executor.kernels.linear" not in sys.modules, "register() imported the kernel lists"
import vllm.model_executor.kernels.linear as linear
from vllm.platforms import PlatformEnum
heads = [getattr(linear, k.kernel_list)[PlatformEnum.CUDA][0].__name__ for k in plugin.KINDS]
assert heads == ["Fp8kitScaledMMLinearKernel", "Fp8kitBlockScaledMMLinearKernel", "Fp8kitNvFp4LinearKernel"], heads
print(f"register() {took:.2f} s")
"""


def test_register_leaves_the_kernel_lists_until_vllm_imports_them():
    """A process that never selects a kernel (the API server, the argument parser) does not
    import vLLM's kernel modules because of the plugin; they are changed when vLLM imports them."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "VLLM_PLUGINS"}
    done = subprocess.run([sys.executable, "-c", DEFERRED], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "register() " in done.stdout


@pytest.mark.parametrize("plugins, loaded", [("", False), ("fp8kit", True), ("another", False)])
def test_vllm_plugins_switches_it_off(monkeypatch, plugins, loaded):
    """docs/vllm.md's off switch: vLLM's loader loads only the plugins VLLM_PLUGINS names."""
    from vllm.plugins import DEFAULT_PLUGINS_GROUP, load_plugins_by_group

    monkeypatch.setenv("VLLM_PLUGINS", plugins)
    found = load_plugins_by_group(DEFAULT_PLUGINS_GROUP)
    assert ("fp8kit" in found) is loaded
    if loaded:
        assert found["fp8kit"] is plugin.register
