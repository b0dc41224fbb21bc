"""Deferring an optional dependency's import to its first use."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["deferred_import"]


def _real(name: str) -> types.ModuleType:
    module = sys.modules.get(name)
    if module is None or isinstance(module, _Deferred):
        sys.modules.pop(name, None)
        module = importlib.import_module(name)
    return module


class _Deferred(types.ModuleType):
    """Stands in for a module while another one imports it; any attribute not given loads it."""

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # the import system's questions (``__path__``, ...)
            raise AttributeError(attribute)
        return getattr(_real(self.__name__), attribute)


def _forward(module: str, attribute: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(_real(module), attribute)(*args, **kwargs)

    call.__name__ = attribute
    return call


@contextlib.contextmanager
def deferred_import(module: str, *functions: str) -> Iterator[None]:
    """While the block runs, ``from module import f`` (for each of ``functions``) gets a
    function that imports ``module`` on its first call; afterwards ``module`` imports as usual.

    For a library that imports an optional dependency eagerly but calls it rarely. Nothing is
    deferred when ``module`` is not installed (the import fails as it would) or already loaded.
    """
    if module in sys.modules or importlib.util.find_spec(module) is None:
        yield
        return
    stand_in = _Deferred(module)
    for name in functions:
        setattr(stand_in, name, _forward(module, name))
    sys.modules[module] = stand_in
    try:
        yield
    finally:
        if sys.modules.get(module) is stand_in:
            del sys.modules[module]
