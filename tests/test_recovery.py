"""Triggered and recovered on hand-built suites, and the Wilson figures (SPEC R37, R38, R39).

R37: a variant-trial is triggered when the agent was served a result the baseline trial was not;
a fault on a recorded failure, or on a call the agent never made, is untriggered, has no
``recovered`` value and is left out of every rate. R38: a triggered variant-trial that passes
recovered; rates carry counts and a Wilson 95% interval, checked here against scipy's.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, cast

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from helpers.suites import entry, scripted_task, suite_of
from workbench import ErrorRule, RecoveryFigure, Suite, promote, sweep, wilson_interval
from workbench._load.loader import load_runs

ROOT = Path(__file__).resolve().parents[1]
ALL_KINDS = ("hard", "transient", "flip", "empty", "truncated")


def recorded_failure_suite() -> Suite:
    """a ok (retry once), b recorded as failed (skip: the recording went on), c ok."""
    steps = [
        {"tool": "a", "args": {}, "onError": {"retry": 1}},
        {"tool": "b", "args": {}, "onError": "skip"},
        {"tool": "c", "args": {}, "onError": {"retry": 1}},
    ]
    entries = [entry("a"), entry("b", error=True, text="recorded failure"), entry("c")]
    return suite_of(scripted_task("t", steps, entries))


def row(frame: pd.DataFrame, variant: str) -> dict[str, Any]:
    found = frame[frame["variant"] == variant]
    assert len(found) == 1, variant
    return {str(k): v for k, v in found.iloc[0].to_dict().items()}


def test_a_fault_on_a_recorded_failure_is_untriggered() -> None:
    """R37: every kind on boundary 1 (recorded isError, policy skip) serves the recorded failure:
    untriggered, recovered empty, and out of the rate."""
    result = sweep(recorded_failure_suite(), kinds=ALL_KINDS, progress=False)
    for kind in ALL_KINDS:
        got = row(result.frame, f"b01-{kind}")
        assert got["triggered"] is False, kind
        assert pd.isna(got["recovered"]), kind
        assert got["passed"] is True, kind  # it passes, and that is not a recovery
    table = result.per_boundary()
    at_b1 = table[table["boundary"] == 1]
    assert set(at_b1["triggered"]) == {0}
    assert set(at_b1["untriggered"]) == {1}
    assert at_b1["recoveryRate"].isna().all()
    assert at_b1["low95"].isna().all() and at_b1["high95"].isna().all()


def test_a_fault_on_a_call_never_made_is_untriggered() -> None:
    """R37: the script stops at a failed call (abort), so the last boundary is never called."""
    steps = [{"tool": "a", "args": {}, "onError": "abort"}, {"tool": "b", "args": {}}]
    entries = [entry("a"), entry("b"), entry("c")]  # c: recorded, never called by the script
    suite = suite_of(scripted_task("t", steps, entries))
    result = sweep(suite, kinds=("hard", "flip"), progress=False)
    for kind in ("hard", "flip"):
        got = row(result.frame, f"b02-{kind}")
        assert got["triggered"] is False and pd.isna(got["recovered"])
        # a fault on a: the abort policy gives up, triggered and not recovered.
        first = row(result.frame, f"b00-{kind}")
        assert first["triggered"] is True and first["recovered"] is False


def test_a_triggered_variant_that_passes_recovered() -> None:
    """R38: a transient fault on a (retry once) is served, the retry gets the recording's
    answer, the task passes: triggered and recovered; the hard one exhausts the retry."""
    result = sweep(recorded_failure_suite(), kinds=("hard", "transient"), progress=False)
    transient = row(result.frame, "b00-transient")
    assert transient["triggered"] is True and transient["recovered"] is True
    hard = row(result.frame, "b00-hard")
    assert hard["triggered"] is True and hard["recovered"] is False
    overall = result.overall()
    # b00 and b02 are triggered (hard and transient each), b01's two are not.
    assert (overall.variant_trials, overall.triggered, overall.untriggered) == (6, 4, 2)
    assert overall.recovered == 2 and overall.rate == 0.5


def test_silent_faults_are_served_as_successes_the_scripted_agent_cannot_notice() -> None:
    """R39: empty and truncated are triggered (the content differs) but the scripted agent reads
    only isError, so it goes on and the task still passes: recovered, by not noticing."""
    result = sweep(recorded_failure_suite(), kinds=("empty", "truncated"), progress=False)
    for name in ("b00-empty", "b00-truncated", "b02-empty", "b02-truncated"):
        got = row(result.frame, name)
        assert got["triggered"] is True and got["recovered"] is True
        assert got["errorsServed"] == 1  # only the recorded failure at b
    served = result.steps[("b00-truncated", "t", 0)]
    assert [s.is_error for s in served] == [False, True, False]


def test_truncated_cuts_text_to_half_and_empty_serves_no_content() -> None:
    """R39: the variant entries hold the cut text and the empty content."""
    from workbench import Fault, inject

    suite = suite_of(scripted_task("t", [{"tool": "a"}], [entry("a", text="abcdefgh")]))
    cut = inject(suite, [Fault("t", 0, "truncated")]).tasks[0]["fixtures"]["toolResponses"][0]
    assert cut["response"] == {"content": [{"type": "text", "text": "abcd"}]}
    assert "isError" not in cut
    empty = inject(suite, [Fault("t", 0, "empty")]).tasks[0]["fixtures"]["toolResponses"][0]
    assert empty["response"] == {"content": []}


def test_recovery_rates_leave_untriggered_trials_out_at_every_level() -> None:
    """R38: recovery() figures per boundary, per task and overall count triggered trials only."""
    result = sweep(recorded_failure_suite(), kinds=("hard", "transient"), trials=2, progress=False)
    table = result.recovery()
    overall = table[table["level"] == "overall"].iloc[0]
    assert (overall["variantTrials"], overall["triggered"], overall["untriggered"]) == (12, 8, 4)
    assert overall["recovered"] == 4 and overall["recoveryRate"] == 0.5
    task = table[table["level"] == "task"].iloc[0]
    assert task["triggered"] == 8
    boundary = table[(table["level"] == "boundary") & (table["boundary"] == 1)]
    assert set(boundary["triggered"]) == {0} and boundary["recoveryRate"].isna().all()
    low, high = wilson_interval(4, 8)
    assert overall["low95"] == pytest.approx(low) and overall["high95"] == pytest.approx(high)


def test_tau_bench_headline_counts_only_triggered_faults() -> None:
    """The demo's tau-bench record: faults on its recorded failures are untriggered, so the
    headline rate is over the triggered variant-trials (not 25/40 as when every passing
    variant counted)."""
    path = ROOT / "fixtures" / "tau-bench" / "tau-bench-airline-task-3-trial-0.json"
    suite = promote(load_runs(path, error_rule=ErrorRule.prefix("Error:"))).suite
    result = sweep(suite, progress=False)
    frame = result.frame[result.frame["variant"] != "baseline"]
    recorded = {
        i
        for i, e in enumerate(suite.tasks[0]["fixtures"]["toolResponses"])
        if e.get("isError") is True
    }
    assert recorded, "the record has recorded failures"
    for r in frame.itertuples(index=False):
        if int(str(r.boundaries)) in recorded:
            assert not r.triggered and pd.isna(cast(Any, r.recovered))
    figure = result.overall()
    assert figure.untriggered == 2 * len(recorded)
    assert figure.rate == figure.recovered / figure.triggered


@given(n=st.integers(1, 400), data=st.data())
def test_wilson_interval_matches_scipy(n: int, data: st.DataObject) -> None:
    """R38: the Wilson 95% interval equals scipy's binomtest(...).proportion_ci('wilson')."""
    k = data.draw(st.integers(0, n))
    low, high = wilson_interval(k, n)
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert low == pytest.approx(ci.low, abs=1e-12)
    assert high == pytest.approx(ci.high, abs=1e-12)


