"""The Boundaries part: the fixture entries of one task, paged, with an isError toggle per row.

Only one page of row widgets exists (25 by default): paging rewrites their values, so a
2,000-boundary run costs the same to show as a 25-boundary one. Every change is one library
call on the suite the widget holds (``toggle_error``, ``inject``); the table then re-reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from workbench import FAULT_KINDS, Fault, apply_faults, result_preview, toggle_error

from ._escape import esc, mono
from ._presets import PayloadEditor

if TYPE_CHECKING:
    from ._state import WorkbenchState

__all__ = ["BoundaryPanel"]

_COLUMNS = (("#", "4em"), ("tool", "14em"), ("args", "34%"), ("recorded result", "30%"))
_TOGGLE_WIDTH = "7em"


class _Row:
    """One row slot: reused for whichever boundary the current page puts there."""

    __slots__ = ("args", "box", "index", "result", "shown", "toggle", "tool")

    def __init__(self) -> None:
        self.shown: int | None = None
        self.index = w.Label(layout=w.Layout(width=_COLUMNS[0][1]))
        self.tool = w.Label(layout=w.Layout(width=_COLUMNS[1][1]))
        self.args = w.HTML(layout=w.Layout(width=_COLUMNS[2][1]))
        self.result = w.HTML(layout=w.Layout(width=_COLUMNS[3][1]))
        self.toggle = w.ToggleButton(
            description="ok", layout=w.Layout(width=_TOGGLE_WIDTH), tooltip="flip isError"
        )
        self.toggle.add_class("wb-toggle")
        self.box = w.HBox(
            [self.index, self.tool, self.args, self.result, self.toggle],
            layout=w.Layout(border_bottom="1px solid #eee", align_items="center"),
        )
        self.box.add_class("wb-boundary-row")

    def show(self, index: int, entry: Mapping[str, Any]) -> None:
        if self.shown != index:
            if self.shown is not None:
                self.toggle.remove_class(f"wb-toggle-{self.shown}")
            self.toggle.add_class(f"wb-toggle-{index}")
            self.shown = index
        self.index.value = str(index)
        self.tool.value = str(entry.get("tool", ""))
        self.args.value = mono(entry.get("args"), limit=90) if "args" in entry else ""
        self.result.value = esc(result_preview(entry.get("response"), 140))
        failed = entry.get("isError") is True
        self.toggle.value = failed
        self.toggle.description = "isError" if failed else "ok"
        self.toggle.button_style = "danger" if failed else ""
        self.box.layout.display = None

    def hide(self) -> None:
        if self.shown is not None:
            self.toggle.remove_class(f"wb-toggle-{self.shown}")
            self.shown = None
        self.box.layout.display = "none"


class BoundaryPanel:
    """The boundary table of the chosen task, paged; toggles; fault kinds; payload presets."""

    def __init__(self, wb: WorkbenchState, *, page_size: int = 25) -> None:
        self._wb = wb
        self.page_size = page_size
        self._rendering = False
        self.task = w.Dropdown(description="task", layout=w.Layout(width="50%"))
        self.task.observe(lambda _c: self.go_to_page(1), names="value")
        self.summary = w.HTML()
        self.summary.add_class("wb-boundary-summary")
        header = w.HBox(
            [w.HTML(f"<b>{name}</b>", layout=w.Layout(width=width)) for name, width in _COLUMNS]
            + [w.HTML("<b>isError</b>", layout=w.Layout(width=_TOGGLE_WIDTH))]
        )
        self.rows = [_Row() for _ in range(page_size)]
        for slot, row in enumerate(self.rows):
            row.toggle.observe(self._toggle_handler(slot), names="value")
        self.table = w.VBox([header, *(row.box for row in self.rows)])
        self.table.add_class("wb-boundary-table")
        self.prev = w.Button(description="prev", icon="chevron-left", layout=w.Layout(width="6em"))
        self.next = w.Button(description="next", icon="chevron-right", layout=w.Layout(width="6em"))
        self.page = w.BoundedIntText(
            value=1, min=1, max=1, description="page", layout=w.Layout(width="12em")
        )
        self.pages = w.Label()
        self.prev.on_click(lambda _b: self.go_to_page(self.page.value - 1))
        self.next.on_click(lambda _b: self.go_to_page(self.page.value + 1))
        self.page.observe(lambda c: self.go_to_page(c["new"]), names="value")
        self.prev.add_class("wb-page-prev")
        self.next.add_class("wb-page-next")
        self.page.add_class("wb-page-box")
        pager = w.HBox([self.prev, self.page, self.pages, self.next])

        self.boundary = w.BoundedIntText(value=0, min=0, max=0, description="boundary")
        self.kind = w.Dropdown(options=FAULT_KINDS, value="flip", description="fault")
        self.kind.add_class("wb-fault-kind")
        self.repeats = w.BoundedIntText(value=3, min=1, max=100, description="hard repeats")
        self.payload = PayloadEditor()
        self.inject_button = w.Button(
            description="Inject fault", button_style="warning", icon="bolt"
        )
        self.inject_button.add_class("wb-inject-button")
        self.inject_button.on_click(lambda _b: self.inject())
        self.reset_button = w.Button(description="Reset to loaded", icon="undo")
        self.reset_button.add_class("wb-reset-button")
        self.reset_button.on_click(lambda _b: self._wb.reset())
        self.message = w.HTML()
        self.message.add_class("wb-boundary-message")
        faults = w.VBox(
            [
                w.HBox([self.boundary, self.kind, self.repeats]),
                self.payload.widget,
                w.HBox([self.inject_button, self.reset_button]),
                self.message,
            ],
            layout=w.Layout(border="1px solid #ddd", padding="4px", margin="6px 0 0 0"),
        )
        self.widget = w.VBox([self.task, self.summary, self.table, pager, faults])
        self.widget.add_class("wb-boundaries")

    # -- reading the held suite --------------------------------------------------------------

    @property
    def task_id(self) -> str:
        """The task shown."""
        return str(self.task.value or "")

    def entries(self) -> tuple[Mapping[str, Any], ...]:
        """The shown task's fixture entries (read-only)."""
        suite = self._wb.suite
        if not self.task_id:
            return ()
        return suite.view(self.task_id).entries

    @property
    def page_count(self) -> int:
        """How many pages the task's entries take."""
        return max(1, -(-len(self.entries()) // self.page_size))

    # -- rendering ---------------------------------------------------------------------------

    def reload(self) -> None:
        """A new suite: refill the task picker and show its first page."""
        ids = [str(t.get("taskId", "")) for t in self._wb.suite.tasks]
        keep = self.task.value if self.task.value in ids else (ids[0] if ids else None)
        self._rendering = True
        try:
            self.task.options = ids
            self.task.value = keep
        finally:
            self._rendering = False
        self.task.layout.display = None if len(ids) > 1 else "none"
        self.go_to_page(1)

    def go_to_page(self, number: int) -> None:
        """Show page ``number`` (1-based, clamped)."""
        if self._rendering:
            return
        pages = self.page_count
        number = min(max(1, int(number)), pages)
        self._rendering = True
        try:
            self.page.max = pages
            self.page.value = number
        finally:
            self._rendering = False
        self.render()

    def render(self) -> None:
        """Rewrite the row slots for the current page and the summary."""
        entries = self.entries()
        start = (self.page.value - 1) * self.page_size
        self._rendering = True
        try:
            for slot, row in enumerate(self.rows):
                index = start + slot
                if index < len(entries):
                    row.show(index, entries[index])
                else:
                    row.hide()
        finally:
            self._rendering = False
        errors = sum(1 for e in entries if isinstance(e, Mapping) and e.get("isError") is True)
        self.pages.value = f"of {self.page_count}"
        self.prev.disabled = self.page.value <= 1
        self.next.disabled = self.page.value >= self.page_count
        self.boundary.max = max(0, len(entries) - 1)
        self.summary.value = (
            f"<b>{len(entries)}</b> boundaries, <b>{errors}</b> isError"
            f" &middot; task <code>{esc(self.task_id)}</code>"
        )

    # -- actions (one library call each) -----------------------------------------------------

    def toggle(self, index: int) -> w.ToggleButton:
        """The isError toggle of boundary ``index`` (turning to its page first)."""
        self.go_to_page(index // self.page_size + 1)
        return self.rows[index % self.page_size].toggle

    def _toggle_handler(self, slot: int) -> Any:
        def handler(_change: Mapping[str, Any]) -> None:
            if self._rendering:
                return
            index = (self.page.value - 1) * self.page_size + slot
            self.flip(index)

        return handler

    def flip(self, index: int) -> None:
        """Flip boundary ``index``'s isError: ``toggle_error(suite, task, index)``."""
        try:
            self._wb.edit(toggle_error(self._wb.suite, self.task_id, index))
        except Exception as exc:
            self._show_error(exc)
            self.render()

    def inject(self) -> None:
        """Inject the chosen fault kind at the chosen boundary with the editor's payload."""
        try:
            fault = Fault(self.task_id, int(self.boundary.value), self.kind.value)
            payload = self.payload.payload()
            suite = apply_faults(
                self._wb.suite, [fault], hard_repeats=int(self.repeats.value), payload=payload
            )
        except Exception as exc:
            self._show_error(exc)
            return
        self._wb.edit(suite)
        self.message.value = (
            f"injected <b>{esc(self.kind.value)}</b> at boundary {int(self.boundary.value)}"
        )

    def _show_error(self, exc: BaseException) -> None:
        self.message.value = f'<span class="wb-error" style="color:#b00020">{esc(str(exc))}</span>'
