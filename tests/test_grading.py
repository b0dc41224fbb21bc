"""Grading: golden, trajectory, pass@k / pass^k and thresholds (SPEC R26, R27, R28)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench import TrialStats, golden_match, pass_at_k, pass_hat_k, trajectory_match
from workbench._common.canonical import args_match
from workbench._grade.trajectory import trajectory_report
from workbench._grade.trials import (
    aggregate_score,
    pass_k_table,
    suite_passed,
    task_passed,
    trial_stats,
)

# ---------------------------------------------------------------------------------------------
# Golden (R26)


def test_golden_exact_compares_stringified_output() -> None:
    """R26 exact: the stringified output equals the value, stringified the same way."""
    assert golden_match("refund issued", "exact", "refund issued")
    assert not golden_match("refund issued.", "exact", "refund issued")
    assert golden_match(42, "exact", "42")
    assert golden_match({"b": 1, "a": [True]}, "exact", {"a": [True], "b": 1.0})
    assert golden_match({"b": 1, "a": 2}, "exact", '{"a":2,"b":1}')
    assert not golden_match(True, "exact", 1)


def test_golden_contains_looks_for_the_value_in_the_output_text() -> None:
    """R26 contains: the stringified value is a substring of the stringified output."""
    assert golden_match("Your refund of $20 was issued", "contains", "refund")
    assert not golden_match("Your refund was issued", "contains", "Refund")
    assert golden_match({"status": "refunded", "amount": 20}, "contains", "refunded")
    assert golden_match("order 12345 shipped", "contains", 12345)


def test_golden_contains_finds_a_list_element_whatever_its_key_order() -> None:
    """R26 contains, decided: an output list contains a value that json-equals one element."""
    output = [{"a": 1, "b": 2}, {"c": 3}]
    assert golden_match(output, "contains", {"b": 2, "a": 1.0})
    assert not golden_match(output, "contains", {"a": 1})


def test_golden_json_match_ignores_key_order_and_whitespace() -> None:
    """R26 json-match: output JSON-deep-equals the value."""
    assert golden_match({"a": [1, 2], "b": None}, "json-match", {"b": None, "a": [1.0, 2]})
    assert not golden_match({"a": [1, 2]}, "json-match", {"a": [2, 1]})
    assert not golden_match({"a": True}, "json-match", {"a": 1})


def test_golden_json_match_parses_json_text_output() -> None:
    """R26 json-match, decided: a str output that parses as JSON is compared as parsed."""
    assert golden_match('{ "b": 1,\n "a": 2 }', "json-match", {"a": 2, "b": 1})
    assert golden_match("hello", "json-match", "hello")
    assert not golden_match("not json {", "json-match", {"a": 1})
    assert not golden_match("NaN", "json-match", 0)


def test_golden_output_that_is_not_json_matches_nothing() -> None:
    """An agent output that is not a JSON value fails the match instead of crashing grading."""
    assert not golden_match({1, 2}, "exact", "x")
    assert not golden_match(float("nan"), "json-match", 0)


def test_golden_refuses_an_unknown_strategy() -> None:
    """R26: strategies are exact, contains, json-match."""
    with pytest.raises(ValueError, match="golden strategy"):
        golden_match("x", "regex", "x")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Trajectory (R27)


def call(tool: str, args: Any = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": tool, **extra}
    if args is not None:
        out["args"] = args
    return out


def test_strict_needs_same_calls_in_same_order() -> None:
    """R27 strict: the same calls in the same order."""
    expected = [call("search", {"q": "x"}), call("book", {"id": 1})]
    assert trajectory_match(list(expected), expected, "strict")
    assert not trajectory_match(expected[::-1], expected, "strict")
    assert not trajectory_match([*expected, call("book", {"id": 1})], expected, "strict")
    report = trajectory_report([expected[1], expected[0], call("x")], expected, "strict")
    assert report.missing == [0, 1]
    assert report.unexpected == [0, 1, 2]


def test_unordered_is_multiset_equality() -> None:
    """R27 unordered: the same calls as a multiset, counts included."""
    a, b = call("a", {"x": 1}), call("b")
    assert trajectory_match([b, a, a], [a, a, b], "unordered")
    assert not trajectory_match([b, a], [a, a, b], "unordered")
    assert not trajectory_match([b, a, a, a], [a, a, b], "unordered")


def test_subset_means_actual_calls_fit_inside_expected() -> None:
    """R27 subset: every actual call matched to a distinct expected call."""
    a, b, c = call("a", {"x": 1}), call("b", {}), call("c", {})
    assert trajectory_match([b, a], [a, b, c], "subset")
    assert not trajectory_match([a, a], [a, b, c], "subset")  # each expected call used once
    report = trajectory_report([a, c, call("d", {})], [a, b, c], "subset")
    assert not report.matched
    assert report.unexpected == [2]
    assert report.missing == [1]


def test_superset_means_expected_calls_fit_inside_actual() -> None:
    """R27 superset: every expected call matched to a distinct actual call (retries may add)."""
    a, b = call("a", {"x": 1}), call("b", {})
    assert trajectory_match([a, a, b, call("c", {})], [a, b], "superset")
    assert not trajectory_match([a, b], [a, a, b], "superset")  # each actual call used once
    report = trajectory_report([b], [a, b], "superset")
    assert report.missing == [0]
    assert report.unexpected == []


def test_failed_calls_count_in_the_trajectory() -> None:
    """R27: every agent.tool-called counts, failed calls included (isError is not a filter)."""
    expected = [call("charge", {"amount": 5}), call("charge", {"amount": 5})]
    actual = [
        call("charge", {"amount": 5}, isError=True, callId="c1"),
        call("charge", {"amount": 5}, isError=False, callId="c2"),
    ]
    assert trajectory_match(actual, expected, "strict")
    assert trajectory_match(actual, expected, "unordered")
    assert not trajectory_match(actual[1:], expected, "superset")


def test_max_matching_succeeds_where_greedy_subset_args_fails() -> None:
    """R27: where a match needs a choice, a maximum matching decides, never a greedy one.

    Greedy in order would give the first actual call (which the pattern-less expected call could
    also take) to the wildcard, leaving the args pattern {x: 1} with no partner.
    """
    expected = [call("a"), call("a", {"x": 1})]
    actual = [call("a", {"x": 1, "y": 2}), call("a", {"z": 3})]
    # A greedy pass over expected in order pairs expected[0] (any args) with actual[0] first.
    assert trajectory_match(actual, expected, "unordered", "subset")
    assert trajectory_match(actual, expected, "subset", "subset")
    assert trajectory_match(actual, expected, "superset", "subset")
    report = trajectory_report(actual, expected, "unordered", "subset")
    assert report.pairs == [(0, 1), (1, 0)]


def test_max_matching_succeeds_where_greedy_over_actual_calls_fails() -> None:
    """R27: greedy over the actual calls fails too; the maximum matching does not."""
    expected = [call("a", {"x": 1}), call("a", {"x": 1, "y": 2})]
    actual = [call("a", {"x": 1, "y": 2}), call("a", {"x": 1, "z": 0})]
    assert trajectory_match(actual, expected, "unordered", "subset")
    assert trajectory_match(actual, expected, "superset", "subset")
    assert not trajectory_match(actual, expected, "unordered", "exact")


def test_expected_call_without_args_matches_any_args() -> None:
    """R7/R27: an expected call without args matches any call of its tool."""
    assert trajectory_match([call("a", {"q": 1})], [call("a")], "strict")
    assert not trajectory_match([call("b", {"q": 1})], [call("a")], "strict")
    assert not trajectory_match([call("a")], [call("a", {"q": 1})], "strict")


def test_trajectory_args_match_modes() -> None:
    """R27: calls are compared by args under the trajectory's argsMatch (default exact)."""
    expected = [call("a", {"x": 1})]
    actual = [call("a", {"x": 1.0, "y": 2})]
    assert not trajectory_match(actual, expected, "strict")
    assert trajectory_match(actual, expected, "strict", "subset")
    assert trajectory_match([call("a", {"x": 9})], expected, "strict", "any")
    assert trajectory_match([call("a", {"x": 1.0})], expected, "strict")


