"""The Boundaries part: one task's fixture entries in a virtualised table you can search.

The table (:class:`~workbench.widgets._grid.BoundaryGrid`) shows every boundary of the task
picked above the tabs: search, tool/failed/edited filters, sort and scroll run in the browser,
so 10,000 rows stay quick. Each row has an isError toggle, a fault-kind menu and an undo button;
a click on a row shows its full args and result, escaped and pretty-printed. Edits are marked as
edits (by kind), apart from recorded failures, and each can be undone alone
(:class:`~workbench.widgets._edits.EditJournal`). Every edit is one library call
(``toggle_error`` or ``apply_faults``) on the suite the widget holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from workbench import FAULT_KINDS, Suite, result_preview

from ._edits import FLIP, Edit, EditJournal
from ._escape import esc, json_text, pretty, result_text, shorten
from ._grid import BoundaryGrid
from ._presets import PayloadEditor
from ._trajectory import fit_height

if TYPE_CHECKING:
    from ._state import WorkbenchState

__all__ = ["EDIT_KINDS", "KIND_NOTES", "PAYLOAD_KINDS", "BoundaryPanel"]

EDIT_KINDS: tuple[str, ...] = (FLIP, *(k for k in FAULT_KINDS if k != FLIP))
"""The edits a row offers: ``flip`` (the toggle) and every fault kind of the library."""

KIND_NOTES: dict[str, str] = {
    "flip": "isError flipped: the recorded response is served as the error "
    "(a recorded failure becomes a success)",
    "transient": "a failing copy before the entry: the first call fails, the next identical "
    "call gets the recorded response",
    "hard": "the entry fails, and so do the next identical calls (hard repeats)",
    "empty": "served as a success with no content (a silent fault, R39)",
    "truncated": "served as a success with its text cut to half (a silent fault, R39)",
}
"""What each kind does, as the table's tooltips say it (kinds added later get a plain note)."""

PAYLOAD_KINDS = frozenset({"transient", "hard"})
"""The kinds that serve an injected failure payload; the others serve what was recorded."""

GRID_HEIGHT = 432
"""The table's viewport at most (18 rows); a shorter task gets a shorter table."""


def kind_note(kind: str) -> str:
    return KIND_NOTES.get(kind, f"a {kind} fault (workbench.apply_faults)")


def _entries(suite: Suite, task_id: str) -> list[Mapping[str, Any]]:
    if not task_id:
        return []
    found = (suite.task(task_id).get("fixtures") or {}).get("toolResponses")
    return found if isinstance(found, list) else []