def test_wilson_interval_of_nothing_is_undefined() -> None:
    """No triggered trials: no rate and no interval (shown as empty, never as 0%)."""
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    figure = RecoveryFigure(variant_trials=3, triggered=0, recovered=0)
    assert math.isnan(figure.rate) and figure.untriggered == 3
    assert figure.to_json()["recoveryRate"] is None
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), max_size=60))
def test_needs_model_trials_are_in_no_count_but_their_own(
    trials: list[tuple[bool, bool, bool]],
) -> None:
    """R38 with R41: a needs-model variant-trial is neither triggered, untriggered nor
    recovered; the rate is over the decided triggered ones, computed here independently."""
    from workbench._grade.recovery import recovery_figure

    figure = recovery_figure(trials)
    decided = [(t, p) for t, p, needs in trials if not needs]
    fired = [p for t, p in decided if t]
    assert figure.variant_trials == len(trials)
    assert figure.needs_model == len(trials) - len(decided)
    assert (figure.triggered, figure.recovered) == (len(fired), sum(fired))
    assert figure.untriggered == len(decided) - len(fired)
    assert figure.to_json()["needsModel"] == figure.needs_model
    if fired:
        assert figure.rate == sum(fired) / len(fired)
    else:
        assert math.isnan(figure.rate)