def test_trajectory_subset_args_recurse_into_objects_and_compare_arrays_whole() -> None:
    """R12/R27 subset args in a trajectory: nested objects as subsets, arrays whole."""
    expected = [call("a", {"user": {"id": 1}}), call("a", {"ids": [1, 2]}), call("a", {})]
    actual = [
        call("a", {"ids": [1, 2], "page": 1}),
        call("a", {"user": {"id": 1, "name": "Ada"}}),
        call("a", {"ids": [1]}),
    ]
    assert trajectory_match(actual, expected, "unordered", "subset")
    assert not trajectory_match([*actual[:2], call("a", None)], expected, "unordered", "subset")
    assert not trajectory_match(
        [call("a", {"ids": [1, 2, 3]}), *actual[1:]], expected, "superset", "subset"
    )


def test_trajectory_refuses_bad_calls_and_modes() -> None:
    """Bad input gets a clear error naming the call."""
    with pytest.raises(ValueError, match=r"expected\[1\]\.tool"):
        trajectory_match([], [call("a"), {"args": {}}], "strict")
    with pytest.raises(ValueError, match="trajectory match"):
        trajectory_match([], [], "loose")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="argsMatch"):
        trajectory_match([], [], "strict", "fuzzy")  # type: ignore[arg-type]


