"""A many-task sweep at a glance: which tasks its faults hurt most, and one chart over them.

A report draws three charts per task (branch tree, recovery matrix, divergence strip), and each
costs about as much as the replay of the whole sweep, so a report of hundreds of tasks cannot
draw them all. :func:`rank_tasks` orders the tasks by how much their faults hurt (most
triggered variant-trials not recovered first, then the lowest recovery rate, then suite order);
the report draws per-task charts for the first few of them, and :func:`task_matrix` draws one
chart over the most affected tasks by fault kind. Every task's figures stay in the report's
tables and in ``recovery.csv``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import altair as alt
import pandas as pd

from .._grade.recovery import wilson_interval
from .common import _data, _int, _is_nan, _records, _require, _truncate, safe_text
from .matrix import rate_layers, rate_text

MAX_TASK_CHARTS = 5
"""Tasks a multi-task report draws their own three charts for (the most affected first)."""
MAX_MATRIX_TASKS = 40
"""Rows (tasks) the task matrix draws at most (the most affected first)."""

ALL_KINDS = "all kinds"
"""The task matrix's first column: every fault kind together."""

_TASK_MATRIX_COLUMNS = ("task", "kind", "rate", "rateText", "variantTrials", "triggered",
                        "untriggered", "recovered", "notRecovered", "interval")  # fmt: skip


@dataclass(frozen=True, slots=True)
class TaskRank:
    """One task's place in a sweep's ranking by harm (:func:`rank_tasks`)."""

    task_id: str
    """The task."""
    position: int
    """Its 1-based position in the suite (the report's ``task-<position>`` anchor)."""
    triggered: int
    """Its triggered variant-trials (R37)."""
    recovered: int
    """Of those, how many recovered (R38)."""

    @property
    def not_recovered(self) -> int:
        """Triggered variant-trials that did not recover."""
        return self.triggered - self.recovered

    @property
    def rate(self) -> float:
        """Recovered / triggered (NaN when nothing was triggered)."""
        return self.recovered / self.triggered if self.triggered else float("nan")


def rank_tasks(recovery: pd.DataFrame | None, task_ids: Sequence[str]) -> list[TaskRank]:
    """The tasks, most affected first: most triggered variant-trials not recovered, then the
    lowest recovery rate, then suite order. Tasks with nothing triggered come last, in suite
    order. ``recovery`` is :meth:`SweepResult.recovery`'s frame (its ``task`` rows are read);
    without it every task ranks by suite order."""
    counts: dict[str, tuple[int, int]] = {}
    if recovery is not None and len(recovery):
        _require(recovery, ("level", "taskId", "triggered", "recovered"), "rank_tasks")
        for rec in _records(recovery[recovery["level"] == "task"]):
            counts[str(rec["taskId"])] = (_int(rec["triggered"]), _int(rec["recovered"]))
    ranks = [
        TaskRank(task, position, *counts.get(task, (0, 0)))
        for position, task in enumerate(task_ids, start=1)
    ]

    def key(rank: TaskRank) -> tuple[int, int, float, int]:
        if not rank.triggered:
            return (1, 0, 0.0, rank.position)
        return (0, -rank.not_recovered, rank.rate, rank.position)

    return sorted(ranks, key=key)


def task_matrix(
    recovery: pd.DataFrame,
    ranks: Sequence[TaskRank],
    *,
    max_tasks: int = MAX_MATRIX_TASKS,
    title: str | None = None,
) -> alt.LayerChart:
    """Tasks (rows, most affected first) x fault kinds (columns, ``all kinds`` first), coloured
    by recovery rate over triggered variant-trials (R38), the rate written in each cell.

    ``recovery`` is :meth:`SweepResult.recovery`'s frame; ``ranks`` is :func:`rank_tasks`'s
    order. At most ``max_tasks`` rows are drawn, and the subtitle says how many of how many.
    """
    _require(
        recovery,
        ("level", "taskId", "kind", "variantTrials", "triggered", "untriggered", "recovered"),
        "task_matrix",
    )
    shown = list(ranks[: max(1, max_tasks)])
    labels = _row_labels(shown)
    wanted = {rank.task_id for rank in shown}
    kinds: list[str] = [ALL_KINDS]
    rows: list[dict[str, Any]] = []
    for rec in _records(recovery[recovery["level"].isin(("task", "task-kind"))]):
        task = str(rec["taskId"])
        if task not in wanted:
            continue
        kind = ALL_KINDS if rec["level"] == "task" else str(rec["kind"])
        if kind not in kinds:
            kinds.append(kind)
        triggered, recovered = _int(rec["triggered"]), _int(rec["recovered"])
        rate = recovered / triggered if triggered else float("nan")
        low, high = wilson_interval(recovered, triggered)
        rows.append(
            {
                "task": labels[task],
                "kind": safe_text(kind),
                "rate": None if math.isnan(rate) else round(rate, 6),
                "rateText": rate_text(rate),
                "variantTrials": _int(rec["variantTrials"]),
                "triggered": triggered,
                "untriggered": _int(rec["untriggered"]),
                "recovered": recovered,
                "notRecovered": triggered - recovered,
                "interval": "" if _is_nan(low) else f"{low:.0%}\u2013{high:.0%}",
            }
        )
    order = [labels[rank.task_id] for rank in shown]
    columns = [safe_text(k) for k in kinds]
    base = alt.Chart(_data(rows, _TASK_MATRIX_COLUMNS)).encode(
        x=alt.X(
            "kind:N", sort=columns, title="fault kind", axis=alt.Axis(orient="top", labelAngle=0)
        ),
        y=alt.Y("task:N", sort=order, title=None, axis=alt.Axis(labelLimit=260)),
    )
    tooltip = [
        alt.Tooltip("task:N", title="task"),
        alt.Tooltip("kind:N", title="kind"),
        alt.Tooltip("rateText:N", title="recovery rate"),
        alt.Tooltip("recovered:Q", title="recovered"),
        alt.Tooltip("triggered:Q", title="triggered"),
        alt.Tooltip("untriggered:Q", title="untriggered (not in the rate)"),
        alt.Tooltip("interval:N", title="Wilson 95% interval"),
        alt.Tooltip("variantTrials:Q", title="variant-trials"),
    ]
    cells, text = rate_layers(base, tooltip)
    subtitle = [
        "recovered / triggered variant-trials (R38); \u2013: no fault was triggered",
        f"{len(shown)} of {len(ranks)} tasks, most affected first (most triggered "
        "variant-trials not recovered)"
        + ("" if len(shown) == len(ranks) else "; every task is in the tables below"),
    ]
    chart = alt.layer(cells, text).properties(
        width=max(160, 90 * len(columns)),
        height=max(40, 20 * len(shown)),
        title=alt.TitleParams(
            safe_text(title or "Recovery by task"), subtitle=subtitle, anchor="start"
        ),
    )
    return cast(alt.LayerChart, chart)


def _row_labels(ranks: Sequence[TaskRank]) -> dict[str, str]:
    """A short, unique label per task: its id cut to 40 characters, numbered if two clash."""
    labels: dict[str, str] = {}
    used: set[str] = set()
    for rank in ranks:
        label = _truncate(rank.task_id, 40)
        if label in used:
            label = f"{_truncate(rank.task_id, 34)} (#{rank.position})"
        used.add(label)
        labels[rank.task_id] = label
    return labels
