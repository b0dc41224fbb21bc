"""The Sweep & branches part: run a fault sweep you can watch and cancel, chart the picked task's
branch tree, compare any two of its trajectories.

A sweep is :func:`workbench.sweep` over chunks of variants in a background thread
(:class:`~workbench.widgets._sweep_job.SweepJob`): the kernel stays free, the bar moves per batch,
Cancel stops at the next batch and keeps (and labels) what finished. The chart is
:func:`workbench.branch_chart` of ``result.branches(task)`` for the task picked above the tabs,
drawn offline (:func:`~workbench.widgets._charts.live_chart`); a click on a branch node picks that
branch's variant for the diff, as does a click on a row of the sweep table.

Longer than 400 lines because the tab's controls, the background job's callbacks (progress,
cancel, partial results) and the chart, diff and table they feed are one flow, read top to
bottom; the job itself (``_sweep_job``) and the agent's words (``_llm_controls``) live apart.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from workbench import (
    BASELINE,
    BRANCH_SELECTION,
    FAULT_KINDS,
    FRAME_COLUMNS,
    Step,
    branch_chart,
)

from ._boundaries import KIND_NOTES, PAYLOAD_KINDS
from ._charts import MAX_CHART_ROWS, live_chart, selected_variants, set_theme
from ._escape import cell_text, esc
from ._grid import VirtualTable
from ._llm_controls import agent_label
from ._replay_panel import ALL_TASKS, THIS_TASK, scoped
from ._sweep_job import SweepJob, SweepProgress
from ._trajectory import TrajectoryCompare, fit_height

if TYPE_CHECKING:
    from ._state import WorkbenchState

__all__ = ["SweepPanel"]

CHART_AFTER_CANCEL_S = 1.5
"""How long the chart of a cancelled sweep waits, leaving the kernel to the user first."""

_TABLE_COLUMNS: tuple[str, ...] = tuple(
    [
        "variant",
        "kind",
        "boundaries",
        "trial",
        "passed",
        "outcome",
        "calls",
        "divergenceStep",
        "triggered",
        "recovered",
        "trajectory",
    ]
)
"""The sweep table's columns shown (those the frame has; ``triggered`` comes with R37)."""