def test_large_trajectory_of_identical_calls_is_fast() -> None:
    """Thousands of calls of one tool match without a pairwise blow-up (classes, not pairs)."""
    expected = [call("t", {"i": i % 50}) for i in range(3000)]
    actual = list(reversed(expected))
    assert trajectory_match(actual, expected, "unordered")
    assert trajectory_match([*actual, call("t", {"i": 999})], expected, "superset")
    assert not trajectory_match(actual[1:], expected, "superset")


calls_strategy = st.lists(
    st.builds(
        lambda tool, x: {"tool": tool, "args": {"x": x}},
        st.sampled_from(["a", "a", "a", "b"]),
        st.integers(0, 2),
    ),
    max_size=6,
)
# Calls for the brute-force check: wildcards (no args) and small subset patterns, some nested,
# so that one actual call often has several candidate partners and a greedy choice can go wrong.
_small_objects = st.dictionaries(st.just("x"), st.integers(0, 1), max_size=1)
nested_calls_strategy = st.lists(
    st.builds(
        lambda tool, args: {"tool": tool, "args": args},
        st.sampled_from(["a", "a", "a", "b"]),
        st.fixed_dictionaries({"x": st.integers(0, 2)}, optional={"o": _small_objects}),
    ),
    max_size=6,
)
patterns_strategy = st.lists(
    st.one_of(
        st.builds(lambda tool: {"tool": tool}, st.sampled_from(["a", "a", "a", "b"])),
        st.builds(
            lambda tool, args: {"tool": tool, "args": args},
            st.sampled_from(["a", "a", "a", "b"]),
            st.fixed_dictionaries({}, optional={"x": st.integers(0, 2), "o": _small_objects}),
        ),
    ),
    max_size=5,
)


def _brute_force_max_matching(actual: list[dict[str, Any]], expected: list[dict[str, Any]]) -> int:
    """Largest number of disjoint (expected, actual) pairs, by trying every injection."""

    def ok(e: dict[str, Any], a: dict[str, Any]) -> bool:
        return e["tool"] == a["tool"] and (
            "args" not in e or args_match(e["args"], a["args"], "subset")
        )

    for size in range(min(len(actual), len(expected)), 0, -1):
        for exp_idx in itertools.combinations(range(len(expected)), size):
            for act_idx in itertools.permutations(range(len(actual)), size):
                if all(ok(expected[e], actual[a]) for e, a in zip(exp_idx, act_idx, strict=True)):
                    return size
    return 0


@given(calls_strategy, calls_strategy)
def test_subset_and_superset_are_dual_under_exact_args(
    actual: list[dict[str, Any]], expected: list[dict[str, Any]]
) -> None:
    """R27: actual fits inside expected (subset) iff expected fits inside actual when swapped."""
    assert trajectory_match(actual, expected, "subset") == trajectory_match(
        expected, actual, "superset"
    )


@given(calls_strategy, calls_strategy)
def test_unordered_is_subset_and_superset_with_equal_lengths(
    actual: list[dict[str, Any]], expected: list[dict[str, Any]]
) -> None:
    """R27: unordered holds iff subset and superset hold (which forces equal lengths)."""
    unordered = trajectory_match(actual, expected, "unordered")
    assert unordered == (
        trajectory_match(actual, expected, "subset")
        and trajectory_match(actual, expected, "superset")
    )
    if unordered:
        assert len(actual) == len(expected)
    assert trajectory_match(actual, expected, "strict") <= unordered


