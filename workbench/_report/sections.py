"""The report page's text parts: the terms, the headline, the agent note and the tables.

Every recorded value goes through :func:`_text` (control characters escaped by ``safe_text``,
then HTML-escaped, cut to a cell's length); numbers through :func:`_number`. Rates are over
triggered variant-trials only, each with its Wilson 95% interval (R37, R38).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._common.step import trajectory_string
from .common import safe_text
from .overview import TaskRank

_CELL_LIMIT = 200
"""Characters of recorded text shown per table cell (the CSVs hold everything)."""


def _text(value: Any, limit: int = _CELL_LIMIT) -> str:
    """Recorded text as escaped HTML (cut to ``limit`` characters)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    # Escaping never shortens text: the first ``limit + 1`` characters decide what is shown.
    text = safe_text(str(value)[: limit + 1])
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return html.escape(text, quote=True)


def _number(value: Any, digits: int = 2) -> str:
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.{digits}f}"
    return html.escape(str(value))


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, numeric: set[int]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    return (
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        if rows
        else "<p>(none)</p>"
    )


def _boundary_table(per_boundary: pd.DataFrame) -> str:
    columns = ["taskId", "boundary", "tool", "kind", "variants", "trials", "recoveryRate",
               "passHatK", "extraCalls"]  # fmt: skip
    present = [c for c in columns if c in per_boundary.columns]
    rows = []
    for raw in per_boundary.to_dict("records"):
        rec = {str(k): v for k, v in raw.items()}
        row = []
        for column in present:
            value = rec.get(column)
            if column == "recoveryRate" and isinstance(value, float) and not math.isnan(value):
                row.append(f"{value:.0%}")
            elif column in ("passHatK", "extraCalls", "boundary", "variants", "trials"):
                row.append(_number(value))
            else:
                row.append(_text(value))
        rows.append(row)
    numeric = {i for i, c in enumerate(present) if c not in ("taskId", "tool", "kind")}
    return _table(present, rows, numeric=numeric)


_TRAJECTORY_LIMIT = 400
"""Characters of a trajectory shown in the per-variant table (sweep.csv holds all of it)."""
_LEAD_STEPS = 2
"""Steps before the divergence step that a cut trajectory still shows."""


def _trajectory_cell(rec: Mapping[str, Any], steps: Mapping[Any, Sequence[Any]] | None) -> str:
    """A trial's trajectory for the per-variant table. One longer than the cell shows from two
    steps before its divergence step, where it differs from the baseline's; the calls before
    that are the baseline's own."""
    text = rec.get("trajectory")
    div = rec.get("divergenceStep")
    if (
        not isinstance(text, str)
        or len(text) <= _TRAJECTORY_LIMIT
        or div is None
        or div is pd.NA
        or (isinstance(div, float) and math.isnan(div))
        or int(div) <= _LEAD_STEPS
    ):
        return f"<code>{_text(text, _TRAJECTORY_LIMIT)}</code>"
    start = int(div) - _LEAD_STEPS
    key = (str(rec["variant"]), str(rec["taskId"]), int(rec["trial"]))
    taken = steps.get(key) if steps is not None else None
    tail = (
        trajectory_string(taken[start:])
        if taken is not None
        else " > ".join(text.split(" > ")[start:])
    )
    return f"<code>\u2026 (from step {start}) {_text(tail, _TRAJECTORY_LIMIT)}</code>"


def _variant_table(frame: pd.DataFrame, steps: Mapping[Any, Sequence[Any]] | None = None) -> str:
    headers = ["variant", "taskId", "boundaries", "kind", "trials", "passed", "recovered",
               "divergence step", "mean calls", "errors served", "fixture misses",
               "trajectory (first trial)"]  # fmt: skip
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in frame.to_dict("records"):
        rec = {str(k): v for k, v in row.items()}
        groups.setdefault((str(rec["variant"]), str(rec["taskId"])), []).append(rec)
    rows = []
    for (variant, task_id), recs in groups.items():
        recs.sort(key=lambda r: int(r["trial"]))
        first = recs[0]
        recovered = [r.get("recovered") for r in recs]
        known = [bool(v) for v in recovered if v is not None and v is not pd.NA]
        divergence = [
            int(r["divergenceStep"])
            for r in recs
            if r.get("divergenceStep") is not None and r.get("divergenceStep") is not pd.NA
        ]
        rows.append(
            [
                _text(variant),
                _text(task_id),
                _text(first.get("boundaries")),
                _text(first.get("kind")),
                str(len(recs)),
                str(sum(bool(r.get("passed")) for r in recs)),
                str(sum(known)) if known or recovered[0] is not pd.NA else "",
                str(min(divergence)) if divergence else "",
                _number(sum(float(r.get("calls") or 0) for r in recs) / len(recs), 1),
                str(sum(int(r.get("errorsServed") or 0) for r in recs)),
                str(sum(int(r.get("fixtureMisses") or 0) for r in recs)),
                _trajectory_cell(first, steps),
            ]
        )
    return _table(headers, rows, numeric={4, 5, 6, 7, 8, 9, 10})


