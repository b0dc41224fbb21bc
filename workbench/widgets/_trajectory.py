"""The trajectory diff the Replay and Sweep parts show: any two trajectories, aligned.

A view only: the rows are :func:`workbench.align_trajectories` of the two chosen trajectories
(an inserted retry is one inserted row, R33) and :func:`workbench.divergence` says where they part.
The identical prefix is folded into one line, a button jumps to the first difference, and the
table is virtualised (a 10,000-step trajectory costs the same to show as a short one). Recorded
text reaches the page as text (``textContent``), never as HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import ipywidgets as w

from workbench import AlignedStep, Step, align_trajectories, divergence

from ._escape import esc, shorten
from ._grid import VirtualTable

__all__ = ["TrajectoryCompare", "diff_rows", "step_text"]

_OP_LABELS = {"same": "", "changed": "changed", "added": "added", "removed": "removed"}
Source = tuple[str, Hashable]
"""``(label, key)``: a trajectory offered for comparison."""


def step_text(step: Step, *, limit: int = 140) -> str:
    """A step on one line: tool, args, and what it got when it was not a fixture success."""
    text = f"{step.tool} {shorten(step.args_json, limit)}"
    if step.is_error:
        reason = f" ({shorten(step.error, 80)})" if step.error else ""
        how = "fixture miss" if step.served_by == "miss" else "failed"
        text += f"  \u2717 {how}{reason}"
    elif step.served_by != "fixture":
        text += f"  [{step.served_by}]"
    return text


def diff_rows(
    left: Sequence[Step], right: Sequence[Step], aligned: Sequence[AlignedStep]
) -> list[dict[str, Any]]:
    """The table rows of an alignment (see :class:`~workbench.widgets._grid.VirtualTable`)."""
    rows: list[dict[str, Any]] = []
    for row in aligned:
        a = left[row.left] if row.left is not None else None
        b = right[row.right] if row.right is not None else None
        rows.append(
            {
                "c": [
                    "" if row.left is None else str(row.left),
                    "" if a is None else step_text(a),
                    "" if row.right is None else str(row.right),
                    "" if b is None else step_text(b),
                    _OP_LABELS[row.op],
                ],
                "r": row.op,
                "m": [
                    "",
                    "fail" if a is not None and a.is_error else "",
                    "",
                    "fail" if b is not None and b.is_error else "",
                    "op",
                ],
            }
        )
    return rows


def fit_height(rows: int, most: int) -> int:
    """A table's viewport height: its rows, up to ``most`` pixels (24 px a row)."""
    return max(48, min(most, 24 * rows + 4))


def summary_text(aligned: Sequence[AlignedStep], at: int | None) -> str:
    """``diverges at step 2: 1 changed, 1 added, 9 removed`` (or ``the same N steps``)."""
    if at is None:
        return f"the same trajectory ({len(aligned)} steps)"
    counts = {op: 0 for op in ("changed", "added", "removed")}
    for row in aligned:
        if row.op in counts:
            counts[row.op] += 1
    parts = [f"{n} {op}" for op, n in counts.items() if n]
    same = sum(1 for row in aligned if row.op == "same")
    return f"diverges at step {at}: {', '.join(parts)}, {same} unchanged"


