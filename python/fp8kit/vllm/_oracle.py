"""fp8kit's FP8 MoE experts in vLLM's choice: a patch of the FP8 MoE oracle.

vLLM's FP8 MoE backends are a closed enum (Fp8MoeBackend) that select_fp8_moe_backend
(fused_moe/oracle/fp8.py) walks in a fixed priority order; there is no registration
call. The patch wraps select_fp8_moe_backend: when the user left --moe-backend on auto
and fp8kit's experts class for the deployment's activation format accepts the
configuration (fp8kit.vllm.moe: is_supported_config, with fp8kit's own answer for the
GPU), it returns that class with the TRITON / BATCHED_TRITON backend, whose weight
layout (converted by nothing) is what fp8kit's grouped GEMM reads and whose quant
config is the plain FP8 one; otherwise it logs why and returns vLLM's own choice.

The wrapper depends on that oracle's internals, so it is installed only on the vLLM
versions in COVERED, the ones tests/vllm runs against; on any other version it logs
that it left vLLM's MoE choice alone.
"""

import logging
import sys

logger = logging.getLogger("vllm.plugins.fp8kit")

COVERED = ("0.33.0",)
ORACLE_MODULE = "vllm.model_executor.layers.fused_moe.oracle.fp8"
SELECT = "select_fp8_moe_backend"


def choose(config, weight_key, activation_key):
    """(backend, experts class, None) for fp8kit, or (None, None, the reason it does not serve this)."""
    import vllm.model_executor.layers.fused_moe.modular_kernel as mk
    from vllm.model_executor.layers.fused_moe.oracle.fp8 import Fp8MoeBackend

    from .moe import Fp8kitBatchedExperts, Fp8kitExperts

    if config.moe_backend != "auto":
        return None, None, f"--moe-backend {config.moe_backend} was asked for"
    if config.moe_parallel_config.use_batched_activation_format:
        fmt, cls, backend = mk.FusedMoEActivationFormat.BatchedExperts, Fp8kitBatchedExperts, \
            Fp8MoeBackend.BATCHED_TRITON
    else:
        fmt, cls, backend = mk.FusedMoEActivationFormat.Standard, Fp8kitExperts, Fp8MoeBackend.TRITON
    ok, reason = cls.is_supported_config(cls, config, weight_key, activation_key, fmt)
    return (backend, cls, None) if ok else (None, None, f"{cls.__name__}: {reason}")


def _wrap(select):
    def select_fp8_moe_backend(config, weight_key, activation_key, allow_vllm_cutlass=False):
        try:
            backend, cls, reason = choose(config, weight_key, activation_key)
        except Exception as e:  # vLLM's own choice stands
            backend, cls, reason = None, None, f"fp8kit could not check this layer: {type(e).__name__}: {e}"
        if backend is not None:
            logger.info("fp8kit: FP8 MoE experts %s (fp8kit grouped GEMM) ahead of vLLM's backends", cls.__name__)
            return backend, cls
        logger.info("fp8kit: FP8 MoE experts not used (%s); vLLM chooses", reason)
        return select(config, weight_key, activation_key, allow_vllm_cutlass)

    select_fp8_moe_backend.fp8kit_wraps = select
    return select_fp8_moe_backend


def _patch(oracle):
    original = getattr(oracle, SELECT)
    if hasattr(original, "fp8kit_wraps"):
        return
    wrapped = _wrap(original)
    setattr(oracle, SELECT, wrapped)
    # Modules that imported the function by name before the patch.
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("vllm.") and getattr(module, SELECT, None) is original:
            setattr(module, SELECT, wrapped)


def install():
    """Patch the oracle (now or when vLLM imports it) on a covered version; returns what the
    plugin's log line says about MoE."""
    import vllm

    from ._hooks import after_import

    version = getattr(vllm, "__version__", "unknown")
    if version not in COVERED:
        logger.info("fp8kit: vLLM %s is not a version its FP8 MoE oracle patch covers (%s); "
                    "vLLM's MoE backend choice is left alone", version, ", ".join(COVERED))
        return f"not installed (vLLM {version} not covered)"
    after_import(ORACLE_MODULE, _patch)
    return "via the oracle patch"
