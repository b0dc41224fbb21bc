"""The Sweep & branches part: run a fault sweep, chart its branch tree, show a branch's variant.

Run is one library call, :func:`workbench.sweep`; the chart is
:func:`workbench.branch_chart` of ``result.branches(task)``, shown through
``alt.JupyterChart`` with the chart's ``select=True`` point selection. Clicking a branch node
in the chart (the selection, synced back to the kernel) or picking a variant in the dropdown
(the fallback, for a front end without the chart) shows that variant's trajectory beside the
baseline's. If the chart cannot be drawn the part says why, and the dropdown still works.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from workbench import BASELINE, FAULT_KINDS, Step, sweep

from ._escape import esc, html_table
from ._trajectory import trajectory_html

if TYPE_CHECKING:
    from ._state import WorkbenchState

__all__ = ["SweepPanel"]

_FRAME_COLUMNS = ("variant", "taskId", "trial", "passed", "outcome", "divergenceStep", "recovered")
_MAX_ROWS = 200


def _plain(value: Any) -> Any:
    """A pandas cell as plain Python (``<NA>`` -> None)."""
    try:
        import pandas as pd

        if value is pd.NA or (not isinstance(value, str) and bool(pd.isna(value))):
            return None
    except (TypeError, ValueError):
        pass
    return value.item() if hasattr(value, "item") else value


class SweepPanel:
    """Sweep controls, progress, the branch chart and the variant trajectory."""

    def __init__(self, wb: WorkbenchState) -> None:
        self._wb = wb
        self.result: Any = None
        """The last sweep's ``SweepResult``."""
        self.error: BaseException | None = None
        """The last sweep's error, if it failed."""
        self.chart: Any = None
        """The ``alt.JupyterChart`` of the branch tree, when charts are available."""
        self.faults = w.Dropdown(description="faults", options=[("single fault", "single")])
        self.faults.add_class("wb-sweep-faults")
        self.kinds = w.SelectMultiple(
            options=FAULT_KINDS, value=("transient", "hard"), description="kinds", rows=3
        )
        self.kinds.add_class("wb-sweep-kinds")
        self.trials = w.BoundedIntText(value=1, min=1, max=1000, description="trials")
        self.seed = w.IntText(value=0, description="seed")
        self.button = w.Button(description="Run sweep", button_style="success", icon="sitemap")
        self.button.add_class("wb-sweep-button")
        self.button.on_click(lambda _b: self.run())
        # Filled by sweep(on_progress=...) as batches of variants complete.
        self.progress = w.IntProgress(value=0, min=0, max=1, description="sweep")
        self.progress.add_class("wb-sweep-progress")
        self.status = w.HTML()
        self.status.add_class("wb-sweep-status")
        self.table = w.HTML()
        self.table.add_class("wb-sweep-table")
        self.chart_box = w.Box(layout=w.Layout(width="100%"))
        self.chart_box.add_class("wb-branch-chart")
        self.variant = w.Dropdown(description="variant", options=[], layout=w.Layout(width="60%"))
        self.variant.add_class("wb-variant-picker")
        self.variant.observe(lambda _c: self.show_variant(), names="value")
        self.trajectory = w.HTML()
        self.trajectory.add_class("wb-variant-trajectory")
        self.widget = w.VBox(
            [
                w.HBox([self.faults, self.kinds]),
                w.HBox([self.trials, self.seed]),
                w.HBox([self.button, self.progress]),
                self.status,
                self.chart_box,
                self.variant,
                self.trajectory,
                self.table,
            ]
        )
        self.widget.add_class("wb-sweep")

    def reload(self) -> None:
        """A new suite: offer a per-tool sweep for each of its tools."""
        tools = sorted(
            {
                str(entry.get("tool"))
                for task in self._wb.suite.tasks
                for entry in (task.get("fixtures") or {}).get("toolResponses") or []
                if isinstance(entry, Mapping) and "tool" in entry
            }
        )
        options = [("single fault", "single"), ("pairs", "pairs")]
        options += [(f"every call of {tool}", f"tool:{tool}") for tool in tools]
        self.faults.options = options
        self.faults.value = "single"

    def run(self) -> Any:
        """Sweep the held suite: ``sweep(suite, faults=..., kinds=..., trials=..., seed=...)``."""

        self.error = None
        kinds = tuple(self.kinds.value)
        if not kinds:
            self._fail(ValueError("pick at least one fault kind"))
            return None
        self.progress.value = 0
        self.progress.max = 1
        self.progress.bar_style = "info"
        self.status.value = "sweeping&hellip;"
        try:
            agent = self._wb.current_agent()
            result = sweep(
                self._wb.suite,
                faults=self.faults.value,
                kinds=kinds,
                trials=int(self.trials.value),
                seed=int(self.seed.value),
                agent=agent,
                progress=False,
                on_progress=self._on_progress,
            )
        except Exception as exc:
            self._fail(exc)
            return None
        self.result = result
        self.progress.bar_style = "success"
        self.progress.value = self.progress.max
        self._show_result(result)
        return result

    def _on_progress(self, done: int, total: int) -> None:
        """``sweep``'s progress callback: ``done`` of ``total`` variants replayed."""
        self.progress.max = max(1, total)
        self.progress.value = done
        self.status.value = f"sweeping&hellip; {done} of {total} variant(s)"

    def _fail(self, exc: BaseException) -> None:
        self.error = exc
        self.progress.bar_style = "danger"
        self.status.value = (
            f'<pre class="wb-error" style="color:#b00020;white-space:pre-wrap">'
            f"{esc(f'{type(exc).__name__}: {exc}')}</pre>"
        )

    # -- showing a result --------------------------------------------------------------------

    def _show_result(self, result: Any) -> None:
        frame = result.frame
        names = [str(v) for v in dict.fromkeys(frame["variant"].tolist())]
        variants = [n for n in names if not self._is_baseline(n)]
        passed = int(frame["passed"].sum()) if "passed" in frame else 0
        self.status.value = (
            f"<b>{len(variants)}</b> variant(s), {len(frame)} trial row(s), {passed} passed"
        )
        columns = [c for c in _FRAME_COLUMNS if c in frame.columns]
        rows = [
            [_plain(v) for v in row] for row in frame[columns].head(_MAX_ROWS).itertuples(False)
        ]
        more = len(frame) - _MAX_ROWS
        self.table.value = html_table(columns, rows) + (
            f"<div>&hellip; and {more} more row(s) in <code>wb.sweep_result.frame</code></div>"
            if more > 0
            else ""
        )
        self.variant.options = variants
        self.variant.index = 0 if variants else None
        self._show_chart(result)
        self.show_variant()

    @staticmethod
    def _is_baseline(name: str) -> bool:
        return name == BASELINE

    def _show_chart(self, result: Any) -> None:
        self.chart = None
        try:
            import altair as alt

            from workbench import BRANCH_SELECTION, branch_chart

            task_ids = [str(t.get("taskId")) for t in self._wb.suite.tasks]
            branches = result.branches(task_ids[0] if len(task_ids) == 1 else None)
            # SVG: at most a few hundred marks, and each node is an element a click lands on.
            chart = alt.JupyterChart(
                branch_chart(branches, select=True), embed_options={"renderer": "svg"}
            )
        except Exception as exc:  # the chart is an extra: the table and picker still work
            self.chart_box.children = (w.HTML(f"branch chart unavailable: {esc(str(exc))}"),)
            return
        self.chart = chart
        self.chart_box.children = (chart,)
        # JupyterChart.selections holds one trait per selection parameter of the chart, a
        # PointSelection set (by _on_change_selections) when the front end syncs _vl_selections.
        chart.selections.observe(self._on_selection, names=[BRANCH_SELECTION])

    def _on_selection(self, change: Mapping[str, Any]) -> None:
        """A branch node was clicked: show the first variant through it (a double click clears
        the selection and leaves the variant shown as it was)."""
        values = getattr(change.get("new"), "value", None)
        if not isinstance(values, Sequence) or isinstance(values, str):
            return
        for item in values:
            if not isinstance(item, Mapping):
                continue
            names = [str(item.get("variant", "")), *str(item.get("variants", "")).split(",")]
            for name in names:
                name = name.strip()
                if name and name in self.variant.options:
                    self.variant.value = name
                    return

    def _steps(self, variant: str, task_id: str, trial: int = 0) -> Sequence[Step]:
        steps = getattr(self.result, "steps", {}) or {}
        return tuple(steps.get((variant, task_id, trial), ()))

    def _baseline_steps(self, task_id: str) -> Sequence[Step]:
        return self._steps(BASELINE, task_id)

    def show_variant(self) -> None:
        """Show the picked variant's trajectory (trial 0) beside the baseline's."""
        name = self.variant.value
        if self.result is None or not name:
            self.trajectory.value = ""
            return
        frame = self.result.frame
        rows = frame[frame["variant"] == name]
        task_id = str(rows["taskId"].iloc[0]) if len(rows) else ""
        self.trajectory.value = trajectory_html(
            self._baseline_steps(task_id), self._steps(name, task_id), label=name
        )
