"""Deferring imports to first use: an optional dependency's, and a subpackage's exports."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["deferred_import", "lazy_exports"]


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


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's module ``__getattr__`` and ``__dir__`` for its ``exports`` (name -> the
    submodule defining it, relative to ``package``): a name is imported on first use and then
    kept in ``namespace`` (the package's ``globals()``). ``workbench.bridge`` and
    ``workbench.server`` use it; the top-level package has its own, which also claims names."""

    def getattr_(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *exports})

    return getattr_, dir_
