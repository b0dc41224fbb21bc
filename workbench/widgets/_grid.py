"""The virtualised tables, as anywidgets over one plain-JavaScript module (``_static/grid.js``).

Why our own widget and not a grid library: measured in JupyterLab 4.6 and Notebook 7.6 in
headless Chromium at 10,000 rows (the research note is summarised in docs/performance.md), it was
the only candidate that kept search, sort, filter and scroll well under 100 ms (3 to 22 ms) while
letting each row carry its own buttons and menus answered by one small message per edit.
itables' ``ITable`` resends the whole table on any change (5.9 s for 10,000 rows) and reports only
row selections; ipydatagrid has no cross-column search, paints a canvas (no per-row controls)
and has had no release since 2024-12; Tabulator works but is 450 KB to vendor and was 78 to 140 ms
on long-text sorts. The module is about 700 lines with no dependency and no build step, and every
recorded string reaches the page through ``textContent``, so escaping is structural.

- :class:`BoundaryGrid`: one task's boundaries. Search, tool/failed/edited filters, sort and
  scroll run in the browser and are mirrored into traits; an edit is a message addressed by
  boundary index and version (``{"kind": "edit", "op", "index", "v"}``), answered with row
  patches or an error; a click asks for the row's full args and result (``detail``).
- :class:`VirtualTable`: a read-only table (a trajectory diff, the sweep's rows) with an
  optional fold of leading rows and a jump to the first difference.
- :class:`StyleProbe`: carries the workbench's stylesheet and reports whether the page uses a
  dark JupyterLab theme (``dark``), so charts can follow it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anywidget
import traitlets

__all__ = ["BoundaryGrid", "StyleProbe", "VirtualTable"]

STATIC = Path(__file__).with_name("_static")
GRID_JS = STATIC / "grid.js"
WORKBENCH_CSS = STATIC / "workbench.css"

EditHandler = Callable[[str, int, str | None], Sequence[int]]
"""``(op, boundary, fault kind) -> the boundaries whose rows changed``; raises to refuse."""
DetailHandler = Callable[[int], tuple[str, list[tuple[str, str]]]]
"""``boundary -> (title, [(label, full text), ...])``."""


class BoundaryGrid(anywidget.AnyWidget):
    """The boundary table of one task: rows are previews, the suite stays in Python."""

    _esm = GRID_JS
    _css = WORKBENCH_CSS
    grid_view = traitlets.Unicode("boundaries").tag(sync=True)
    rows: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    """One preview per boundary: ``{i, tool, args, result, rec, err, kind, note, v}`` (``rec``:
    recorded isError; ``err``: isError as the held suite serves it; ``kind``: the edit, ``""``
    when none; ``v``: the row's version, bumped on every change)."""
    kinds: traitlets.List[str] = traitlets.List().tag(sync=True)
    """The edit kinds each row offers."""
    kind_notes = traitlets.Dict().tag(sync=True)
    """Kind -> what it does (the options' tooltips)."""
    height = traitlets.Int(420).tag(sync=True)
    query = traitlets.Unicode("").tag(sync=True)
    tool_filter = traitlets.Unicode("").tag(sync=True)
    failed_only = traitlets.Bool(False).tag(sync=True)
    edited_only = traitlets.Bool(False).tag(sync=True)
    sort_key = traitlets.Unicode("index").tag(sync=True)
    sort_desc = traitlets.Bool(False).tag(sync=True)
    selected = traitlets.Int(-1).tag(sync=True)
    view_count = traitlets.Int(0).tag(sync=True)
    """How many rows the browser shows after filtering (set by the browser)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_edit: EditHandler | None = None
        self.on_detail: DetailHandler | None = None
        self.sent: list[dict[str, Any]] = []
        """The last messages sent to the browser (kept for tests; at most 50)."""
        self._patched: set[int] = set()
        self.on_msg(self._on_msg)

    # -- Python -> browser ---------------------------------------------------------------------

    def load(self, rows: list[dict[str, Any]]) -> None:
        """Replace every row (a new task or suite)."""
        self._patched.clear()
        self.rows = rows

    def patch(self, rows: Sequence[dict[str, Any]]) -> None:
        """Replace some rows in place (by ``i``) and send them to the browser.

        The trait is changed in place, not re-sent (10,000 rows are megabytes), so a view made
        later says ``hello`` and is sent the rows patched since the last :meth:`load`."""
        for row in rows:
            self.rows[row["i"]] = row
            self._patched.add(row["i"])
        self._post({"kind": "patch", "rows": list(rows)})

    def scroll_to(self, index: int, *, select: bool = False) -> None:
        """Scroll the browser's view to a boundary (and select it)."""
        self._post({"kind": "scroll", "index": int(index), "select": select})

    def _post(self, msg: dict[str, Any]) -> None:
        self.sent.append(msg)
        del self.sent[:-50]
        self.send(msg)

    # -- browser -> Python ---------------------------------------------------------------------

    def _on_msg(self, _widget: Any, msg: Any, _buffers: Any) -> None:
        if not isinstance(msg, Mapping):
            return
        self.handle(msg)

    def handle(self, msg: Mapping[str, Any]) -> None:
        """Answer one message from the browser (tests call this directly)."""
        kind = msg.get("kind")
        if kind == "hello":
            if self._patched:
                self._post({"kind": "patch", "rows": [self.rows[i] for i in sorted(self._patched)]})
            return
        try:
            index = int(msg.get("index", -1))
        except (TypeError, ValueError):
            return
        if not 0 <= index < len(self.rows):
            self._post({"kind": "error", "index": index, "message": f"no boundary {index}"})
            return
        if kind == "detail" and self.on_detail is not None:
            title, parts = self.on_detail(index)
            self._post(
                {
                    "kind": "detail",
                    "req": msg.get("req"),
                    "index": index,
                    "title": title,
                    "parts": [list(p) for p in parts],
                }
            )
        elif kind == "edit" and self.on_edit is not None:
            current = self.rows[index].get("v")
            if msg.get("v") != current:
                # Refused per row: a quick second click on another row is never stale.
                self._post(
                    {
                        "kind": "error",
                        "index": index,
                        "message": f"boundary {index} changed since you clicked; try again",
                    }
                )
                self._post({"kind": "patch", "rows": [self.rows[index]]})
                return
            op = str(msg.get("op", ""))
            fault = msg.get("fault")
            try:
                self.on_edit(op, index, str(fault) if fault else None)
            except Exception as exc:  # shown in the table; the suite is unchanged
                self._post({"kind": "error", "index": index, "message": f"boundary {index}: {exc}"})
                self._post({"kind": "patch", "rows": [self.rows[index]]})


class VirtualTable(anywidget.AnyWidget):
    """A read-only virtualised table; rows are ``{"c": [cell texts], "r": row class, "m": [cell
    classes], "k": key}`` (``r``: ``same``/``changed``/``added``/``removed``; ``m``: ``fail``,
    ``op``)."""

    _esm = GRID_JS
    _css = WORKBENCH_CSS
    grid_view = traitlets.Unicode("table").tag(sync=True)
    columns: traitlets.List[dict[str, str]] = traitlets.List().tag(sync=True)
    """``[{"label", "width"?, "cls"?}]``."""
    rows: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    fold = traitlets.List([0, 0]).tag(sync=True)
    """``[start, end)``: rows folded into one line until clicked (an identical prefix)."""
    first_diff = traitlets.Int(-1).tag(sync=True)
    """The row the "jump to first difference" button scrolls to (-1: no button)."""
    sortable = traitlets.Bool(False).tag(sync=True)
    searchable = traitlets.Bool(False).tag(sync=True)
    height = traitlets.Int(320).tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    """The key of the row last clicked."""
    query = traitlets.Unicode("").tag(sync=True)
    sort_col = traitlets.Int(-1).tag(sync=True)
    sort_desc = traitlets.Bool(False).tag(sync=True)
    view_count = traitlets.Int(0).tag(sync=True)
    note = traitlets.Unicode("").tag(sync=True)
    noun = traitlets.Unicode("rows").tag(sync=True)

    def scroll_to(self, pos: int) -> None:
        """Scroll the browser's view to row ``pos``."""
        self.send({"kind": "scroll", "pos": int(pos)})


class StyleProbe(anywidget.AnyWidget):
    """The workbench's stylesheet, and whether the page's JupyterLab theme is dark."""

    _esm = GRID_JS
    _css = WORKBENCH_CSS
    grid_view = traitlets.Unicode("style").tag(sync=True)
    dark = traitlets.Bool(False).tag(sync=True)
