"""`--linear-backend fp8kit`: vLLM takes the backend names from a closed Literal
(vllm.config.kernel.LinearBackend), read three ways: the argument parser's choices
(engine.arg_utils derives and caches them from KernelConfig's field types), the
pydantic validation of KernelConfig, and _LINEAR_BACKEND_KERNEL_MAP, which says which
kernel classes a name selects. This module adds a name to the first two, once; the
plugin adds its classes to the map when it heads vLLM's kernel lists.
"""

import dataclasses
import sys
import typing


def _with(literal, name):
    return typing.Literal[(*typing.get_args(literal), name)]


def accept(name):
    """Make `name` a value the parser and KernelConfig take for --linear-backend (which
    kernels it selects is the map's entry, fp8kit.vllm._head_of_lists)."""
    import pydantic
    from vllm.config import kernel as kernel_config

    if name in typing.get_args(kernel_config.LinearBackend):
        return
    backend = _with(kernel_config.LinearBackend, name)
    kernel_config.LinearBackend = backend
    types = {"linear_backend": backend, "linear_backend_per_quant": dict[str, backend] | None}
    cls = kernel_config.KernelConfig
    for field in dataclasses.fields(cls):
        if field.name in types:
            field.type = types[field.name]
    cls.__annotations__.update(types)
    pydantic.dataclasses.rebuild_dataclass(cls, force=True)
    # The parser's kwargs are computed once per config class and cached.
    arg_utils = sys.modules.get("vllm.engine.arg_utils")
    if arg_utils is not None:
        arg_utils._compute_kwargs.cache_clear()
