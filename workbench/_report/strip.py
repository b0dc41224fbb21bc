"""The divergence strip: each variant-trial's calls beside the baseline's, by divergence step."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import altair as alt
import pandas as pd

from .common import (
    _CALL_COLOURS,
    _CALL_STATES,
    _ROW_BUDGET,
    MAX_STRIP_ROWS,
    _data,
    _int,
    _is_nan,
    _records,
    _require,
    _truncate,
    safe_text,
)

_TRAJECTORY_SPLIT = re.compile(r" > ")
DENSE_STRIP_STEPS = 60
"""Past this many steps a strip's squares touch, and its runs of ok calls are drawn as bars."""


def _steps_from_trajectory(trajectory: Any) -> list[tuple[str, str, bool, str]]:
    text = (
        "" if trajectory is None or trajectory is pd.NA or _is_nan(trajectory) else str(trajectory)
    )
    if not text:
        return []
    out = []
    for part in _TRAJECTORY_SPLIT.split(text):
        failed = part.endswith("!")
        out.append((part[:-1] if failed else part, "", failed, ""))
    return out


def divergence_strip(
    frame: pd.DataFrame,
    steps: Mapping[tuple[str, str, int], Sequence[Any]] | None = None,
    *,
    max_rows: int = MAX_STRIP_ROWS,
    title: str | None = None,
) -> alt.LayerChart:
    """Per variant-trial (rows), the steps taken (x = step), failed calls marked, the
    divergence step marked.

    ``frame`` is :attr:`SweepResult.frame`; ``steps`` (``SweepResult.steps``) adds args and
    misses to each step, otherwise the compact ``trajectory`` is used. Baseline rows come
    first, then variants sorted by divergence step; at most ``max_rows`` rows (fewer when the
    trajectories are long, to stay under the row limit) are shown, and the subtitle says so.
    """
    _require(
        frame, ("variant", "taskId", "trial", "trajectory", "divergenceStep"), "divergence_strip"
    )
    records = _records(frame)
    multi_trial = frame["trial"].nunique() > 1 if len(frame) else False
    multi_task = frame["taskId"].nunique() > 1 if len(frame) else False

    def trial_steps(rec: Mapping[str, Any]) -> list[tuple[str, str, bool, str]]:
        key = (str(rec["variant"]), str(rec["taskId"]), _int(rec["trial"]))
        if steps is not None and key in steps:
            return [
                (
                    str(getattr(s, "tool", "")),
                    str(getattr(s, "args_json", "")),
                    bool(getattr(s, "is_error", False)),
                    str(getattr(s, "served_by", "")),
                )
                for s in steps[key]
            ]
        return _steps_from_trajectory(rec.get("trajectory"))

    def sort_key(rec: Mapping[str, Any]) -> tuple[int, int, str, str, int]:
        div = rec.get("divergenceStep")
        baseline = rec.get("recovered") is pd.NA or rec.get("recovered") is None
        is_na = div is None or div is pd.NA or _is_nan(div)
        return (
            0 if baseline and _is_baseline(rec) else 1,
            1_000_000_000 if is_na else _int(div),
            str(rec["taskId"]),
            str(rec["variant"]),
            _int(rec["trial"]),
        )

    ordered = sorted(records, key=sort_key)
    candidates = ordered[: max(1, max_rows)]
    longest = max((len(trial_steps(r)) for r in candidates), default=1)
    dense = longest > DENSE_STRIP_STEPS
    if dense:
        # A row costs its marks (a bar per run of ok calls, a point per other call), so rows of
        # 2,000 calls with a few failures fit as well as short ones.
        shown: list[dict[str, Any]] = []
        used = 0
        for rec in candidates:
            cost = _mark_count(trial_steps(rec))
            if shown and used + cost > _ROW_BUDGET:
                break
            shown.append(rec)
            used += cost
        per_row_cap = _ROW_BUDGET
    else:
        limit = max(1, min(max_rows, _ROW_BUDGET // max(1, longest)))
        shown = ordered[:limit]
        per_row_cap = _ROW_BUDGET // max(1, len(shown))
    rows: list[dict[str, Any]] = []
    marks: list[dict[str, Any]] = []
    labels: list[str] = []
    truncated_steps = False
    for rec in shown:
        label = str(rec["variant"])
        if multi_task and not label.startswith(f"{rec['taskId']}/"):
            label = f"{rec['taskId']}/{label}"
        if multi_trial:
            label = f"{label} #{_int(rec['trial'])}"
        label = _truncate(label, 40)
        labels.append(label)
        taken = trial_steps(rec)
        if len(taken) > per_row_cap:
            taken = taken[:per_row_cap]
            truncated_steps = True
        outcome = "passed" if bool(rec.get("passed")) else "failed"
        for index, (tool, args, failed, served_by) in enumerate(taken):
            state = "miss" if served_by == "miss" else "error served" if failed else "ok"
            rows.append(
                {
                    "row": label,
                    "step": index,
                    "tool": _truncate(tool, 60),
                    "args": _truncate(args, 80),
                    "call": state,
                    "outcome": outcome,
                }
            )
        div = rec.get("divergenceStep")
        if not (div is None or div is pd.NA or _is_nan(div)):
            marks.append({"row": label, "step": _int(div), "mark": "divergence"})
    last = max((r["step"] for r in rows), default=0)
    runs: list[dict[str, Any]] = []
    if dense:
        rows, runs = _ok_runs(rows)
    x_scale = alt.Scale(domain=[-0.7, last + 0.7], nice=False, zero=False)
    x_axis = alt.Axis(tickMinStep=1, format="d")
    x = alt.X("step:Q", title="step", scale=x_scale, axis=x_axis)
    y = alt.Y("row:N", sort=labels, title=None, axis=alt.Axis(labelLimit=220))
    call_colours: dict[str, str] = dict(zip(_CALL_STATES, _CALL_COLOURS, strict=True))
    states = ["ok", "error served", "miss"]
    cells = (
        alt.Chart(_data(rows, ("row", "step", "tool", "args", "call", "outcome")))
        .mark_point(size=90, filled=True, opacity=0.95, aria=False)
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "call:N",
                scale=alt.Scale(domain=states, range=[call_colours[s] for s in states]),
                legend=alt.Legend(title="call"),
            ),
            shape=alt.Shape(
                "call:N",
                scale=alt.Scale(domain=states, range=["square", "cross", "triangle-up"]),
                legend=alt.Legend(title="call"),
            ),
            tooltip=[
                alt.Tooltip("row:N", title="variant"),
                alt.Tooltip("step:Q", title="step"),
                alt.Tooltip("tool:N", title="tool"),
                alt.Tooltip("args:N", title="args"),
                alt.Tooltip("call:N", title="call"),
                alt.Tooltip("outcome:N", title="trial"),
            ],
        )
    )
    divergence = (
        alt.Chart(_data(marks, ("row", "step", "mark")))
        .mark_point(
            shape="square", filled=False, size=240, strokeWidth=2, color="#111111", aria=False
        )
        .encode(
            x=x,
            y=y,
            opacity=alt.Opacity(
                "mark:N",
                scale=alt.Scale(domain=["divergence"], range=[1]),
                legend=alt.Legend(title=""),
            ),
            tooltip=[
                alt.Tooltip("row:N", title="variant"),
                alt.Tooltip("step:Q", title="diverges at"),
            ],
        )
    )
    subtitle = [
        f"{len(shown)} of {len(records)} variant-trials, baseline first, then by divergence step"
    ]
    if truncated_steps:
        subtitle.append(f"long trajectories cut at {per_row_cap} steps")
    layers: list[Any] = [cells, divergence]
    if dense:
        subtitle.append("consecutive ok calls drawn as one bar (its tooltip: the steps it spans)")
        bars = (
            alt.Chart(_data(runs, ("row", "from", "to", "x", "x2", "calls", "outcome")))
            .mark_rule(strokeWidth=9, color=call_colours["ok"], opacity=0.95, aria=False)
            .encode(
                x=alt.X("x:Q", title="step", scale=x_scale, axis=x_axis),
                x2="x2:Q",
                y=y,
                tooltip=[
                    alt.Tooltip("row:N", title="variant"),
                    alt.Tooltip("from:Q", title="from step"),
                    alt.Tooltip("to:Q", title="to step"),
                    alt.Tooltip("calls:Q", title="ok calls"),
                    alt.Tooltip("outcome:N", title="trial"),
                ],
            )
        )
        layers.insert(0, bars)
    return cast(
        alt.LayerChart,
        alt.layer(*layers)
        .resolve_scale(color="independent", shape="independent")
        .properties(
            width=max(240, min(20 * (last + 2), 1100)),
            height=max(60, 18 * len(shown)),
            title=alt.TitleParams(
                safe_text(title or "Divergence strip"), subtitle=subtitle, anchor="start"
            ),
        ),
    )


