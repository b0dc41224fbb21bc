"""Edits of a whole suite, as the notebook makes them: flip one entry, or fault it in place.

Where a variant (``variants.py``) is a suite holding only the faulted task, an edit keeps every
task and root member. Both are copy-on-write: the suite given is left as it was, and only the
path to the changed entry is new, so an edit costs the same on a 2,000-boundary suite as on a
small one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._suite.model import Suite, task_tool_responses
from .variants import Fault, inject

__all__ = ["apply_faults", "toggle_error"]


def apply_faults(
    suite: Suite | Mapping[str, Any],
    faults: Sequence[Fault],
    *,
    hard_repeats: int = 3,
    payload: Any = None,
) -> Suite:
    """The whole suite with ``faults`` injected in place (an edit, not a variant).

    Where :func:`inject` makes a variant (a suite holding only the faulted task(s) and an
    ``x-variant`` member), this keeps every task and root member and adds no ``x-variant``: the
    faulted tasks take their originals' places. The input suite is not changed.
    """
    base = Suite.coerce(suite)
    variant = inject(base, faults, hard_repeats=hard_repeats, payload=payload)
    changed = {str(t.get("taskId")): t for t in variant.tasks}
    data = dict(base.data)
    data["tasks"] = [changed.get(str(t.get("taskId")), t) for t in base.tasks]
    return Suite(data)


def toggle_error(suite: Suite | Mapping[str, Any], task_id: str, boundary: int) -> Suite:
    """The suite with one entry's ``isError`` flag flipped (the widget's toggle), as a new suite.

    Every task is kept. Turning a failure into a success removes the ``isError`` member (its
    default is ``false``, R5), so a suite with no failures left uses no member it did not need.
    Copy-on-write, like :func:`inject`: the input suite is not changed, and only the path to the
    entry (root, task list, task, fixtures, entry list, entry) is new; everything else is shared
    with the input, so a toggle costs the same on a 2,000-boundary suite as on a small one. Call
    :meth:`~workbench.Suite.copy` on the result before editing it in place.

    Raises:
        KeyError: the suite has no task ``task_id``.
        ValueError: ``boundary`` is out of range.
    """
    base = Suite.coerce(suite)
    task = base.task(task_id)
    entries = task_tool_responses(task)
    if not 0 <= boundary < len(entries):
        raise ValueError(
            f"task {task_id!r}: boundary {boundary} out of range (0..{len(entries) - 1})"
        )
    entry = entries[boundary]
    if entry.get("isError") is True:
        flipped = {k: v for k, v in entry.items() if k != "isError"}
    else:
        # Where promotion writes it (before ``response``): suites keep member order (R42), so
        # a failure toggled off and on again gives back the same bytes.
        flipped = {}
        for key, value in entry.items():
            if key == "response":
                flipped["isError"] = True
            if key != "isError":
                flipped[key] = value
        flipped.setdefault("isError", True)
    new_entries = list(entries)
    new_entries[boundary] = flipped
    new_task = {**task, "fixtures": {**task["fixtures"], "toolResponses": new_entries}}
    data = dict(base.data)
    data["tasks"] = [new_task if t is task else t for t in base.tasks]
    return Suite(data)