class BoundaryPanel:
    """The boundary table of the picked task; fault kinds, payloads, undo, reset."""

    def __init__(self, wb: WorkbenchState) -> None:
        self._wb = wb
        self.journal = EditJournal(Suite(wb.suite.data))
        """The edits made here, each undoable alone."""
        self._handed: Any = None
        self._versions: dict[int, int] = {}
        self._task = ""
        self._recorded = 0
        self.grid = BoundaryGrid(
            kinds=list(EDIT_KINDS), kind_notes={k: kind_note(k) for k in EDIT_KINDS}
        )
        self.grid.add_class("wb-boundary-table")
        self.grid.on_edit = self._grid_edit
        self.grid.on_detail = self.detail
        self.summary = w.HTML()
        self.summary.add_class("wb-boundary-summary")

        self.boundary = w.BoundedIntText(value=0, min=0, max=0, description="boundary")
        self.kind = w.Dropdown(options=EDIT_KINDS, value="transient", description="fault")
        self.kind.add_class("wb-fault-kind")
        self.repeats = w.BoundedIntText(value=3, min=0, max=100, description="hard repeats")
        self.payload = PayloadEditor()
        self.payload_note = w.HTML()
        self.payload_note.add_class("wb-payload-note")
        self.inject_button = w.Button(description="Inject fault", icon="bolt")
        self.inject_button.add_class("wb-inject-button")
        self.inject_button.add_class("wb-btn-primary")
        self.inject_button.on_click(lambda _b: self.inject())
        self.undo_button = w.Button(description="Undo last edit", icon="undo", disabled=True)
        self.undo_button.add_class("wb-undo-button")
        self.undo_button.on_click(lambda _b: self.undo_last())
        self.reset_button = w.Button(description="Reset to loaded", icon="refresh")
        self.reset_button.add_class("wb-reset-button")
        self.reset_button.on_click(lambda _b: self._wb.reset())
        self.message = w.HTML()
        self.message.add_class("wb-boundary-message")
        self.kind.observe(lambda _c: self._show_kind(), names="value")
        form = w.VBox(
            [
                w.HBox([self.boundary, self.kind, self.repeats]),
                self.payload.widget,
                self.payload_note,
                w.HBox([self.inject_button, self.undo_button, self.reset_button]),
                self.message,
            ],
            layout=w.Layout(padding="4px", margin="6px 0 0 0"),
        )
        form.add_class("wb-fault-form")
        self.widget = w.VBox([self.summary, self.grid, form])
        self.widget.add_class("wb-boundaries")
        self._show_kind()

    # -- reading --------------------------------------------------------------------------------

    @property
    def task_id(self) -> str:
        """The task shown."""
        return self._task

    def entries(self) -> tuple[Mapping[str, Any], ...]:
        """The shown task's fixture entries in the held suite (edits included)."""
        return tuple(_entries(self._wb.suite, self._task)) if self._task else ()

    @property
    def edits(self) -> tuple[Edit, ...]:
        """Every edit made here, in order (all tasks)."""
        return self.journal.edits

    def row(self, index: int) -> dict[str, Any]:
        """The table row of a boundary, as the browser has it."""
        row: dict[str, Any] = self.grid.rows[index]
        return row

    # -- showing --------------------------------------------------------------------------------

    def reload(self) -> None:
        """A new suite: edits start again from it."""
        # A Suite of its own over the same JSON (the held Suite object takes each edit's data;
        # the edits are copy-on-write, so the base's JSON is never changed).
        self.journal.rebase(Suite(self._wb.suite.data))
        self._handed = None
        self.show_task(self._wb.task_id, force=True)

    def show_task(self, task_id: str, *, force: bool = False) -> None:
        """Show a task's boundaries."""
        if task_id == self._task and not force:
            return
        self._task = task_id
        self._versions = {}
        base = _entries(self.journal.base, task_id)
        self._recorded = sum(1 for e in base if isinstance(e, Mapping) and e.get("isError") is True)
        with self.grid.hold_sync():
            self.grid.selected = -1
            self.grid.height = fit_height(len(base), GRID_HEIGHT)
            self.grid.load([self._row(i, entry) for i, entry in enumerate(base)])
        self.boundary.max = max(0, len(base) - 1)
        self._show_summary()

    def refresh(self) -> None:
        """The held suite changed: our own edit (rows already patched), or a change made from
        Python, which the edits start again from."""
        if self._wb.suite.data is self._handed:
            return
        changed_outside = len(self.journal) > 0
        self.reload()
        if changed_outside:
            self._say(
                "the suite was set from Python: the edits listed before are part of it now, "
                "and new edits start from it",
                ok=True,
            )

    def clear_messages(self) -> None:
        """Empty every message of the part."""
        self.message.value = ""

    def _row(self, index: int, entry: Mapping[str, Any]) -> dict[str, Any]:
        edit = self.journal.get(self._task, index) if self._task else None
        served: Sequence[Mapping[str, Any]] = (
            self.journal.served(self._task, index) if edit is not None else (entry,)
        )
        first = served[0] if served else entry
        return {
            "i": index,
            "tool": str(entry.get("tool", "")),
            "args": shorten(json_text(entry["args"]), 160) if "args" in entry else "(any args)",
            "result": result_preview(entry.get("response"), 200),
            "rec": entry.get("isError") is True,
            "err": isinstance(first, Mapping) and first.get("isError") is True,
            "kind": edit.kind if edit is not None else "",
            "note": self._edit_note(edit, served) if edit is not None else "",
            "v": self._versions.get(index, 0),
        }

    @staticmethod
    def _edit_note(edit: Edit, served: Sequence[Mapping[str, Any]]) -> str:
        count = len(served)
        failing = sum(1 for e in served if e.get("isError") is True)
        what = f"{count} entr{'y' if count == 1 else 'ies'} served in its place, {failing} failing"
        return f"edited: {edit.kind} ({kind_note(edit.kind)}); {what}"

    def _patch(self, indexes: Sequence[int]) -> None:
        base = _entries(self.journal.base, self._task)
        rows = []
        for index in indexes:
            if 0 <= index < len(base):
                self._versions[index] = self._versions.get(index, 0) + 1
                rows.append(self._row(index, base[index]))
        self.grid.patch(rows)
        self._show_summary()

    def _show_summary(self) -> None:
        base = _entries(self.journal.base, self._task)
        recorded = self._recorded
        kinds = self.journal.kinds(self._task)
        listed = ", ".join(f"b{b} {k}" for b, k in sorted(kinds.items())[:12])
        more = f" and {len(kinds) - 12} more" if len(kinds) > 12 else ""
        edits = (
            f" &middot; <b>{len(kinds)}</b> edit(s): {esc(listed)}{more}"
            if kinds
            else " &middot; no edits"
        )
        self.summary.value = (
            f'<span class="wb-note"><b>{len(base):,}</b> boundaries, <b>{recorded}</b> recorded '
            f"failure(s){edits}</span>"
        )
        self.undo_button.disabled = len(self.journal) == 0

    def _show_kind(self) -> None:
        kind = str(self.kind.value)
        uses_payload = kind in PAYLOAD_KINDS
        self.payload.set_enabled(uses_payload)
        self.repeats.layout.display = None if kind == "hard" else "none"
        if uses_payload:
            note = f"{kind}: {kind_note(kind)}; the failure serves the payload above"
        elif kind == FLIP:
            note = (
                "flip keeps the recorded payload: the recorded response is served as the error, "
                "so the payload above is not used"
            )
        else:
            note = f"{kind}: {kind_note(kind)}; the payload above is not used"
        self.payload_note.value = f'<span class="wb-note">{esc(note)}</span>'

    # -- edits (one library call each, through the journal) -------------------------------------

    def _apply(self, op: str, index: int, kind: str | None = None) -> None:
        """Make one edit; raises what the library raises (the suite is then unchanged)."""
        task = self._task
        if not task:
            raise ValueError("no task to edit: load a run or a suite first")
        count = len(_entries(self.journal.base, task))
        if not 0 <= index < count:
            raise ValueError(f"boundary {index} out of range (0..{count - 1})")
        current = self.journal.get(task, index)
        if op == "flip":
            if current is None:
                self.journal.set(task, index, FLIP)
                done = f"flipped boundary {index}"
            elif current.kind == FLIP:
                self.journal.undo(task, index)
                done = f"undid the flip of boundary {index}"
            else:
                raise ValueError(
                    f"boundary {index} is edited ({current.kind}): undo that edit to flip it"
                )
        elif op == "set" and kind:
            payload = self.payload.payload() if kind in PAYLOAD_KINDS else None
            self.journal.set(
                task, index, kind, payload=payload, hard_repeats=int(self.repeats.value)
            )
            done = f"{kind} at boundary {index}"
        elif op == "undo":
            if current is None:
                raise ValueError(f"boundary {index} has no edit to undo")
            self.journal.undo(task, index)
            done = f"undid {current.kind} at boundary {index}"
        else:
            raise ValueError(f"unknown edit {op!r}")
        self._commit([index])
        self._say(done, ok=True)

    def _grid_edit(self, op: str, index: int, kind: str | None) -> Sequence[int]:
        try:
            self._apply(op, index, kind)
        except Exception as exc:
            self._say(str(exc), ok=False)
            raise
        return [index]

    def _commit(self, changed: Sequence[int]) -> None:
        built = self.journal.suite()
        held = self._wb.suite.data
        # Root members set from a cell (suite id, version) stay, in their order (R42: suites
        # keep member order, so undoing every edit gives back the same bytes); the tasks are the
        # journal's.
        data = dict(held)
        data["tasks"] = built.data["tasks"]
        new = Suite(data)
        self._handed = new.data
        self._wb.edit(new)
        self._patch(changed)

    def flip(self, index: int) -> None:
        """Flip boundary ``index``'s isError (``toggle_error``), or undo its flip."""
        self._guard("flip", int(index))

    def set_edit(self, index: int, kind: str) -> None:
        """Make ``kind`` the edit of boundary ``index`` (``flip`` or a fault kind)."""
        self._guard("set", int(index), kind)

    def inject(self) -> None:
        """The form's fault kind at the form's boundary (with the form's payload)."""
        self.set_edit(int(self.boundary.value), str(self.kind.value))

    def undo(self, index: int) -> None:
        """Undo boundary ``index``'s edit (the others stay)."""
        self._guard("undo", int(index))

    def undo_last(self) -> Edit | None:
        """Undo the edit made last; the edit undone."""
        edits = self.journal.edits
        if not edits:
            self._say("no edit to undo", ok=False)
            return None
        last = edits[-1]
        if last.task_id != self._task:
            self._wb.show_task(last.task_id)
        self._guard("undo", last.boundary)
        return last

    def _guard(self, op: str, index: int, kind: str | None = None) -> None:
        try:
            self._apply(op, index, kind)
        except Exception as exc:  # shown in place; the suite is unchanged
            self._say(str(exc), ok=False)

    def _say(self, text: str, *, ok: bool) -> None:
        cls = "wb-ok" if ok else "wb-error"
        self.message.value = f'<span class="{cls}">{esc(text)}</span>'

    # -- the full view of a call ----------------------------------------------------------------

    def detail(self, index: int) -> tuple[str, list[tuple[str, str]]]:
        """A boundary's title and its full args, recorded result and what is served now."""
        base = _entries(self.journal.base, self._task)
        entry = base[index]
        edit = self.journal.get(self._task, index)
        recorded = "recorded failure" if entry.get("isError") is True else "recorded success"
        title = f"boundary {index} \u00b7 {entry.get('tool', '')} \u00b7 {recorded}"
        parts = [
            ("args", pretty(entry["args"]) if "args" in entry else "(any args)"),
            ("recorded result", pretty(entry.get("response"))),
        ]
        text = result_text(entry.get("response"))
        if text is not None:
            parts.insert(2, ("its text, as the agent reads it", pretty(text)))
        if edit is not None:
            title += f" \u00b7 edited: {edit.kind}"
            served = self.journal.served(self._task, index)
            parts.append((f"served now ({len(served)} entries)", pretty(list(served))))
        return title, parts