def _mark_count(steps: Sequence[tuple[str, str, bool, str]]) -> int:
    """The marks a dense strip draws for a row: one per run of ok calls, one per other call."""
    count = 0
    previous_ok = False
    for _, _, failed, served_by in steps:
        is_ok = not failed and served_by != "miss"
        count += 0 if is_ok and previous_ok else 1
        previous_ok = is_ok
    return count


def _ok_runs(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The strip's points split into the calls that are not ok (kept as points) and each row's
    runs of consecutive ok calls (one bar each, from half a step before the first to half a
    step after the last): a row of a hundred touching squares becomes a few marks."""
    points: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for row in rows:
        if row["call"] != "ok":
            points.append(row)
            current = None
            continue
        if (
            current is not None
            and current["row"] == row["row"]
            and current["to"] == row["step"] - 1
        ):
            current["to"] = row["step"]
            current["x2"] = row["step"] + 0.45
            current["calls"] += 1
            continue
        current = {
            "row": row["row"],
            "from": row["step"],
            "to": row["step"],
            "x": row["step"] - 0.45,
            "x2": row["step"] + 0.45,
            "calls": 1,
            "outcome": row["outcome"],
        }
        runs.append(current)
    return points, runs


def _is_baseline(rec: Mapping[str, Any]) -> bool:
    kind = rec.get("kind")
    name = str(rec.get("variant", ""))
    return name == "baseline" or name.endswith("/baseline") or str(kind) in ("", "baseline", "<NA>")
