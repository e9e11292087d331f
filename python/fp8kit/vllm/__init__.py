"""fp8kit inside vLLM: the `vllm.general_plugins` entry point (pyproject.toml:
`fp8kit = fp8kit.vllm:register`), which vLLM's load_general_plugins() calls in every
process it starts, as many times as it likes.

register() puts fp8kit's kernel classes at the head of vLLM's CUDA kernel list for
each kind in KINDS, makes `--linear-backend fp8kit` a valid choice that selects them,
installs fp8kit's FP8 MoE experts through a patch of vLLM's FP8 MoE oracle (for the
vLLM versions fp8kit.vllm._oracle covers; on any other it logs why it left vLLM's
choice alone), and logs one line saying it is active and for which GPU. vLLM's
selection then asks each class is_supported(capability) (fp8kit's own dispatch: does
this build carry an image that GPU loads?) and can_implement(layer); where fp8kit says
no, with its reason, vLLM falls through to its next kernel. VLLM_DISABLED_KERNELS
naming a class removes it, VLLM_PLUGINS without "fp8kit" skips the plugin
(docs/vllm.md).

Nothing here imports vLLM until register() runs, and the kernel lists are changed once
vLLM imports the module that holds them (fp8kit.vllm._hooks), so a process that
never selects a kernel pays nothing for the plugin. register() never raises: a failure
is logged and vLLM keeps its own kernels.
"""

import logging
from typing import NamedTuple

logger = logging.getLogger("vllm.plugins.fp8kit")

BACKEND_NAME = "fp8kit"
LINEAR_MODULE = "vllm.model_executor.kernels.linear"


class Kind(NamedTuple):
    """One of vLLM's linear kernel kinds that fp8kit serves."""

    name: str        # register_linear_kernel's kernel_type
    kernel_list: str  # the module-level dict in LINEAR_MODULE that holds that kind's lists
    kernel_class: str  # "module:class" of fp8kit's kernel


# One entry per kind; a further kind is one more entry whose class subclasses that kind's
# vLLM kernel base. nvfp4 is W4A4 only: vLLM picks weight-only (W4A16) kernels from a fixed
# tuple of its own, so those layers keep vLLM's kernels.
KINDS = (
    Kind("fp8", "_POSSIBLE_FP8_KERNELS", "fp8kit.vllm.linear:Fp8kitScaledMMLinearKernel"),
    Kind("fp8_block", "_POSSIBLE_FP8_BLOCK_KERNELS", "fp8kit.vllm.linear:Fp8kitBlockScaledMMLinearKernel"),
    Kind("nvfp4", "_POSSIBLE_NVFP4_KERNELS", "fp8kit.vllm.nvfp4:Fp8kitNvFp4LinearKernel"),
)

_registered = False


def kernel_class(kind):
    import importlib
    module, name = kind.kernel_class.split(":")
    return getattr(importlib.import_module(module), name)


def _head_of_lists(linear):
    """fp8kit's class first in each kind's CUDA list, exactly once (register_linear_kernel
    appends; a second call finds it there and only makes sure it leads)."""
    from vllm.platforms import PlatformEnum

    classes = []
    for kind in KINDS:
        cls = kernel_class(kind)
        kernels = getattr(linear, kind.kernel_list).setdefault(PlatformEnum.CUDA, [])
        if cls not in kernels:
            linear.register_linear_kernel(cls, PlatformEnum.CUDA, kind.name)
        kernels.remove(cls)
        kernels.insert(0, cls)
        classes.append(cls)
    linear._LINEAR_BACKEND_KERNEL_MAP.setdefault(BACKEND_NAME, set()).update(classes)


def _served_text():
    """Which GPU this process has and what fp8kit runs there, for the log line."""
    from .. import build_targets
    from . import _support

    capability, why = _support.current_capability()
    if capability is None:
        return f"{why}; this build's images: {build_targets()}"
    choice = _support.choice(capability)
    major, minor = divmod(capability, 10)
    nvfp4 = _support.served(capability, _support.NVFP4)
    nvfp4_text = (f"NVFP4 W4A4 {nvfp4.choice.path}, {nvfp4.choice.image}" if nvfp4.ok
                  else f"NVFP4 not served ({nvfp4.why})")
    if not choice.ok:
        return f"GPU capability {major}.{minor}: FP8 not served, vLLM's FP8 kernels run ({choice.reason}); {nvfp4_text}"
    return (f"GPU capability {major}.{minor} ({choice.family}): {choice.path}, {choice.image}, "
            f"{choice.tensor_cores} FP8 tensor cores; {nvfp4_text}")


def _register():
    from .. import __version__
    from . import _backend, _hooks, _oracle

    _backend.accept(BACKEND_NAME)
    _hooks.after_import(LINEAR_MODULE, _head_of_lists)
    moe = _oracle.install()
    logger.info("fp8kit %s active: linear kinds %s first on CUDA (--linear-backend %s), FP8 MoE experts %s; %s",
                __version__, ", ".join(k.name for k in KINDS), BACKEND_NAME, moe, _served_text())


def register():
    """The vllm.general_plugins entry point: idempotent, never raises."""
    global _registered
    if _registered:
        return
    _registered = True
    try:
        _register()
    except Exception:
        logger.warning("fp8kit: not registered with vLLM; vLLM's own kernels stay in place", exc_info=True)