@settings(max_examples=300)
@example(
    actual=[{"tool": "a", "args": {"x": 0}}, {"tool": "a", "args": {"x": 1}}],
    expected=[{"tool": "a"}, {"tool": "a", "args": {"x": 0}}],
)
@given(actual=nested_calls_strategy, expected=patterns_strategy)
def test_matching_is_maximum_against_brute_force(
    actual: list[dict[str, Any]], expected: list[dict[str, Any]]
) -> None:
    """R27: the matching found is as large as the best possible one (subset args, wildcards)."""
    report = trajectory_report(actual, expected, "unordered", "subset")
    assert len(report.pairs) == _brute_force_max_matching(actual, expected)
    assert len(report.pairs) + len(report.missing) == len(expected)
    assert len(report.pairs) + len(report.unexpected) == len(actual)
    assert trajectory_match(actual, expected, "superset", "subset") == (not report.missing)


# ---------------------------------------------------------------------------------------------
# pass@k / pass^k (R28)


def test_pass_at_k_and_pass_hat_k_hand_computed() -> None:
    """R28 with n=4, c=3: pass@1 = 0.75, pass@2 = 1, pass^2 = 0.5, pass^3 = 0.25, pass^4 = 0."""
    assert pass_at_k(4, 3, 1) == 0.75
    assert pass_at_k(4, 3, 2) == 1.0
    assert pass_hat_k(4, 3, 1) == 0.75
    assert pass_hat_k(4, 3, 2) == 0.5
    assert pass_hat_k(4, 3, 3) == 0.25
    assert pass_hat_k(4, 3, 4) == 0.0
    # n=5, c=2: pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10; pass^2 = C(2,2)/C(5,2) = 1/10
    assert pass_at_k(5, 2, 2) == 0.7
    assert pass_hat_k(5, 2, 2) == 0.1


@pytest.mark.parametrize("n", [1, 2, 5, 30])
def test_pass_k_edge_cases_closed_forms(n: int) -> None:
    """R28: c=0 gives all zeros, c=n all ones; pass@n = 1 iff c>0, pass^n = 1 iff c=n."""
    for k in range(1, n + 1):
        assert pass_at_k(n, 0, k) == 0.0
        assert pass_hat_k(n, 0, k) == 0.0
        assert pass_at_k(n, n, k) == 1.0
        assert pass_hat_k(n, n, k) == 1.0
    for c in range(n + 1):
        assert pass_at_k(n, c, n) == (1.0 if c > 0 else 0.0)
        assert pass_hat_k(n, c, n) == (1.0 if c == n else 0.0)
        assert pass_at_k(n, c, 1) == pass_hat_k(n, c, 1) == c / n


def test_pass_k_is_exact_for_large_n() -> None:
    """R28: exact for n up to 1000 (and beyond); no float overflow in the binomials."""
    n, c, k = 1000, 400, 300
    exact = 1 - Fraction(comb(n - c, k), comb(n, k))
    assert pass_at_k(n, c, k) == float(exact)
    assert pass_hat_k(n, c, k) == float(Fraction(comb(c, k), comb(n, k)))
    assert 0.0 < pass_hat_k(n, c, k) < 1e-100
    at_k, hat_k = pass_k_table(2000, 1999)
    assert at_k["2000"] == 1.0
    assert hat_k["2000"] == 0.0


@pytest.mark.parametrize(
    ("n", "c", "k"),
    [(0, 0, 1), (3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4), (3, True, 1), (3.0, 1, 1)],
)
def test_pass_k_refuses_out_of_range_counts(n: Any, c: Any, k: Any) -> None:
    """R28: 0 <= c <= n and 1 <= k <= n, integers; otherwise a clear ValueError."""
    with pytest.raises(ValueError, match="must be"):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError, match="must be"):
        pass_hat_k(n, c, k)


def test_pass_k_table_uses_decimal_string_keys() -> None:
    """R28/R29: reported for k = 1..n, keyed as the summary stores them."""
    at_k, hat_k = pass_k_table(4, 3)
    assert at_k == {"1": 0.75, "2": 1.0, "3": 1.0, "4": 1.0}
    assert hat_k == {"1": 0.75, "2": 0.5, "3": 0.25, "4": 0.0}


