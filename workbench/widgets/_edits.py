"""The edits made in the Boundaries tab: at most one per boundary, each undoable on its own.

An edit is one library call on a boundary of the suite the edits start from (the *base*: the
suite as loaded, or as a cell last set it): ``flip`` is :func:`workbench.toggle_error`, every
other kind is :func:`workbench.apply_faults` with one :class:`~workbench.Fault` (the kinds are
:data:`workbench.FAULT_KINDS`, so kinds the library adds appear here by themselves). The held
suite is the base with every edit applied, highest boundary first, so a fault that inserts
entries never moves a lower boundary; undoing one edit rebuilds the suite from the base with
the others. Boundaries are always the base's indexes, so sorting, filtering or another edit can
never send a change to the wrong row.

Nothing here decides what a fault does: that is the library's (R32, R39).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench import Fault, Suite, apply_faults, toggle_error

__all__ = ["Edit", "EditJournal"]

FLIP = "flip"


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit of one boundary."""

    task_id: str
    """The task."""
    boundary: int
    """The boundary's index in the base suite's task."""
    kind: str
    """``flip`` (``toggle_error``) or a fault kind (``apply_faults``)."""
    payload: Mapping[str, Any] | None = None
    """What an injected failure serves (``None``: the library's default; unused by ``flip``)."""
    hard_repeats: int = 3
    """The failing copies a ``hard`` fault adds after the entry."""
    seq: int = 0
    """The order edits were made in (for undoing the last one)."""


@dataclass(slots=True)
class _Built:
    suite: Suite
    offsets: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    """(task, boundary) -> (position of the boundary's first entry in the built task, how many
    entries the edit put in its place)."""


class EditJournal:
    """The edits of one base suite."""

    def __init__(self, base: Suite) -> None:
        self._base = base
        self._edits: dict[tuple[str, int], Edit] = {}
        self._seq = 0
        self._built: _Built | None = None

    @property
    def base(self) -> Suite:
        """The suite the edits start from."""
        return self._base

    @property
    def edits(self) -> tuple[Edit, ...]:
        """The edits, in the order they were made."""
        return tuple(sorted(self._edits.values(), key=lambda e: e.seq))

    def __len__(self) -> int:
        return len(self._edits)

    def get(self, task_id: str, boundary: int) -> Edit | None:
        """The edit of a boundary, if any."""
        return self._edits.get((task_id, boundary))

    def kinds(self, task_id: str) -> dict[int, str]:
        """Boundary -> edit kind, for one task."""
        return {b: e.kind for (t, b), e in self._edits.items() if t == task_id}

    # -- changing ------------------------------------------------------------------------------

    def rebase(self, base: Suite) -> None:
        """Start again from ``base`` with no edits (a cell set the suite, or Reset)."""
        self._base = base
        self._edits.clear()
        self._built = None

    def set(
        self,
        task_id: str,
        boundary: int,
        kind: str,
        *,
        payload: Mapping[str, Any] | None = None,
        hard_repeats: int = 3,
    ) -> Suite:
        """Make ``kind`` the edit of the boundary (replacing its previous edit); the new suite.

        Raises what the library raises (an unknown task, a boundary out of range, an unknown
        kind, a bad payload); the journal is then unchanged.
        """
        key = (task_id, int(boundary))
        self._seq += 1
        edit = Edit(task_id, int(boundary), kind, payload, int(hard_repeats), self._seq)
        before = self._edits.get(key)
        self._edits[key] = edit
        self._built = None
        try:
            return self.suite()
        except Exception:
            if before is None:
                del self._edits[key]
            else:
                self._edits[key] = before
            self._built = None
            raise

    def undo(self, task_id: str, boundary: int) -> Suite:
        """Remove the boundary's edit (the others stay); the new suite."""
        if self._edits.pop((task_id, int(boundary)), None) is not None:
            self._built = None
        return self.suite()

    def undo_last(self) -> Edit | None:
        """Remove the edit made last; the edit removed (``None``: there was none)."""
        if not self._edits:
            return None
        last = max(self._edits.values(), key=lambda e: e.seq)
        self.undo(last.task_id, last.boundary)
        return last

    # -- the suite -----------------------------------------------------------------------------

    def suite(self) -> Suite:
        """The base with every edit applied (the same object until the edits change)."""
        if self._built is None:
            self._built = self._build(self._edits.values())
        return self._built.suite

    def served(self, task_id: str, boundary: int) -> Sequence[Mapping[str, Any]]:
        """The entries the held suite has in place of a boundary (one, unless a fault added
        more)."""
        self.suite()
        assert self._built is not None
        task = self._built.suite.task(task_id)
        entries = (task.get("fixtures") or {}).get("toolResponses") or []
        found = self._built.offsets.get((task_id, boundary))
        if found is None:
            shift = sum(
                n - 1
                for (t, b), (_s, n) in self._built.offsets.items()
                if t == task_id and b < boundary
            )
            found = (boundary + shift, 1)
        start, count = found
        return tuple(entries[start : start + count])

    def _build(self, edits: Iterable[Edit]) -> _Built:
        suite = self._base
        counts: dict[tuple[str, int], int] = {}
        # Highest boundary first: an inserted entry never moves a boundary still to be edited.
        for edit in sorted(edits, key=lambda e: (e.task_id, -e.boundary)):
            before = _entry_count(suite, edit.task_id)
            if edit.kind == FLIP:
                suite = toggle_error(suite, edit.task_id, edit.boundary)
            else:
                fault = Fault(edit.task_id, edit.boundary, edit.kind)  # type: ignore[arg-type]
                suite = apply_faults(
                    suite, [fault], hard_repeats=edit.hard_repeats, payload=edit.payload
                )
            counts[(edit.task_id, edit.boundary)] = 1 + _entry_count(suite, edit.task_id) - before
        offsets: dict[tuple[str, int], tuple[int, int]] = {}
        shift: dict[str, int] = {}
        for (task_id, boundary), count in sorted(counts.items()):
            offsets[(task_id, boundary)] = (boundary + shift.get(task_id, 0), count)
            shift[task_id] = shift.get(task_id, 0) + count - 1
        return _Built(suite, offsets)


def _entry_count(suite: Suite, task_id: str) -> int:
    entries = (suite.task(task_id).get("fixtures") or {}).get("toolResponses")
    return len(entries) if isinstance(entries, list) else 0
