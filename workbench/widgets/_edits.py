"""Suite edits the widget offers, until ``workbench._variants`` (R32) lands.

:func:`toggle_error` and :func:`inject` use the library's functions when ``workbench._variants``
is importable, and these small stand-ins (same signatures, same contract) otherwise. Each edit
returns a new :class:`~workbench.Suite`; the one given is left as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._payloads import error_payload
from .._suite import Suite, task_tool_responses

__all__ = [
    "FAULT_KINDS",
    "Fault",
    "FaultKind",
    "inject",
    "inject_into",
    "library_variants",
    "make_fault",
    "toggle_error",
]

FaultKind = Literal["hard", "transient", "flip"]
FAULT_KINDS: tuple[FaultKind, ...] = ("flip", "transient", "hard")


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault on one boundary (stand-in for ``workbench._variants.Fault``)."""

    task_id: str
    """The task whose fixture entry fails."""
    boundary: int
    """The fixture entry's index in the task's ``toolResponses``."""
    kind: FaultKind
    """``hard``, ``transient`` or ``flip`` (R32)."""


def library_variants() -> Any | None:
    """``workbench._variants`` when it exists, else ``None``."""
    try:
        from .. import _variants  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return None
    return _variants


def _entries(suite: Suite, task_id: str) -> list[dict[str, Any]]:
    return task_tool_responses(suite.task(task_id))


def _entry(entries: list[dict[str, Any]], task_id: str, boundary: int) -> dict[str, Any]:
    if not 0 <= boundary < len(entries):
        raise IndexError(f"task {task_id!r} has no boundary {boundary} ({len(entries)} entries)")
    return entries[boundary]


def _toggle_error(suite: Suite, task_id: str, boundary: int) -> Suite:
    out = suite.copy()
    entry = _entry(_entries(out, task_id), task_id, boundary)
    if entry.get("isError") is True:
        del entry["isError"]
    else:
        entry["isError"] = True
    return out


def _inject(
    suite: Suite,
    faults: Sequence[Any],
    *,
    hard_repeats: int = 3,
    payload: dict[str, Any] | None = None,
) -> Suite:
    out = suite.copy()
    body = payload if payload is not None else error_payload("upstream_down")
    # Highest index first, so inserting copies does not move the boundaries still to do.
    for fault in sorted(faults, key=lambda f: (f.task_id, -f.boundary)):
        entries = _entries(out, fault.task_id)
        entry = _entry(entries, fault.task_id, fault.boundary)
        failing = {**copy.deepcopy(entry), "isError": True, "response": copy.deepcopy(body)}
        if fault.kind == "flip":
            entry["isError"] = True
        elif fault.kind == "transient":
            entries.insert(fault.boundary, failing)
        elif fault.kind == "hard":
            entries[fault.boundary] = failing
            for offset in range(1, hard_repeats + 1):
                entries.insert(fault.boundary + offset, copy.deepcopy(failing))
        else:
            raise ValueError(f"unknown fault kind {fault.kind!r}")
    return out


def _with_entry(suite: Suite, task_id: str, boundary: int, entry: dict[str, Any]) -> Suite:
    """``suite`` with one fixture entry replaced; the rest of the JSON is shared, not copied."""
    data = dict(suite.data)
    tasks = list(suite.tasks)
    t_index = next(i for i, task in enumerate(tasks) if task.get("taskId") == task_id)
    new_task = dict(tasks[t_index])
    new_fixtures = dict(new_task["fixtures"])
    new_entries = list(new_fixtures["toolResponses"])
    new_entries[boundary] = entry
    new_fixtures["toolResponses"] = new_entries
    new_task["fixtures"] = new_fixtures
    tasks[t_index] = new_task
    data["tasks"] = tasks
    return Suite(data)


def toggle_error(suite: Suite, task_id: str, boundary: int) -> Suite:
    """Flip ``isError`` on one fixture entry: the library's ``toggle_error`` (when it exists).

    The library's function deep-copies the whole suite (about 80 ms for 2,000 boundaries), so
    the widget hands it a one-entry suite holding just that entry and puts the entry it returns
    back in place, sharing the rest: the same suite, in well under a millisecond (the tests
    compare the two). The suite given is not changed.
    """
    lib = library_variants()
    if lib is None:
        return _toggle_error(suite, task_id, boundary)
    entries = task_tool_responses(suite.task(task_id))
    if not 0 <= boundary < len(entries):
        result: Suite = lib.toggle_error(suite, task_id, boundary)  # its error, as it words it
        return result
    view = Suite(
        {"tasks": [{"taskId": task_id, "fixtures": {"toolResponses": [entries[boundary]]}}]}
    )
    flipped = task_tool_responses(lib.toggle_error(view, task_id, 0).task(task_id))[0]
    return _with_entry(suite, task_id, boundary, flipped)


def make_fault(task_id: str, boundary: int, kind: FaultKind) -> Any:
    """A fault record (the library's ``Fault`` when it exists)."""
    lib = library_variants()
    if lib is not None:
        return lib.Fault(task_id, boundary, kind)
    return Fault(task_id, boundary, kind)


def inject(
    suite: Suite,
    faults: Sequence[Any],
    *,
    hard_repeats: int = 3,
    payload: dict[str, Any] | None = None,
) -> Suite:
    """Insert faults (R32: hard, transient, flip) (the library's when it exists).

    The library's ``inject`` makes a *variant*: a suite holding only the faulted task(s) and an
    ``x-variant`` member. The widget edits the whole suite, so :func:`inject_into` puts the
    faulted tasks back in place of the originals.
    """
    lib = library_variants()
    if lib is not None:
        result: Suite = lib.inject(suite, faults, hard_repeats=hard_repeats, payload=payload)
        return result
    return _inject(suite, faults, hard_repeats=hard_repeats, payload=payload)


def inject_into(
    suite: Suite,
    faults: Sequence[Any],
    *,
    hard_repeats: int = 3,
    payload: dict[str, Any] | None = None,
) -> Suite:
    """``suite`` with the faulted task(s) of :func:`inject` in place of its own; every other
    task and root member kept, no ``x-variant`` member added."""
    variant = inject(suite, faults, hard_repeats=hard_repeats, payload=payload)
    changed = {str(t.get("taskId")): t for t in variant.tasks}
    data = dict(suite.data)
    data["tasks"] = [changed.get(str(t.get("taskId")), t) for t in suite.tasks]
    return Suite(data)
