"""Suite edits the widget offers that the library does not make as such.

The isError toggle is the library's :func:`workbench.toggle_error` (copy-on-write), called
directly. Injection is :func:`workbench.inject`, which makes a *variant* (a suite holding only the
faulted task and an ``x-variant`` member); the widget edits the whole suite, so
:func:`inject_into` puts the faulted task back in place of the original. Each edit returns a new
:class:`~workbench.Suite`; the one given is left as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._suite.model import Suite
from .._sweep.variants import Fault, FaultKind, inject

__all__ = ["FAULT_KINDS", "inject_into"]

FAULT_KINDS: tuple[FaultKind, ...] = ("flip", "transient", "hard")
"""The fault kinds in the order the widget offers them (the mildest first)."""


def inject_into(
    suite: Suite,
    faults: Sequence[Fault],
    *,
    hard_repeats: int = 3,
    payload: Mapping[str, Any] | None = None,
) -> Suite:
    """``suite`` with the faulted task(s) of :func:`workbench.inject` in place of its own; every
    other task and root member kept, no ``x-variant`` member added."""
    variant = inject(suite, faults, hard_repeats=hard_repeats, payload=payload)
    changed = {str(t.get("taskId")): t for t in variant.tasks}
    data = dict(suite.data)
    data["tasks"] = [changed.get(str(t.get("taskId")), t) for t in suite.tasks]
    return Suite(data)