_TERMS: tuple[tuple[str, str], ...] = (
    ("baseline", "The suite the sweep started from ({baseline}). Every variant runs the same "
     "trials with the same seed, and each variant-trial is compared with the baseline's trial "
     "of the same number."),
    ("variant, variant-trial", "A variant is the baseline with one fault (or a pair) injected "
     "at a boundary (a recorded tool call, numbered from 0); a variant-trial is one trial of it."),
    ("hard", "The call fails, and so do the next {repeats} identical calls: an agent that "
     "retries fewer times sees only failures."),
    ("transient", "The call fails once; the next identical call gets the recorded response."),
    ("flip", "The recorded response is served as a failure (isError: true)."),
    ("empty", "Silent: served as a success with no content."),
    ("truncated", "Silent: served as a success with its text cut to half."),
    ("recorded failures", "A fault on a call the recording already failed keeps the recorded "
     "failure, so it serves what the baseline served."),
    ("triggered", "The agent was served at least one result (isError or response) that "
     "differs from what the baseline trial was served at the same point of its call "
     "sequence. A fault on a call the agent never made, or one that serves the failure the "
     "recording already had, is untriggered: it is counted, has no recovered value and is "
     "left out of every rate."),
    ("needs-model", "A trial of the LLM agent that reached a turn no recording, cache or "
     "model could answer: neither passed nor failed, counted apart and left out of every "
     "rate."),
    ("recovered", "A triggered variant-trial that passes as graded: its golden expectation "
     "and expected trajectory met, and no call left without a fixture. Empty (neither yes "
     "nor no) for an untriggered or needs-model variant-trial."),
    ("recovery rate", "Recovered / triggered variant-trials, with a Wilson 95% score interval "
     "(wide when there are few)."),
    ("extraCalls", "The mean number of calls a triggered variant-trial made beyond its "
     "baseline trial's (negative: it stopped earlier)."),
    ("pass^k", "The chance that k trials of a variant all pass (k = its triggered trials)."),
    ("divergence step", "The first step where a trajectory differs from the baseline's in "
     "tool, args or isError."),
)  # fmt: skip


def _legend(result: Any, note: str) -> str:
    variants = getattr(result, "variants", ()) or ()
    repeats: Any = 3
    for variant in variants:
        info = getattr(getattr(variant, "suite", None), "data", {}).get("x-variant", {})
        if isinstance(info, Mapping) and isinstance(info.get("hardRepeats"), int):
            repeats = info["hardRepeats"]
            break
    items = "".join(
        f"<dt>{html.escape(term)}</dt>"
        f"<dd>{_text(text.format(baseline=note, repeats=repeats), 2000)}</dd>"
        for term, text in _TERMS
    )
    return f'<h2 id="terms">What the terms mean</h2>\n<dl class="terms">{items}</dl>'


def _agent_note(result: Any) -> str:
    agent = str(getattr(result, "agent_name", "") or "workbench.scripted-agent")
    kinds = [str(k) for k in (getattr(result, "kinds", ()) or ())]
    text = f"Agent: {agent}."
    if agent == "workbench.scripted-agent":
        text += (
            " Its script's policies (each step's onError: abort, skip, retry, fallback, "
            "escalate, choose) decide the outcome of every fault: a recovery here says what the "
            "policy does, not what a model would do. It reads only isError, so it cannot notice "
            "the silent faults (empty, truncated): it goes on as after a success, and their "
            "rates say what grading makes of that."
        )
        if not any(k in ("empty", "truncated") for k in kinds):
            text += " No silent fault was swept here."
    return f'<p class="note">{_text(text, 2000)}</p>'


def _interval_text(low: Any, high: Any) -> str:
    if low is None or high is None or low is pd.NA or high is pd.NA:
        return ""
    if isinstance(low, float) and math.isnan(low):
        return ""
    return f"{float(low):.0%}\u2013{float(high):.0%}"


