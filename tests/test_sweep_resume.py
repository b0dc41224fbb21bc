"""A sweep that resumes variant-trials from the baseline's prefix and takes the baseline's rest
once they rejoin gives exactly what replaying every variant in full gives (SPEC R32, R33, R37).

The full replay is forced with an agent that is a subclass of the scripted agent (the resumable
path is taken only for the scripted agent itself), so both sides run the same policies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from helpers.suites import entry, scripted_task, suite_of
from workbench import ErrorRule, ScriptedAgent, Suite, promote, sweep
from workbench._load.loader import load_runs

ROOT = Path(__file__).resolve().parents[1]


class FullReplay(ScriptedAgent):
    """The scripted agent, replayed from the first call for every variant."""


def assert_same(suite: Suite, **options: Any) -> None:
    fast = sweep(suite, progress=False, **options)
    full = sweep(suite, progress=False, agent=FullReplay(), **options)
    pd.testing.assert_frame_equal(fast.frame, full.frame)
    assert dict(fast.steps.items()) == dict(full.steps.items())
    pd.testing.assert_frame_equal(fast.branches(), full.branches())


def test_resumed_billing_sweep_equals_full_replay() -> None:
    """The bundled billing run: every kind, two trials."""
    suite = promote(load_runs(ROOT / "fixtures" / "billing-support.openwop.jsonl")).suite
    assert_same(suite, kinds=("hard", "transient", "flip", "empty", "truncated"), trials=2)


def test_resumed_tau_bench_pairs_equal_full_replay() -> None:
    """The tau-bench record (recorded failures), pairs of hard faults."""
    path = ROOT / "fixtures" / "tau-bench" / "tau-bench-airline-task-3-trial-0.json"
    suite = promote(load_runs(path, error_rule=ErrorRule.prefix("Error:"))).suite
    assert_same(suite, faults="pairs", kinds=("hard",))


TOOLS = ("a", "b", "c")
POLICIES: list[Any] = [
    "abort",
    "skip",
    {"retry": 1},
    {"retry": 2, "then": "skip"},
    {"fallback": {"tool": "c", "args": {"n": 0}}, "then": "skip"},
    {"escalate": {"tool": "handoff"}},
    {"choose": [{"p": 0.5, "policy": "skip"}, {"p": 0.5, "policy": {"retry": 1}}]},
]


@st.composite
def scripted_suites(draw: st.DrawFn) -> Suite:
    """A scripted task whose fixtures may hold recorded failures, duplicates, unused entries
    and missing ones, under every policy."""
    n = draw(st.integers(1, 7))
    steps = []
    for _ in range(n):
        step: dict[str, Any] = {"tool": draw(st.sampled_from(TOOLS)),
                                "args": {"n": draw(st.integers(0, 2))}}  # fmt: skip
        if draw(st.booleans()):
            step["onError"] = draw(st.sampled_from(POLICIES))
        steps.append(step)
    entries = []
    for step in steps:
        if draw(st.integers(0, 9)) == 0:
            continue  # no entry: a miss
        entries.append(
            entry(
                step["tool"],
                step["args"],
                error=draw(st.integers(0, 3)) == 0,
                text=draw(st.sampled_from(["ok", "fine", "a longer answer"])),
            )
        )
        if draw(st.integers(0, 5)) == 0:  # a second entry for the same call (a retry's answer)
            entries.append(entry(step["tool"], step["args"]))  # fmt: skip
    if draw(st.booleans()):
        entries.append(entry("c", {"n": 0}))
    if draw(st.booleans()):
        entries.append(entry("handoff"))
    if not entries:
        entries.append(entry("a", {"n": 0}))
    mode = draw(st.sampled_from(["superset", "strict", "unordered", None]))
    return suite_of(scripted_task("t", steps, entries, trajectory=mode))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    suite=scripted_suites(),
    faults=st.sampled_from(["single", "pairs"]),
    trials=st.integers(1, 2),
    seed=st.integers(0, 3),
)
def test_resumed_sweeps_equal_full_replays(
    suite: Suite, faults: str, trials: int, seed: int
) -> None:
    """Property: for any scripted task, both ways give the same table, steps and tree. (Pairs
    need two fixture entries: a sweep with nothing to fault is refused, tested elsewhere.)"""
    assume(faults != "pairs" or len(suite.tasks[0]["fixtures"]["toolResponses"]) >= 2)
    assert_same(
        suite,
        faults=faults,
        kinds=("hard", "transient", "flip", "empty", "truncated"),
        trials=trials,
        seed=seed,
    )


def test_a_sweep_of_pairs_over_one_fixture_entry_is_refused_with_nothing_to_sweep() -> None:
    """R37: pairs of one entry are none; the sweep says there is nothing to fault."""
    suite = suite_of(scripted_task("t", [{"tool": "a", "args": {"n": 0}}], [entry("a", {"n": 0})]))
    with pytest.raises(ValueError, match="nothing to sweep"):
        sweep(suite, progress=False, faults="pairs", kinds=("hard",))