@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_k_orders_and_monotonicity(nc: tuple[int, int]) -> None:
    """R28: pass^k <= pass@1 <= pass@k, pass@k rises and pass^k falls with k, all in [0, 1]."""
    n, c = nc
    at_k, hat_k = pass_k_table(n, c)
    for k in range(1, n + 1):
        assert 0.0 <= hat_k[str(k)] <= at_k["1"] <= at_k[str(k)] <= 1.0
        if k > 1:
            assert at_k[str(k)] >= at_k[str(k - 1)]
            assert hat_k[str(k)] <= hat_k[str(k - 1)]


# ---------------------------------------------------------------------------------------------
# Trial stats and thresholds (R28)


def test_trial_stats_counts_passes() -> None:
    """R28: task score = passing trials / trials, with the pass@k / pass^k tables."""
    stats = trial_stats([True, False, True, True])
    assert stats == TrialStats(
        n=4,
        passed=3,
        pass_at_k={"1": 0.75, "2": 1.0, "3": 1.0, "4": 1.0},
        pass_hat_k={"1": 0.75, "2": 0.5, "3": 0.25, "4": 0.0},
        score=0.75,
    )


def test_trial_stats_refuses_no_trials_and_non_bools() -> None:
    """A task has at least one trial; results are booleans."""
    with pytest.raises(ValueError, match="empty"):
        trial_stats([])
    with pytest.raises(ValueError, match=r"results\[1\]"):
        trial_stats([True, 1])  # type: ignore[list-item]


def test_task_passes_only_when_all_trials_pass_without_pass_score() -> None:
    """R28: a task passes when all its trials pass unless thresholds say otherwise."""
    assert task_passed(trial_stats([True, True]), None)
    assert not task_passed(trial_stats([True, False]), None)
    assert not task_passed(trial_stats([True, False]), {"maxCostUsd": 1.0})


def test_task_passes_on_score_at_least_pass_score() -> None:
    """R28 with thresholds.passScore: the task's score must reach it."""
    stats = trial_stats([True, True, True, False])
    assert task_passed(stats, {"passScore": 0.75})
    assert not task_passed(stats, {"passScore": 0.8})


def test_thresholds_are_validated() -> None:
    """RFC 0081: passScore in 0..1, cost and latency >= 0."""
    with pytest.raises(ValueError, match="passScore"):
        task_passed(trial_stats([True]), {"passScore": 1.5})
    with pytest.raises(ValueError, match="maxCostUsd"):
        suite_passed(1.0, [True], {"maxCostUsd": "1"})


def test_aggregate_score_is_the_mean_task_score() -> None:
    """R28: aggregateScore is the mean task score; no tasks gives 0.0 (decided)."""
    assert aggregate_score([1.0, 0.5, 0.75, 0.25]) == 0.625
    assert aggregate_score([0.1, 0.2, 0.3]) == aggregate_score([0.3, 0.1, 0.2])
    assert aggregate_score([]) == 0.0


def test_suite_passes_without_thresholds_when_every_task_passed() -> None:
    """R28: with no thresholds the suite passes iff every task passed."""
    assert suite_passed(1.0, [True, True], None)
    assert not suite_passed(0.9, [True, False], None)
    assert not suite_passed(0.0, [], None)


def test_suite_pass_score_cost_and_latency_bars() -> None:
    """RFC 0081: aggregate >= passScore, and cost / p95 latency within declared bars."""
    thresholds = {"passScore": 0.7, "maxCostUsd": 2.0, "maxP95LatencyMs": 500}
    assert suite_passed(0.7, [True, False], thresholds, total_cost_usd=2.0, p95_latency_ms=500)
    assert not suite_passed(0.69, [True, True], thresholds)
    assert not suite_passed(0.9, [True], thresholds, total_cost_usd=2.01)
    assert not suite_passed(0.9, [True], thresholds, p95_latency_ms=501)
    # Bars whose figures are unknown cannot be exceeded.
    assert suite_passed(0.9, [True], thresholds)
    # Cost bar without passScore: every task must pass and the cost must fit.
    assert not suite_passed(1.0, [True], {"maxCostUsd": 1.0}, total_cost_usd=3.0)
    assert suite_passed(1.0, [True], {"maxCostUsd": 1.0}, total_cost_usd=0.5)
