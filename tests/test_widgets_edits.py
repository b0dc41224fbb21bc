"""The Boundaries tab's edits: one per boundary, each undoable alone (SPEC R32).

Whatever edits are made and undone, in whatever order, the held suite is what the library makes
of the edits left: ``toggle_error`` for a flip, ``apply_faults`` for a fault kind, applied to the
base suite. And ``served`` finds the entries an edit put in its boundary's place.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import FAULT_KINDS, Fault, Suite, apply_faults, load_runs, promote, toggle_error
from workbench.widgets._edits import EditJournal

BILLING = Path(__file__).resolve().parents[1] / "fixtures" / "billing-support.openwop.jsonl"
BASE = promote(load_runs(BILLING)).suite
TASK = str(BASE.tasks[0]["taskId"])
COUNT = len(BASE.tasks[0]["fixtures"]["toolResponses"])

actions = st.lists(
    st.tuples(
        st.sampled_from(["set", "undo"]),
        st.integers(0, COUNT - 1),
        st.sampled_from(("flip", *FAULT_KINDS)),
    ),
    max_size=12,
)


def by_library(base: Suite, edits: dict[int, str]) -> Suite:
    suite = base
    for boundary in sorted(edits, reverse=True):
        kind = edits[boundary]
        if kind == "flip":
            suite = toggle_error(suite, TASK, boundary)
        else:
            suite = apply_faults(suite, [Fault(TASK, boundary, kind)])  # type: ignore[arg-type]
    return suite


@settings(max_examples=80, deadline=None)
@given(actions)
def test_the_suite_is_the_library_applied_to_the_edits_left(
    steps: list[tuple[str, int, str]],
) -> None:
    journal = EditJournal(BASE)
    expected: dict[int, str] = {}
    for op, boundary, kind in steps:
        if op == "set":
            journal.set(TASK, boundary, kind)
            expected[boundary] = kind
        else:
            journal.undo(TASK, boundary)
            expected.pop(boundary, None)
    assert journal.kinds(TASK) == expected
    assert journal.suite() == by_library(BASE, expected)
    built = journal.suite().tasks[0]["fixtures"]["toolResponses"]
    # Every boundary's entries, in order, make up the whole edited list.
    served = [e for b in range(COUNT) for e in journal.served(TASK, b)]
    assert served == built
    assert BASE.to_json() == promote(load_runs(BILLING)).suite.to_json()  # never edited in place


def test_undo_last_undoes_the_latest_edit_whatever_its_boundary() -> None:
    journal = EditJournal(BASE)
    journal.set(TASK, 8, "hard")
    journal.set(TASK, 2, "transient")
    journal.set(TASK, 5, "flip")
    assert [e.boundary for e in journal.edits] == [8, 2, 5]
    last = journal.undo_last()
    assert last is not None and last.boundary == 5
    last = journal.undo_last()
    assert last is not None and last.boundary == 2
    assert journal.kinds(TASK) == {8: "hard"}


def test_a_refused_edit_leaves_the_journal_as_it_was() -> None:
    journal = EditJournal(BASE)
    journal.set(TASK, 1, "flip")
    before = journal.suite()
    try:
        journal.set(TASK, 1, "no-such-kind")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown kind was accepted")
    assert journal.kinds(TASK) == {1: "flip"}
    assert journal.suite() == before
