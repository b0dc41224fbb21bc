"""The ``Workbench`` widget: Load, Boundaries, Replay, Sweep & branches, Export, as tabs.

A thin view over the library. It holds one suite (:attr:`Workbench.suite`, a
:class:`workbench.Suite`); every change it offers is one library call on that suite, and a
notebook cell can read the suite back (or make the same call itself).
"""

from __future__ import annotations

import pickle
from typing import Any

import ipywidgets as w

from workbench import Suite

from ._boundaries import BoundaryPanel
from ._export import ExportPanel
from ._load import Loaded, LoadPanel, load_source
from ._replay_panel import ReplayPanel
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


class Workbench:
    """The notebook workbench: show it in a cell, read :attr:`suite` back in the next.

        >>> wb = Workbench("fixtures/billing-support.openwop.jsonl")
        >>> wb                          # the widget, in a notebook
        >>> wb.boundaries.flip(3)       # what the row-3 toggle does
        >>> wb.suite                    # the edited suite

    ``source`` is a run or suite file path, a ``LoadResult``, runs, a ``Promotion``, a
    :class:`~workbench.Suite` or a suite's JSON object. Load errors are shown in the Load tab.
    ``agent`` is any object with the agent interface (R25), used when the Replay tab's agent is
    "Python object"; setting :attr:`agent` later picks it.
    """

    def __init__(self, source: Any = None, *, agent: Any = None, page_size: int = 25) -> None:
        self._suite = _empty_suite()
        self.baseline: Suite = self._suite.copy()
        """The suite as loaded: the replay baseline and what Reset restores."""
        self.promotion: Any = None
        """The :class:`~workbench.Promotion`, when the source was a run."""
        self.source_path: str | None = None
        """The file loaded, if any."""
        self.load_error: BaseException | None = None
        """The last load's error, if it failed."""
        self._agent: Any = None
        self.load = LoadPanel(self)
        self.boundaries = BoundaryPanel(self, page_size=page_size)
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
        self.widget = w.VBox([self.title, self.tabs], layout=w.Layout(width="100%"))
        """The root widget (what a cell displays)."""
        self.widget.add_class("wb-workbench")
        if agent is not None:
            self.agent = agent
        if source is not None:
            try:
                loaded = load_source(source)
            except Exception as exc:  # shown in place; the widget stays usable
                self.load_error = exc
                self.load.path.value = str(source)
                self.load.show_error(exc)
                self.tabs.selected_index = LOAD_TAB
            else:
                self.set_loaded(loaded)

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
        ids = [t.get("taskId") for t in self._suite.tasks]
        if list(self.boundaries.task.options) != ids:
            self.boundaries.reload()
            self.sweep_panel.reload()
        else:
            self.boundaries.render()

    def set_loaded(self, loaded: Loaded) -> None:
        """Hold a newly loaded suite (and its copy as the baseline)."""
        self.load_error = None
        self._suite = loaded.suite
        self.baseline = snapshot(loaded.suite)
        self.promotion = loaded.promotion
        self.source_path = loaded.path
        self.replay_panel.result = None
        self.replay_panel.baseline_result = None
        self.replay_panel.results.value = ""
        self.replay_panel.trajectory.value = ""
        self.sweep_panel.result = None
        self.title.value = f"<b>workbench</b> &middot; {_escape(loaded.label)}"
        self.load.show_loaded(loaded)
        if loaded.path:
            self.load.path.value = loaded.path
        self.boundaries.reload()
        self.sweep_panel.reload()
        self.export.reload()
        self.tabs.selected_index = BOUNDARIES_TAB

    def reset(self) -> None:
        """Restore the suite as loaded."""
        self.edit(snapshot(self.baseline))

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
        """The last ``SweepResult`` of the Sweep tab."""
        return self.sweep_panel.result

    # -- display -------------------------------------------------------------------------------

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"Workbench({self._suite!r})"


def _escape(text: str) -> str:
    from ._escape import esc

    return esc(text)
