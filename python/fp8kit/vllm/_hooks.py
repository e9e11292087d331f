"""after_import(name, fn): fn(module) once the module `name` has finished executing; at
once if it already has. The plugin's work on vLLM's kernel lists waits for the module
that holds them, so loading the plugin costs the processes that never select a kernel
(the API server, the argument parser) nothing: vllm.model_executor.kernels.linear alone
takes over ten seconds to import.

A meta-path finder sees the module's import first and wraps the loader the other
finders return, delegating everything to it; fn runs after the module's code.
"""

import importlib.abc
import logging
import sys
import threading

logger = logging.getLogger("vllm.plugins.fp8kit")
_lock = threading.Lock()
_pending = {}


def _run(name, module, fns):
    for fn in fns:
        try:
            fn(module)
        except Exception:  # the module's import goes on; vLLM keeps its own choice
            logger.warning("fp8kit: its hook on %s failed; vLLM's own kernels stay in place", name, exc_info=True)


class _Loader(importlib.abc.Loader):
    def __init__(self, loader, name):
        self._loader, self._name = loader, name

    def __getattr__(self, attr):
        return getattr(self._loader, attr)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        with _lock:
            fns = _pending.pop(self._name, [])
        _run(self._name, module, fns)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in _pending:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, name)
                return spec
        return None


_finder = _Finder()


def after_import(name, fn):
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    if module is not None and not getattr(spec, "_initializing", False):
        _run(name, module, [fn])
        return
    with _lock:
        _pending.setdefault(name, []).append(fn)
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)
