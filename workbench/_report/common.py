"""What the report's charts share: sizes, colours, vocabularies and small helpers.

Every chart aggregates its input before it reaches Altair, so a sweep of any size stays under
Altair's default row limit (5,000 rows per dataset); the limit is never raised or disabled.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import pandas as pd

from .._common.text import safe_text as safe_text

BRANCH_SELECTION = "branch"
"""The name of the point selection ``branch_chart(..., select=True)`` adds (field ``variant``)."""
MAX_BRANCH_NODES = 160
"""Default number of tree nodes the branch chart draws besides the spine and the merged nodes."""
MAX_BRANCH_STEPS = 275
"""Steps the branch chart draws one by one (at least 4 px each); a deeper tree is drawn in
columns of several steps."""
MAX_STRIP_ROWS = 40
"""Default number of variant-trials the divergence strip shows."""
MAX_MATRIX_COLUMNS = 40
"""Boundaries per task the recovery matrix shows one by one; more are binned into ranges."""
_ROW_BUDGET = 4000
"""Rows a single chart dataset may use (Altair refuses more than 5,000 by default)."""

CallState = Literal["start", "ok", "error served", "miss"]
EndState = Literal["ended passed", "ended failed", "ended mixed"]

_CALL_STATES: tuple[CallState, ...] = ("start", "ok", "error served", "miss")
_CALL_COLOURS = ("#222222", "#4c78a8", "#d62728", "#ff7f0e")
_CALL_SHAPES = ("diamond", "circle", "cross", "triangle-up")
_END_STATES: tuple[EndState, ...] = ("ended passed", "ended failed", "ended mixed")
_END_COLOURS = ("#2ca02c", "#d62728", "#b8a200")
_EDGE_KINDS = ("baseline", "branch", "other branches")
_EDGE_COLOURS = ("#1f3b73", "#9aa5b1", "#c7ccd1")

_STEP_PX = 64
"""Horizontal space per step in the branch chart."""
_LANE_PX = 24
"""Vertical space per lane in the branch chart."""
_LABEL_CHAR_PX = 6.2
"""Approximate width of one label character at the chart's label font size."""


def _truncate(text: Any, limit: int) -> str:
    # Escaping never shortens text: the first ``limit + 1`` characters decide what is shown.
    value = safe_text(text if not isinstance(text, str) else text[: limit + 1])
    return value if len(value) <= limit else value[: max(0, limit - 1)] + "\u2026"


def _int(value: Any, default: int = 0) -> int:
    if value is None or value is pd.NA:
        return default
    try:
        if isinstance(value, float) and math.isnan(value):
            return default
        return int(value)
    except (TypeError, ValueError):
        return default


def _call_state(is_error: Any, served_by: Any, depth: int) -> CallState:
    if depth == 0:
        return "start"
    if str(served_by) == "miss":
        return "miss"
    return "error served" if bool(is_error) else "ok"


def _end_state(end_count: int, end_passed: int) -> EndState | None:
    if end_count <= 0:
        return None
    if end_passed >= end_count:
        return "ended passed"
    return "ended failed" if end_passed == 0 else "ended mixed"


def _require(frame: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {', '.join(missing)}")


_NODE_COLUMNS = ("key", "x", "y", "step", "tool", "args", "call", "count", "passedCount",
                 "endCount", "endPassed", "variants", "spine")  # fmt: skip
_MATRIX_COLUMNS = ("column", "order", "task", "kind", "rate", "rateText", "variants", "trials",
                   "triggered", "untriggered", "interval", "passHatK", "extraCalls")  # fmt: skip


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as plain dicts keyed by column name."""
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]


def _data(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    """A chart's data: a frame, so Altair's row limit applies to it like to any other. Every
    text value is :func:`safe_text` (no renderer ever sees a control character)."""
    clean = [{k: safe_text(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows]
    return pd.DataFrame(clean, columns=list(columns))


def _names(variants: Any) -> list[str]:
    text = "" if variants is None or variants is pd.NA else str(variants)
    return [n for n in (part.strip() for part in text.split(",")) if n]


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)
