"""The recovery matrix: per task, boundary and fault kind, how often the agent recovered."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

import altair as alt
import pandas as pd

from .._grade.recovery import wilson_interval
from .common import (
    _MATRIX_COLUMNS,
    MAX_MATRIX_COLUMNS,
    _data,
    _int,
    _is_nan,
    _records,
    _require,
    safe_text,
)


def rate_text(rate: float) -> str:
    """A recovery rate as a cell shows it (an en dash: no fault was triggered)."""
    return "\u2013" if math.isnan(rate) else f"{rate:.0%}"


def rate_layers(base: alt.Chart, tooltip: list[alt.Tooltip]) -> tuple[alt.Chart, alt.Chart]:
    """A recovery heatmap's two layers over ``base``: the cells coloured by ``rate`` (red to
    green, 0 to 1) and the rate written in each (``rateText``), both with ``tooltip``."""
    cells = base.mark_rect(stroke="white", strokeWidth=1).encode(
        color=alt.Color(
            "rate:Q",
            scale=alt.Scale(domain=[0, 1], scheme="redyellowgreen"),
            legend=alt.Legend(title="recovery rate", format=".0%"),
        ),
        tooltip=tooltip,
    )
    text = base.mark_text(fontSize=10, color="#111111").encode(text="rateText:N", tooltip=tooltip)
    return cells, text


def recovery_matrix(
    per_boundary: pd.DataFrame,
    *,
    max_columns: int = MAX_MATRIX_COLUMNS,
    title: str | None = None,
) -> alt.LayerChart:
    """Boundaries x fault kinds, coloured by recovery rate, the rate written in each cell.

    ``per_boundary`` is :meth:`SweepResult.per_boundary`'s frame (taskId, boundary, kind,
    variants, trials, recoveryRate, passHatK, extraCalls). A task with more than
    ``max_columns`` boundaries has them binned into equal ranges (rates weighted by trials).
    """
    _require(
        per_boundary, ("taskId", "boundary", "kind", "recoveryRate", "trials"), "recovery_matrix"
    )
    tasks = sorted({str(t) for t in per_boundary["taskId"]})
    multi = len(tasks) > 1
    rows: list[dict[str, Any]] = []
    binned = False
    for task in tasks:
        part = per_boundary[per_boundary["taskId"].astype(str) == task]
        boundaries = sorted({_int(b) for b in part["boundary"]})
        size = max(1, math.ceil(len(boundaries) / max(1, max_columns)))
        binned = binned or size > 1
        groups: dict[tuple[int, str], list[Mapping[str, Any]]] = {}
        for rec in _records(part):
            position = boundaries.index(_int(rec["boundary"])) // size
            groups.setdefault((position, str(rec["kind"])), []).append(rec)
        for (position, kind), recs in sorted(groups.items()):
            members = boundaries[position * size : (position + 1) * size]
            label = (
                f"b{members[0]:02d}" if len(members) == 1 else f"b{members[0]}\u2013b{members[-1]}"
            )
            trials = sum(_int(r.get("trials")) for r in recs)
            if all("triggered" in r and "recovered" in r for r in recs):
                # R38: the rate is over triggered variant-trials only.
                fired = sum(_int(r.get("triggered")) for r in recs)
                recovered = sum(_int(r.get("recovered")) for r in recs)
                rate = recovered / fired if fired else float("nan")
                low, high = wilson_interval(recovered, fired)
                # needs-model trials (R41) are neither triggered nor untriggered
                untriggered = (
                    sum(_int(r.get("untriggered")) for r in recs)
                    if all("untriggered" in r for r in recs)
                    else trials - fired
                )
            else:
                fired = trials
                untriggered = 0
                rate = _weighted(recs, "recoveryRate", trials)
                low = high = float("nan")
            rows.append(
                {
                    "column": f"{task} {label}" if multi else label,
                    "order": position,
                    "task": task,
                    "kind": f"{task} \u00b7 {kind}" if multi else kind,
                    "rate": None if math.isnan(rate) else round(rate, 6),
                    "rateText": rate_text(rate),
                    "variants": sum(_int(r.get("variants")) for r in recs),
                    "trials": trials,
                    "triggered": fired,
                    "untriggered": untriggered,
                    "interval": "" if math.isnan(low) else f"{low:.0%}\u2013{high:.0%}",
                    "passHatK": _round_or_none(_weighted(recs, "passHatK", trials)),
                    "extraCalls": _round_or_none(_weighted(recs, "extraCalls", trials)),
                }
            )
    columns = list(
        dict.fromkeys(r["column"] for r in sorted(rows, key=lambda r: (r["task"], r["order"])))
    )
    base = alt.Chart(_data(rows, _MATRIX_COLUMNS)).encode(
        x=alt.X("column:O", sort=columns, title="boundary", axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("kind:N", title="fault kind"),
    )
    tooltip = [
        alt.Tooltip("column:N", title="boundary"),
        alt.Tooltip("kind:N", title="kind"),
        alt.Tooltip("rateText:N", title="recovery rate"),
        alt.Tooltip("variants:Q", title="variants"),
        alt.Tooltip("trials:Q", title="variant-trials"),
        alt.Tooltip("triggered:Q", title="triggered"),
        alt.Tooltip("untriggered:Q", title="untriggered (not in the rate)"),
        alt.Tooltip("interval:N", title="Wilson 95% interval"),
        alt.Tooltip("passHatK:Q", title="pass^k", format=".2f"),
        alt.Tooltip("extraCalls:Q", title="extra calls", format=".2f"),
    ]
    cells, text = rate_layers(base, tooltip)
    subtitle = ["recovered / triggered variant-trials (R38); \u2013: no fault was triggered"]
    if binned:
        subtitle.append(f"boundaries binned into ranges (at most {max_columns} columns per task)")
    n_columns = max(1, len(columns))
    n_rows = max(1, len({r["kind"] for r in rows}))
    chart = alt.layer(cells, text).properties(
        width=max(160, min(34 * n_columns, 1100)),
        height=max(40, 28 * n_rows),
        title=alt.TitleParams(
            safe_text(title or "Recovery by boundary"), subtitle=subtitle, anchor="start"
        ),
    )
    return cast(alt.LayerChart, chart)


def _weighted(recs: Sequence[Mapping[str, Any]], column: str, trials: int) -> float:
    total = 0.0
    weight = 0
    for rec in recs:
        value = rec.get(column)
        if value is None or value is pd.NA or _is_nan(value):
            continue
        w = max(1, _int(rec.get("trials"), 1))
        total += float(value) * w
        weight += w
    return total / weight if weight else float("nan")


def _round_or_none(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)