def _rate(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "\u2013"
    return f"{float(value):.0%}"


def _recovery_table(table: pd.DataFrame, levels: Sequence[str]) -> str:
    headers = ["level", "taskId", "kind", "variant-trials", "triggered", "untriggered",
               "recovered", "recovery rate", "Wilson 95%"]  # fmt: skip
    rows = []
    for raw in table.to_dict("records"):
        rec = {str(k): v for k, v in raw.items()}
        if rec["level"] not in levels:
            continue
        rows.append(
            [
                _text(rec["level"]), _text(rec["taskId"]), _text(rec["kind"]),
                _number(rec["variantTrials"]), _number(rec["triggered"]),
                _number(rec["untriggered"]), _number(rec["recovered"]), _rate(rec["recoveryRate"]),
                _interval_text(rec["low95"], rec["high95"]),
            ]
        )  # fmt: skip
    return _table(headers, rows, numeric={3, 4, 5, 6, 7, 8})


def _headline(result: Any) -> str:
    overall = getattr(result, "overall", None)
    if overall is None:
        return ""
    figure = overall()
    low, high = figure.interval
    if figure.triggered:
        lead = (
            f"Recovered {figure.recovered} of {figure.triggered} triggered variant-trials: "
            f"{figure.rate:.0%} (Wilson 95% interval {low:.0%}\u2013{high:.0%})."
        )
    else:
        lead = "No fault was triggered: there is no recovery rate."
    rest = (
        f" {figure.untriggered} of {figure.variant_trials} variant-trials were untriggered "
        "(their fault changed nothing the agent was served) and are left out."
    )
    if figure.needs_model:
        rest += (
            f" {figure.needs_model} ended needs-model (the LLM agent had no model to answer) "
            "and are left out too."
        )
    return f'<p class="headline">{_text(lead + rest, 2000)}</p>'


def _pairs_table(result: Any) -> str:
    found = getattr(result, "minimal_failing_pairs", None)
    if found is None or getattr(result, "faults", "") != "pairs":
        return ""
    table = found()
    rows = [
        [
            _text(r["taskId"]),
            _text(r["variant"]),
            _text(r["boundaries"]),
            _text(r["kind"]),
            _number(r["trial"]),
            _text(r["tools"]),
        ]
        for r in ({str(k): v for k, v in raw.items()} for raw in table.to_dict("records"))
    ]
    return (
        '<h2 id="minimal-pairs">Minimal failing pairs</h2>\n<p class="note">Pairs of faults '
        "that fail the task though each fault alone was recovered (same kind, same trial).</p>"
        + _table(["taskId", "variant", "boundaries", "kind", "trial", "tools"], rows, numeric={4})
    )


def _tasks_intro(ranks: Sequence[TaskRank], charted: set[str], task_charts: int) -> str:
    """The heading of a multi-task report's task part: which tasks have charts, and why."""
    drawn = [r for r in ranks if r.task_id in charted]
    links = ", ".join(
        f'<a href="#task-{r.position}">{_text(r.task_id, 60)}</a>'
        for r in sorted(drawn, key=lambda r: r.position)
    )
    if len(drawn) == len(ranks):
        text = (
            f"Each of the {len(ranks)} tasks has its own section with its branch tree, recovery "
            f"matrix and divergence strip: {links}."
        )
    else:
        chosen = (
            f"the {len(drawn)} most affected (most triggered variant-trials not recovered, then "
            f"the lowest recovery rate, then suite order): {links}"
            if drawn
            else "none (no task charts were asked for)"
        )
        text = (
            f"This sweep has {len(ranks)} tasks. Three charts per task would cost more than the "
            f"sweep itself, so the branch tree, recovery matrix and divergence strip are drawn "
            f"for at most {task_charts} tasks: {chosen}. Every other task is in the chart "
            'below (up to 40 tasks), in <a href="#other-tasks">one table per boundary</a>, in '
            'the <a href="#overall">recovery tables</a> and in recovery.csv and sweep.csv; '
            "write_report(..., task_charts=N) or workbench sweep --task-charts N draws more."
        )
    return f'<h2 id="tasks">Tasks</h2>\n<p class="note">{text}</p>'


def _other_tasks(per_boundary: pd.DataFrame, task_ids: Sequence[str], charted: set[str]) -> str:
    """One per-boundary table for every task that has no charts of its own."""
    others = [t for t in task_ids if t not in charted]
    keep = per_boundary["taskId"].astype(str).isin(others)
    return (
        f'<section class="task" id="other-tasks"><h2>Tasks without charts ({len(others)})</h2>'
        '<p class="note">Recovery per boundary of every task not charted above, in suite '
        "order.</p>" + _boundary_table(per_boundary[keep]) + "</section>"
    )