class SweepPanel:
    """Sweep controls, progress with Cancel, the branch chart, the diff and the sweep table."""

    def __init__(self, wb: WorkbenchState) -> None:
        self._wb = wb
        self.result: Any = None
        """The last sweep's ``SweepResult`` (partial when :attr:`complete` is False)."""
        self.complete = True
        """Whether the last sweep ran every variant (False: cancelled or failed part way)."""
        self.error: BaseException | None = None
        """The last sweep's error, if it failed."""
        self.job: SweepJob | None = None
        """The sweep running or last run."""
        self.chart: Any = None
        """The ``alt.JupyterChart`` of the picked task's branch tree."""
        self._chart_task: str | None = None
        self.scope = w.ToggleButtons(options=[THIS_TASK, ALL_TASKS], value=THIS_TASK)
        self.scope.add_class("wb-sweep-scope")
        self.faults = w.Dropdown(description="faults", options=[("single fault", "single")])
        self.faults.add_class("wb-sweep-faults")
        self.kinds = w.SelectMultiple(
            options=FAULT_KINDS,
            value=tuple(k for k in ("transient", "hard") if k in FAULT_KINDS),
            description="kinds",
            rows=min(5, len(FAULT_KINDS)),
        )
        self.kinds.add_class("wb-sweep-kinds")
        self.kind_note = w.HTML()
        self.kind_note.add_class("wb-sweep-kind-note")
        self.kinds.observe(lambda _c: self._show_kinds(), names="value")
        self.trials = w.BoundedIntText(value=1, min=1, max=1000, description="trials")
        self.seed = w.IntText(value=0, description="seed")
        self.button = w.Button(description="Run sweep", icon="sitemap")
        self.button.add_class("wb-sweep-button")
        self.button.add_class("wb-btn-primary")
        self.button.on_click(lambda _b: self.start())
        self.cancel_button = w.Button(description="Cancel", icon="stop", disabled=True)
        self.cancel_button.add_class("wb-sweep-cancel")
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.progress = w.IntProgress(value=0, min=0, max=1, description="sweep")
        self.progress.add_class("wb-sweep-progress")
        self.status = w.HTML()
        self.status.add_class("wb-sweep-status")
        self.chart_box = w.Box(layout=w.Layout(width="100%"))
        self.chart_box.add_class("wb-branch-chart")
        self.compare = TrajectoryCompare()
        self.compare.widget.add_class("wb-variant-compare")
        self.table = VirtualTable(height=260, sortable=True, searchable=True, noun="trial rows")
        self.table.add_class("wb-sweep-table")
        self.table.observe(self._on_table_pick, names="selected")
        self.widget = w.VBox(
            [
                w.HBox([self.scope, self.faults]),
                w.HBox([self.kinds, self.kind_note]),
                w.HBox([self.trials, self.seed]),
                w.HBox([self.button, self.cancel_button, self.progress]),
                self.status,
                self.chart_box,
                self.compare.widget,
                self.table,
            ]
        )
        self.widget.add_class("wb-sweep")
        self._show_kinds()

    # -- controls --------------------------------------------------------------------------------

    def reload(self) -> None:
        """A new suite: forget the sweep; offer a per-tool sweep for each tool of the scope."""
        self.cancel()
        self.result = None
        self.complete = True
        self.job = None
        self.clear_messages()
        self.chart = None
        self._chart_task = None
        self.chart_box.children = ()
        self.compare.clear()
        self.table.rows = []
        self._offer_tools()

    def _offer_tools(self) -> None:
        task_id = self._wb.task_id
        tasks = self._wb.suite.tasks
        if self.scope.value == THIS_TASK and task_id:
            tasks = [t for t in tasks if t.get("taskId") == task_id]
        tools = sorted(
            {
                str(entry.get("tool"))
                for task in tasks
                for entry in (task.get("fixtures") or {}).get("toolResponses") or []
                if isinstance(entry, Mapping) and "tool" in entry
            }
        )
        keep = self.faults.value
        options = [("single fault", "single"), ("pairs", "pairs")]
        options += [(f"every call of {tool}", f"tool:{tool}") for tool in tools]
        self.faults.options = options
        self.faults.value = keep if keep in [v for _l, v in options] else "single"

    def _show_kinds(self) -> None:
        lines = [
            f"<b>{esc(k)}</b>: {esc(KIND_NOTES.get(k, 'see workbench.FAULT_KINDS'))}"
            + (" (payload: upstream_down)" if k in PAYLOAD_KINDS else "")
            for k in self.kinds.value
        ]
        self.kind_note.value = f'<div class="wb-note">{"<br>".join(lines)}</div>'

    def clear_messages(self) -> None:
        """Empty the status and the progress bar."""
        self.status.value = ""
        self.progress.value = 0
        self.progress.bar_style = ""
        self.error = None

    # -- running ---------------------------------------------------------------------------------

    def _job(self) -> SweepJob | None:
        self.error = None
        kinds = tuple(self.kinds.value)
        if not kinds:
            self._fail(ValueError("pick at least one fault kind"))
            return None
        try:
            task = self._wb.task_id if self.scope.value == THIS_TASK else None
            suite = scoped(self._wb.suite, task or None)
            agent = self._wb.current_agent()
        except Exception as exc:
            self._fail(exc)
            return None
        return SweepJob(
            suite,
            faults=str(self.faults.value),
            kinds=kinds,
            trials=int(self.trials.value),
            seed=int(self.seed.value),
            agent=agent,
            on_progress=self._on_progress,
            on_finish=self._on_finish,
        )

    def start(self) -> SweepJob | None:
        """Run the sweep in the background (the Run button): the kernel stays free."""
        if self.job is not None and self.job.state in ("running", "cancelling"):
            return self.job
        job = self._job()
        if job is None:
            return None
        self._begin(job)
        job.start()
        return job

    def run(self) -> Any:
        """Run the sweep here and return its ``SweepResult`` (what a cell calls)."""
        job = self._job()
        if job is None:
            return None
        self._begin(job)
        job.run()
        return self.result if job.complete else None

    def cancel(self) -> None:
        """Stop the running sweep at its next batch; what finished is kept and labelled."""
        if self.job is not None:
            self.job.cancel()

    def _begin(self, job: SweepJob) -> None:
        self.job = job
        self.progress.value = 0
        self.progress.max = 1
        self.progress.bar_style = "info"
        self.status.value = (
            f'<span class="wb-note">preparing the variants&hellip; (agent: '
            f"{esc(agent_label(job.agent))})</span>"
        )
        self.button.disabled = True
        self.cancel_button.disabled = False

    def _on_progress(self, p: SweepProgress) -> None:
        self.progress.max = max(1, p.total)
        self.progress.value = p.done
        if p.state == "cancelling":
            text = f"cancelling&hellip; {p.done:,} of {p.total:,} variant(s) done"
        elif p.state == "running":
            text = (
                f"sweeping&hellip; {p.done:,} of {p.total:,} variant(s), batch {p.batches}, "
                f"{p.seconds:.1f} s"
            )
        else:
            return
        self.status.value = f'<span class="wb-note">{text}</span>'

    def _on_finish(self, job: SweepJob) -> None:
        self.button.disabled = False
        self.cancel_button.disabled = True
        self.complete = job.complete
        if job.error is not None:
            self._fail(job.error, partial=job.result)
        if job.result is not None:
            self.result = job.result
            self._show_result(job)
        elif job.error is None:
            self.progress.bar_style = "warning"
            self.status.value = (
                '<span class="wb-partial">cancelled before any variant finished: no results</span>'
            )

    def _fail(self, exc: BaseException, partial: Any = None) -> None:
        self.error = exc
        self.progress.bar_style = "danger"
        kept = " (the variants that finished are shown below)" if partial is not None else ""
        self.status.value = (
            f'<div class="wb-error"><pre>{esc(f"{type(exc).__name__}: {exc}")}{esc(kept)}</pre>'
            "</div>"
        )

    # -- showing a result ------------------------------------------------------------------------

    def _show_result(self, job: SweepJob) -> None:
        result = job.result
        assert result is not None
        frame = result.frame
        variants = len(result.variants)
        passed = int(frame["passed"].sum()) if "passed" in frame else 0
        needs = int((frame["outcome"] == "needs-model").sum()) if "outcome" in frame else 0
        needs_text = (
            f"; {needs:,} trial row(s) <b>needs-model</b> (the LLM agent had no model for a "
            "turn: counted, left out of rates)"
            if needs
            else ""
        )
        if job.complete:
            self.progress.bar_style = "success"
            self.status.value = (
                f'<span class="wb-note"><b>{variants:,}</b> variant(s), {len(frame):,} trial '
                f"row(s), {passed:,} passed, in {job.seconds:.1f} s{needs_text}</span>"
            )
        elif job.error is None:
            self.progress.bar_style = "warning"
            self.status.value = (
                f'<span class="wb-partial"><b>partial</b>: cancelled after {variants:,} of '
                f"{job.total:,} variant(s); the table, chart and diff show those "
                f"({passed:,} of {len(frame):,} trial rows passed){needs_text}</span>"
            )
        self._chart_task = None
        if not job.complete and threading.current_thread() is not threading.main_thread():
            # Cancelled from the button: the status, the table and the diff show at once; the
            # chart (a second or two of CPU in this thread) waits a moment, so whatever the user
            # does next in the kernel is answered first.
            self.show_task(self._wb.task_id, chart=False)
            time.sleep(CHART_AFTER_CANCEL_S)
        self.show_task(self._wb.task_id)

    def show_task(self, task_id: str, *, chart: bool = True) -> None:
        """Show the picked task: its branch chart, its variants in the diff and the table."""
        self._offer_tools()
        result = self.result
        if result is None:
            return
        if task_id not in result.task_ids:
            self.chart_box.children = (
                w.HTML(
                    f'<span class="wb-note">the last sweep did not cover task '
                    f"{esc(task_id)}: run it with this task picked</span>"
                ),
            )
            self.compare.clear()
            self.table.rows = []
            return
        frame = result.frame
        rows = frame[frame["taskId"] == task_id]
        names = [str(v) for v in dict.fromkeys(rows["variant"].tolist()) if v != BASELINE]
        trials = sorted({int(t) for t in rows["trial"].tolist()})
        sources: list[tuple[str, Hashable]] = [
            (f"baseline \u00b7 trial {t}", (BASELINE, t)) for t in trials
        ]
        sources += [
            (name if len(trials) == 1 else f"{name} \u00b7 trial {t}", (name, t))
            for name in names
            for t in trials
        ]
        steps_by = result.steps

        def steps(key: Hashable) -> Sequence[Step]:
            name, trial = key if isinstance(key, tuple) else ("", -1)
            return tuple(steps_by.get((name, task_id, trial), ()))

        first = (names[0], trials[0]) if names and trials else None
        self.compare.set_sources(sources, steps, left=(BASELINE, 0), right=first)
        self._show_table(rows)
        if chart and self._chart_task != task_id:
            self._show_chart(result, task_id)

    def _show_table(self, rows: Any) -> None:
        columns = [c for c in _TABLE_COLUMNS if c in rows.columns and c in FRAME_COLUMNS]
        columns += [c for c in _TABLE_COLUMNS if c in rows.columns and c not in columns]
        widths = {"trial": "4em", "passed": "5.5em", "calls": "4em", "kind": "7em"}
        with self.table.hold_sync():
            self.table.columns = [
                {"label": c, "width": widths.get(c, "minmax(0,1fr)"), "cls": "wb-g-mono"}
                if c == "trajectory"
                else {"label": c, "width": widths.get(c, "minmax(0,1fr)")}
                for c in columns
            ]
            self.table.rows = [
                {"c": [cell_text(v) for v in values], "k": str(values[0])}
                for values in rows[columns].itertuples(index=False)
            ]
            self.table.height = fit_height(len(rows), 264)
            self.table.note = "" if self.complete else "partial sweep (cancelled)"

    def _on_table_pick(self, change: Mapping[str, Any]) -> None:
        name = str(change.get("new") or "")
        if name and name != BASELINE:
            self.compare.pick(right=(name, 0))

    def _show_chart(self, result: Any, task_id: str) -> None:
        """The branch chart of one task. (With issue 11's per-task branch data, only the line
        that builds ``tree`` changes.)"""
        self.chart = None
        self._chart_task = task_id
        try:
            tree = result.branches(task_id)
            chart = branch_chart(tree, select=True)
            if not self.complete:
                chart = chart.properties(title=f"task {task_id}: partial sweep (cancelled)")
            live = live_chart(chart, dark=self._wb.dark)
        except Exception as exc:  # the chart is an extra: the table and the diff still work
            why = str(exc)
            if type(exc).__name__ == "MaxRowsError":
                why = (
                    f"the tree has more than {MAX_CHART_ROWS:,} rows of chart data; the table "
                    "and the diff show every variant"
                )
            self.chart_box.children = (
                w.HTML(f'<span class="wb-note">branch chart unavailable: {esc(why)}</span>'),
            )
            return
        self.chart = live
        self.chart_box.children = (live,)
        # JupyterChart.selections holds one trait per selection parameter of the chart, a
        # PointSelection set when the front end syncs _vl_selections (a click on a node).
        live.selections.observe(self._on_selection, names=[BRANCH_SELECTION])

    def set_dark(self, dark: bool) -> None:
        """Follow the page's theme (the chart re-embeds with vega-embed's dark theme)."""
        if self.chart is not None:
            set_theme(self.chart, dark=dark)

    def _on_selection(self, change: Mapping[str, Any]) -> None:
        """A branch node was clicked: compare the first variant through it with the baseline
        (a double click clears the selection and leaves the diff as it was)."""
        for name in selected_variants(change.get("new")):
            if name != BASELINE:
                self.compare.pick(right=(name, 0))
                if self.compare.keys[1] == (name, 0):
                    return
