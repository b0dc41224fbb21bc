"""What the widget's panels see of the workbench: a narrow protocol, never the class itself.

Each panel is handed the :class:`~workbench.widgets.Workbench` as a :class:`WorkbenchState`, so a
panel can read the held suite and the picked task, make one edit and reach the agent, and nothing
else; the panels and the ``Workbench`` that composes them import no module of each other's (no
circle).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from workbench import Suite

    from ._load import Loaded

__all__ = ["WorkbenchState"]


class WorkbenchState(Protocol):
    """The state the panels share."""

    @property
    def suite(self) -> Suite:
        """The suite the widget holds (every edit shows here)."""
        ...

    @property
    def baseline(self) -> Suite:
        """The suite as loaded: the replay baseline and what Reset restores."""
        ...

    @property
    def source_path(self) -> str | None:
        """The file loaded, if any."""
        ...

    @property
    def task_id(self) -> str:
        """The task picked above the tabs (``""`` when the suite has none): it scopes the
        boundary table, the replay view, the sweep and the charts."""
        ...

    @property
    def folder(self) -> Path:
        """The notebook's folder: relative paths are taken from it, exports default to it."""
        ...

    @property
    def dark(self) -> bool:
        """Whether the page shows a dark JupyterLab theme (charts follow it)."""
        ...

    @property
    def agent(self) -> Any:
        """The agent object set on the workbench (``None``: the scripted agent)."""
        ...

    def edit(self, new: Suite) -> None:
        """Take ``new`` as the held suite's content and redraw."""
        ...

    def reset(self) -> None:
        """Restore the suite as loaded (and clear every message)."""
        ...

    def show_task(self, task_id: str) -> None:
        """Pick a task for every part."""
        ...

    def set_loaded(self, loaded: Loaded) -> None:
        """Hold a newly loaded suite."""
        ...

    def current_agent(self) -> Any:
        """The agent the Replay tab is set to run (the scripted agent with its policy, or
        :attr:`agent`)."""
        ...