class TrajectoryCompare:
    """Two trajectory pickers and their aligned diff."""

    def __init__(self, *, height: int = 360) -> None:
        self.max_height = height
        self._steps: Callable[[Hashable], Sequence[Step]] = lambda _key: ()
        self._keys: dict[str, Hashable] = {}
        self._showing = False
        self.left = w.Dropdown(description="compare", layout=w.Layout(width="46%"))
        self.left.add_class("wb-compare-left")
        self.right = w.Dropdown(description="with", layout=w.Layout(width="46%"))
        self.right.add_class("wb-compare-right")
        self.left.observe(lambda _c: self.show(), names="value")
        self.right.observe(lambda _c: self.show(), names="value")
        self.summary = w.HTML()
        self.summary.add_class("wb-compare-summary")
        self.table = VirtualTable(height=height, noun="rows")
        self.table.add_class("wb-trajectory")
        self.aligned: tuple[AlignedStep, ...] = ()
        """The rows shown, as the library aligned them."""
        self.divergence: int | None = None
        """Where the two trajectories part (``None``: the same)."""
        self.widget = w.VBox([w.HBox([self.left, self.right]), self.summary, self.table])
        self.widget.add_class("wb-compare")

    def set_sources(
        self,
        sources: Sequence[Source],
        steps: Callable[[Hashable], Sequence[Step]],
        *,
        left: Hashable | None = None,
        right: Hashable | None = None,
    ) -> None:
        """Offer ``sources``; keep the picks that are still offered, else take ``left``/``right``
        (default: the first two)."""
        self._steps = steps
        labels = [label for label, _key in sources]
        self._keys = {label: key for label, key in sources}
        keep_left = self.left.value if self.left.value in labels else None
        keep_right = self.right.value if self.right.value in labels else None
        by_key = {key: label for label, key in sources}
        self._showing = True
        try:
            self.left.options = labels
            self.right.options = labels
            self.left.value = keep_left or by_key.get(left) or (labels[0] if labels else None)
            self.right.value = (
                keep_right
                or by_key.get(right)
                or (labels[1] if len(labels) > 1 else (labels[0] if labels else None))
            )
        finally:
            self._showing = False
        self.show()

    def pick(self, *, left: Hashable | None = None, right: Hashable | None = None) -> None:
        """Pick trajectories by key (what a click in the chart or the sweep table does)."""
        labels = {key: label for label, key in self._keys.items()}
        self._showing = True
        try:
            if left is not None and left in labels:
                self.left.value = labels[left]
            if right is not None and right in labels:
                self.right.value = labels[right]
        finally:
            self._showing = False
        self.show()

    @property
    def keys(self) -> tuple[Hashable | None, Hashable | None]:
        """The keys of the two trajectories shown."""
        return (self._keys.get(self.left.value or ""), self._keys.get(self.right.value or ""))

    def clear(self) -> None:
        """Show nothing (a new suite, or a failed run)."""
        self._keys = {}
        self._showing = True
        try:
            self.left.options = []
            self.right.options = []
        finally:
            self._showing = False
        self.aligned = ()
        self.divergence = None
        self.summary.value = ""
        self.table.rows = []
        self.table.fold = [0, 0]
        self.table.first_diff = -1

    def show(self) -> None:
        """Align the two picked trajectories and show them."""
        if self._showing:
            return
        key_a, key_b = self.keys
        if key_a is None or key_b is None:
            self.clear()
            return
        a = tuple(self._steps(key_a))
        b = tuple(self._steps(key_b))
        self.aligned = align_trajectories(a, b)
        self.divergence = divergence(a, b)
        prefix = next((k for k, row in enumerate(self.aligned) if row.op != "same"), None)
        same_prefix = len(self.aligned) if prefix is None else prefix
        self.table.columns = [
            {"label": "#", "width": "3.5em"},
            {"label": str(self.left.value), "cls": "wb-g-mono"},
            {"label": "#", "width": "3.5em"},
            {"label": str(self.right.value), "cls": "wb-g-mono"},
            {"label": "", "width": "7em"},
        ]
        shown = len(self.aligned) - (same_prefix - 1 if same_prefix >= 2 else 0)
        with self.table.hold_sync():
            self.table.fold = [0, same_prefix if same_prefix >= 2 and prefix is not None else 0]
            self.table.first_diff = -1 if prefix is None else prefix
            self.table.height = fit_height(shown, self.max_height)
            self.table.rows = diff_rows(a, b, self.aligned)
        self.summary.value = (
            f'<span class="wb-note">{esc(summary_text(self.aligned, self.divergence))}</span>'
        )
