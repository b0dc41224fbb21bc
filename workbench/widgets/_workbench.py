"""The ``Workbench`` widget: a task picker over Load, Boundaries, Replay, Sweep & branches, Export.

A thin view over the library. It holds one suite (:attr:`Workbench.suite`, a
:class:`workbench.Suite`); every change it offers is one library call on that suite, and a
notebook cell can read the suite back (or make the same call itself). The task picked above the
tabs scopes the boundary table, the replay view, the sweep and the charts.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import ipywidgets as w

from workbench import Suite

from ._boundaries import BoundaryPanel
from ._escape import esc
from ._export import ExportPanel
from ._grid import StyleProbe
from ._load import Loaded, LoadPanel, load_source
from ._paths import notebook_folder
from ._replay_panel import ReplayPanel
from ._settings import in_kernel
from ._sweep_panel import SweepPanel

__all__ = ["Workbench"]

_TITLES = ("Load", "Boundaries", "Replay", "Sweep & branches", "Export")
LOAD_TAB, BOUNDARIES_TAB, REPLAY_TAB, SWEEP_TAB, EXPORT_TAB = range(5)


def _empty_suite() -> Suite:
    return Suite({"suiteId": "", "version": "", "tasks": []})


def snapshot(suite: Suite) -> Suite:
    """An independent copy of the suite's JSON (a pickle round trip of our own in-memory data:
    three times faster than ``copy.deepcopy`` for a 2,000-boundary suite)."""
    return Suite(pickle.loads(pickle.dumps(suite.data, protocol=pickle.HIGHEST_PROTOCOL)))


def _task_label(task: Any) -> str:
    entries = (task.get("fixtures") or {}).get("toolResponses") or []
    return f"{task.get('taskId', '')} ({len(entries):,} boundaries)"


class Workbench:
    """The notebook workbench: show it in a cell, read :attr:`suite` back in the next.

        >>> wb = Workbench("fixtures/billing-support.openwop.jsonl")
        >>> wb                          # the widget, in a notebook
        >>> wb.boundaries.flip(3)       # what the row-3 toggle does
        >>> wb.suite                    # the edited suite

    ``source`` is a run or suite file path (relative paths are taken from the notebook's
    folder, ``folder``, by default the folder of the notebook this kernel runs), a
    ``LoadResult``, runs, a ``Promotion``, a :class:`~workbench.Suite` or a suite's JSON object.
    Load errors are shown in the Load tab. ``agent`` is any object with the agent interface
    (R25), used when the Replay tab's agent is "Python object"; setting :attr:`agent` later
    picks it.
    """

    def __init__(
        self, source: Any = None, *, agent: Any = None, folder: str | Path | None = None
    ) -> None:
        self._suite = _empty_suite()
        self.baseline: Suite = self._suite.copy()
        """The suite as loaded: the replay baseline and what Reset restores."""
        self.promotion: Any = None
        """The :class:`~workbench.Promotion`, when the source was a run."""
        self.source_path: str | None = None
        """The file loaded, if any (absolute)."""
        self.load_error: BaseException | None = None
        """The last load's error, if it failed."""
        self._folder = Path(folder).resolve() if folder is not None else notebook_folder()
        self._agent: Any = None
        self._task_id = ""
        self._picking = False
        self.style = StyleProbe()
        """Carries the stylesheet; reports the page's theme."""
        self.task = w.Dropdown(description="task", layout=w.Layout(width="50%"))
        self.task.add_class("wb-task-picker")
        self.task.observe(self._on_pick, names="value")
        self.load = LoadPanel(self)
        self.boundaries = BoundaryPanel(self)
        self.replay_panel = ReplayPanel(self)
        self.sweep_panel = SweepPanel(self)
        self.export = ExportPanel(self)
        self.tabs = w.Tab(
            children=[
                self.load.widget,
                self.boundaries.widget,
                self.replay_panel.widget,
                self.sweep_panel.widget,
                self.export.widget,
            ],
            titles=_TITLES,
        )
        self.title = w.HTML("<b>workbench</b>")
        self.title.add_class("wb-title")
        self.style.observe(lambda c: self.sweep_panel.set_dark(bool(c["new"])), names="dark")
        self.widget = w.VBox(
            [self.style, self.title, self.task, self.tabs], layout=w.Layout(width="100%")
        )
        """The root widget (what a cell displays)."""
        self.widget.add_class("wb-workbench")
        self.task.layout.display = "none"
        if in_kernel():
            from ._charts import warm_up

            warm_up()  # bundle Vega for the charts while the user looks at the table
        if agent is not None:
            self.agent = agent
        if source is not None:
            try:
                loaded = load_source(source, folder=self._folder)
            except Exception as exc:  # shown in place; the widget stays usable
                self.load_error = exc
                self.load.path.value = str(source)
                self.load.show_error(exc)
                self.tabs.selected_index = LOAD_TAB
            else:
                self.set_loaded(loaded)

    # -- where and what ----------------------------------------------------------------------------

    @property
    def folder(self) -> Path:
        """The notebook's folder: relative paths are taken from it, exports default to it."""
        return self._folder

    @property
    def dark(self) -> bool:
        """Whether the page shows a dark JupyterLab theme (reported by the browser)."""
        return bool(self.style.dark)

    @property
    def task_id(self) -> str:
        """The task picked above the tabs."""
        return self._task_id

    def _on_pick(self, change: Any) -> None:
        if not self._picking:
            self.show_task(str(change["new"] or ""))

    def show_task(self, task_id: str) -> None:
        """Pick a task: the boundary table, the replay view, the sweep and the chart follow."""
        ids = [str(t.get("taskId", "")) for t in self._suite.tasks]
        if task_id not in ids:
            task_id = ids[0] if ids else ""
        if self.task.value != task_id and task_id in ids and not self._picking:
            self._picking = True
            try:
                self.task.value = task_id
            finally:
                self._picking = False
        if task_id == self._task_id and self.boundaries.task_id == task_id:
            return
        self._task_id = task_id
        self.boundaries.show_task(task_id)
        self.replay_panel.show_task(task_id)
        self.sweep_panel.show_task(task_id)

    def _fill_tasks(self) -> None:
        tasks = self._suite.tasks
        options = [(_task_label(t), str(t.get("taskId", ""))) for t in tasks]
        keep = self._task_id if self._task_id in [v for _l, v in options] else None
        self._picking = True
        try:
            self.task.options = options
            self.task.value = keep or (options[0][1] if options else None)
        finally:
            self._picking = False
        self._task_id = str(self.task.value or "")
        self.task.layout.display = None if len(options) > 1 else "none"

    # -- the suite -----------------------------------------------------------------------------

    @property
    def suite(self) -> Suite:
        """The suite the widget holds; every change in the widget shows here."""
        return self._suite

    @suite.setter
    def suite(self, value: Suite | Any) -> None:
        self.edit(Suite.coerce(value))

    def edit(self, new: Suite) -> None:
        """Take ``new`` as the held suite's content (the file it came from is kept, so the
        overwrite guard still knows it) and redraw."""
        if new is not self._suite:
            self._suite.data = new.data
        ids = [str(t.get("taskId", "")) for t in self._suite.tasks]
        if [v for _l, v in self.task.options] != ids:
            self._fill_tasks()
            self.boundaries.reload()
            self.sweep_panel.reload()
            self.replay_panel.show_task(self._task_id)
        else:
            self.boundaries.refresh()

    def set_loaded(self, loaded: Loaded) -> None:
        """Hold a newly loaded suite (and its copy as the baseline)."""
        self.load_error = None
        self._suite = loaded.suite
        self.baseline = snapshot(loaded.suite)
        self.promotion = loaded.promotion
        self.source_path = loaded.path
        self.title.value = f"<b>workbench</b> &middot; {esc(loaded.label)}"
        self.load.show_loaded(loaded)
        if loaded.path:
            self.load.path.value = loaded.path
        self._fill_tasks()
        self.replay_panel.clear()
        self.boundaries.reload()
        self.sweep_panel.reload()
        self.replay_panel.show_task(self._task_id)
        self.export.reload()
        self.tabs.selected_index = BOUNDARIES_TAB

    def reset(self) -> None:
        """Restore the suite as loaded, and clear every message."""
        self.sweep_panel.cancel()
        self.edit(snapshot(self.baseline))
        self.boundaries.clear_messages()
        self.replay_panel.clear_messages()
        self.sweep_panel.clear_messages()
        self.export.clear_messages()
        self.boundaries.message.value = '<span class="wb-ok">reset to the suite as loaded</span>'

    # -- agent and results -------------------------------------------------------------------

    @property
    def agent(self) -> Any:
        """An agent object (R25) for the Replay and Sweep tabs; ``None``: the scripted agent."""
        return self._agent

    @agent.setter
    def agent(self, value: Any) -> None:
        self._agent = value
        self.replay_panel.agent_choice.value = "scripted" if value is None else "object"

    def current_agent(self) -> Any:
        """The agent the Replay tab is set to run (the Sweep tab runs the same)."""
        return self.replay_panel.agent()

    @property
    def replay_result(self) -> Any:
        """The last :class:`~workbench.ReplayResult` of the Replay tab."""
        return self.replay_panel.result

    @property
    def sweep_result(self) -> Any:
        """The last ``SweepResult`` of the Sweep tab (partial if it was cancelled:
        ``wb.sweep_panel.complete`` says)."""
        return self.sweep_panel.result

    # -- display -------------------------------------------------------------------------------

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"Workbench({self._suite!r})"
