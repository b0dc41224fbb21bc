"""Two trajectories aligned on their calls, for diffs that line up (SPEC R33, R17).

``align_trajectories`` is the one alignment every view uses (the Replay and Sweep tabs' diff):
an inserted retry is one inserted row, the steps after it line up again, and any two
trajectories can be compared. Properties are checked with Hypothesis against the rules the
docstring states; a few hand-made cases pin the rows a reader sees.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import ALIGN_OPS, AlignedStep, Step, align_trajectories, divergence


def step(tool: str, args: str = "{}", failed: bool = False) -> Step:
    return Step(tool, args, failed, error="boom" if failed else "")


def ops(rows: Sequence[AlignedStep]) -> list[str]:
    return [r.op for r in rows]


steps = st.builds(
    step,
    st.sampled_from(["a", "b", "c", "d"]),
    st.sampled_from(["{}", '{"id":1}', '{"id":2}']),
    st.booleans(),
)
trajectories = st.lists(steps, max_size=14)


def test_an_inserted_retry_is_one_added_row_and_the_rest_lines_up() -> None:
    """The diff of ``a > b! > b > c`` against ``a > b > c``: one added row (the failed first
    try), every other step the same; by position every later row would look changed."""
    base = [step("a"), step("b"), step("c")]
    retried = [step("a"), step("b", failed=True), step("b"), step("c")]
    rows = align_trajectories(base, retried)
    assert ops(rows) == ["same", "added", "same", "same"]
    assert rows[1] == AlignedStep("added", None, 1)
    assert rows[2] == AlignedStep("same", 1, 2)


def test_the_same_call_failing_is_changed_and_steps_not_made_are_removed() -> None:
    """A flipped call that the agent retries once and then gives up on: the flipped call is
    ``changed`` (same tool and args, R17 failure), the retry ``added``, the baseline's calls the
    variant never made ``removed``."""
    base = [step("a"), step("b"), step("c"), step("d")]
    flipped = [step("a"), step("b", failed=True), step("b", failed=True)]
    rows = align_trajectories(base, flipped)
    assert ops(rows) == ["same", "changed", "added", "removed", "removed"]
    assert [(r.left, r.right) for r in rows] == [(0, 0), (1, 1), (None, 2), (2, None), (3, None)]


def test_different_args_are_different_calls() -> None:
    """R12: a call is its tool and args; the same tool with other args is not ``changed``."""
    rows = align_trajectories([step("a", '{"id":1}')], [step("a", '{"id":2}')])
    assert ops(rows) == ["added", "removed"]


def test_a_long_identical_prefix_costs_little() -> None:
    """A 10,000-step trajectory against itself with one retry inserted at step 5,000."""
    base = [step(f"t{i % 7}", f'{{"id":{i}}}') for i in range(10_000)]
    variant = [*base[:5000], step(base[5000].tool, base[5000].args_json, True), *base[5000:]]
    rows = align_trajectories(base, variant)
    assert [r for r in rows if r.op != "same"] == [AlignedStep("added", None, 5000)]


@settings(max_examples=300, deadline=None)
@given(trajectories, trajectories)
def test_every_step_of_each_side_appears_once_in_order(left: list[Step], right: list[Step]) -> None:
    """Any two trajectories: the rows cover each side's steps exactly once, in order, and each
    row's op agrees with what it pairs."""
    rows = align_trajectories(left, right)
    assert [r.left for r in rows if r.left is not None] == list(range(len(left)))
    assert [r.right for r in rows if r.right is not None] == list(range(len(right)))
    for row in rows:
        assert row.op in ALIGN_OPS
        if row.op == "same":
            assert row.left is not None and row.right is not None
            assert left[row.left].key == right[row.right].key
        elif row.op == "changed":
            assert row.left is not None and row.right is not None
            assert left[row.left].call == right[row.right].call
            assert left[row.left].key != right[row.right].key
        elif row.op == "added":
            assert row.left is None and row.right is not None
        else:
            assert row.right is None and row.left is not None


@settings(max_examples=300, deadline=None)
@given(trajectories, trajectories)
def test_the_first_row_not_the_same_is_the_divergence_step(
    left: list[Step], right: list[Step]
) -> None:
    """R33: the alignment and ``divergence`` agree on where two trajectories part."""
    rows = align_trajectories(left, right)
    first = next((k for k, r in enumerate(rows) if r.op != "same"), None)
    assert first == divergence(left, right)


@settings(max_examples=200, deadline=None)
@given(trajectories, st.data())
def test_a_retry_inserted_anywhere_is_exactly_one_added_row(
    base: list[Step], data: st.DataObject
) -> None:
    """Insert a failed copy of any step before it (what a transient fault and one retry do):
    the diff is one ``added`` row, everything else ``same``."""
    if not base:
        return
    at = data.draw(st.integers(0, len(base) - 1))
    target = base[at]
    retried = [*base[:at], step(target.tool, target.args_json, True), *base[at:]]
    rows = align_trajectories(base, retried)
    assert ops(rows).count("added") == 1
    assert all(op in ("same", "added") for op in ops(rows))


@given(trajectories)
def test_a_trajectory_against_itself_is_all_same(steps_: list[Step]) -> None:
    rows = align_trajectories(steps_, list(steps_))
    assert ops(rows) == ["same"] * len(steps_)
