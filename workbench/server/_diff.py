"""Comparing two runs' logs (SPEC R43, RFC 0054): where they diverge, and the
``RunDiffResponse`` of ``GET /runs/{id}:diff``.

Events are compared without what differs from run to run by construction (``eventId``,
``runId``, ``timestamp``), as the canonical text the host serves (:func:`~._wire.dumps`).
"""

from __future__ import annotations

from typing import Any

from ._runs import Run
from ._wire import dumps

__all__ = ["diff_runs", "first_difference"]

_PER_RUN = ("eventId", "runId", "timestamp")


def comparable(run: Run, sequence: int) -> str:
    """An event's text without what differs per run (id, run id, timestamp)."""
    event = run.events[sequence]
    return dumps({k: v for k, v in event.items() if k not in _PER_RUN})


def first_difference(a: Run, b: Run, upto: int) -> int | None:
    """The first sequence below ``upto`` where the two logs differ (canonical comparison)."""
    for sequence in range(upto):
        if sequence >= len(a.events) or sequence >= len(b.events):
            return sequence
        if comparable(a, sequence) != comparable(b, sequence):
            return sequence
    return None


def diff_runs(a: Run, b: Run) -> dict[str, Any]:
    """``RunDiffResponse`` (RFC 0054): per-sequence differences, ignoring per-run fields."""
    a_events, b_events = a.events[:], b.events[:]
    diffs: list[dict[str, Any]] = []
    for sequence in range(max(len(a_events), len(b_events))):
        in_a, in_b = sequence < len(a_events), sequence < len(b_events)
        if in_a and in_b:
            if comparable(a, sequence) == comparable(b, sequence):
                continue
            diffs.append(
                {
                    "seq": sequence,
                    "op": "changed",
                    "aEvent": a_events[sequence],
                    "bEvent": b_events[sequence],
                }
            )
        elif in_a:
            diffs.append({"seq": sequence, "op": "removed", "aEvent": a_events[sequence]})
        else:
            diffs.append({"seq": sequence, "op": "added", "bEvent": b_events[sequence]})
    state: dict[str, Any] = {}
    if a.status != b.status:
        state["status"] = {"a": a.status, "b": b.status}
    sa, sb = a.summary() or {}, b.summary() or {}
    for key in ("aggregateScore", "passed", "passedCount", "taskCount", "fixtureMissCount"):
        if sa.get(key) != sb.get(key):
            state[key] = {"a": sa.get(key), "b": sb.get(key)}
    body: dict[str, Any] = {
        "a": a.run_id,
        "b": b.run_id,
        "divergedAtSeq": diffs[0]["seq"] if diffs else None,
        "eventDiffs": diffs,
        "stateDiff": state,
    }
    if not (a.terminal and b.terminal):
        body["truncated"] = True
    return body
