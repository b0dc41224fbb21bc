"""The public surface: ``workbench.__all__`` is sorted and is exactly what the package exports.

httpx style: implementation modules are private and ``__init__`` re-exports; this test keeps the
API from growing (or shrinking) by accident.
"""

from __future__ import annotations

import types

import workbench


def public_names() -> set[str]:
    """Names the package exposes that are not private and not submodules: its module-level
    names plus those it serves lazily through its module ``__getattr__`` (``_LAZY``)."""
    names = {
        name
        for name, value in vars(workbench).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    lazy: dict[str, str] = getattr(workbench, "_LAZY", {})
    return names | set(lazy)


def test_all_is_sorted() -> None:
    assert workbench.__all__ == sorted(workbench.__all__)


def test_all_has_no_duplicates() -> None:
    assert len(set(workbench.__all__)) == len(workbench.__all__)


def test_every_name_in_all_is_a_public_name() -> None:
    assert set(workbench.__all__) <= public_names()


def test_all_equals_the_public_names() -> None:
    """Every public name is in ``__all__`` and every name in ``__all__`` is public."""
    assert set(workbench.__all__) == public_names()


def test_every_name_in_all_resolves() -> None:
    for name in workbench.__all__:
        assert getattr(workbench, name) is not None, name


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from workbench import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(workbench.__all__)
