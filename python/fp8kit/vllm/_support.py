"""What fp8kit can serve inside vLLM, as (ok, reason) answers for vLLM's kernel selection.

Capabilities are vLLM's integers (major * 10 + minor: 121 for a GB10). Whether a GPU
is served is fp8kit's own dispatch's answer (fp8kit_choose_path: does this build carry
an image that GPU loads?), so a GB10 (12.1) is served by a 12.0-family image and a
build without an image for a GPU says no with fp8kit's reason, and vLLM moves on to
its next kernel. Nothing here raises: a failure to answer is a "no" with its reason.
"""

import functools
import logging
import os
from typing import NamedTuple

from .. import _lib
from .._choose import PathChoice, choose_nvfp4_path, choose_path

# The scale modes each FP8 question is asked with: the widest the plugin's classes issue.
MODES = {
    "fp8": (_lib.SCALE_ROW, _lib.SCALE_COL),
    "fp8_block": (_lib.SCALE_BLOCK, _lib.SCALE_BLOCK),
}
# NVFP4 has its own path set (W4A4: sm120_mma on 12.x, sm75_hmma from 7.5), asked of
# fp8kit._choose.choose_nvfp4_path.
NVFP4 = "nvfp4"
# fp8kit's GEMMs need K (and an expert's inner dimension) a multiple of this.
K_MULTIPLE = 16
WIDE_DTYPE_NAMES = ("bfloat16", "float16", "float32")

logger = logging.getLogger("vllm.plugins.fp8kit")


def current_capability():
    """vLLM's capability integer of this process's GPU, or None (no CUDA GPU), and why."""
    from vllm.platforms import current_platform
    if not current_platform.is_cuda():
        return None, f"fp8kit serves CUDA GPUs; vLLM's platform here is {type(current_platform).__name__}"
    cap = current_platform.get_device_capability()
    if cap is None:
        return None, "no CUDA GPU is visible to this process"
    return cap[0] * 10 + cap[1], ""


# Where fp8kit has no tensor cores for the format (FP8 on Turing and Ampere; NVFP4
# everywhere but SM12x: its decode-to-f16 HMMA fallback would run), vLLM's own kernels
# for those GPUs (Marlin's weight-only W8A16 / W4A16) are kept unless this is set to 1.
# For NVFP4 that fallback is correct but slow: 0.02-0.22 of the copy roof in decode on
# an H200 (docs/nvfp4.md).
FALLBACK_VARIABLE = "FP8KIT_VLLM_FALLBACK"


class Served(NamedTuple):
    ok: bool
    reason: str  # why not, as vLLM's selection loop reports it ("" when ok)
    why: str  # the cause alone: fp8kit's message, or the fallback rule ("" when ok)
    choice: PathChoice


@functools.lru_cache(maxsize=None)
def _answer(capability, kind):
    major, minor = divmod(int(capability), 10)
    choice = choose_nvfp4_path(major, minor) if kind == NVFP4 else choose_path(major, minor, *MODES[kind])
    if not choice.ok:
        why = choice.reason
        reason = f"has no fp8kit image for compute capability {major}.{minor} in this build: {why}"
    elif choice.tensor_cores == "fallback" and os.environ.get(FALLBACK_VARIABLE) != "1":
        fmt = "NVFP4" if kind == NVFP4 else "FP8"
        why = (f"fp8kit has no {fmt} tensor cores on compute capability {major}.{minor} (its f16 fallback would "
               f"run), so vLLM's own kernels are kept; {FALLBACK_VARIABLE}=1 selects fp8kit there")
        reason = "is not used: " + why
    else:
        return Served(True, "", "", choice)
    # Once per capability and kind (the answers are cached): vLLM moves on to its next kernel.
    logger.info("fp8kit: %s not selected for capability %d.%d (%s); vLLM's next kernel runs", kind, major, minor,
                why)
    return Served(False, reason, why, choice)


def served(capability, kind):
    """The plugin's answer for a capability integer and kind: Served(ok, reason, why, choice)."""
    return _answer(int(capability), kind)


def is_supported(capability, kind):
    """(ok, reason) for vLLM's is_supported(compute_capability): None asks about this
    process's GPU."""
    try:
        if capability is None:
            capability, why = current_capability()
            if capability is None:
                return False, why
        answer = _answer(int(capability), kind)
        return answer.ok, answer.reason or None
    except Exception as e:  # an answer, never an exception, for vLLM's selection loop
        return False, f"fp8kit could not answer for capability {capability}: {e}"


def choice(capability, kind="fp8"):
    """fp8kit's PathChoice for a capability integer (for the plugin's log line)."""
    return _answer(int(capability), kind).choice


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def never_raises(check):
    """A can_implement-style check that answers (False, reason) where it would raise."""
    @functools.wraps(check)
    def wrapped(*args, **kwargs):
        try:
            return check(*args, **kwargs)
        except Exception as e:
            return False, f"fp8kit could not check this layer: {type(e).__name__}: {e}"
    return wrapped
