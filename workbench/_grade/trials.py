"""Trials and thresholds: task score, unbiased pass@k and pass^k, RFC 0081 ``thresholds`` (R28)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypedDict

__all__ = [
    "Thresholds",
    "TrialStats",
    "aggregate_score",
    "pass_at_k",
    "pass_hat_k",
    "pass_k_table",
    "suite_passed",
    "task_passed",
    "trial_stats",
]


def _check_counts(n: int, c: int, k: int | None = None) -> None:
    for name, number in (("n", n), ("c", c), ("k", k)):
        if number is not None and (isinstance(number, bool) or not isinstance(number, int)):
            raise ValueError(f"{name} must be an integer, got {number!r}")
    if n < 1:
        raise ValueError(f"n (trials) must be >= 1, got {n}")
    if not 0 <= c <= n:
        raise ValueError(f"c (passing trials) must be in 0..n = 0..{n}, got {c}")
    if k is not None and not 1 <= k <= n:
        raise ValueError(f"k must be in 1..n = 1..{n}, got {k}")


def _pass_at_k(n: int, c: int, k: int) -> float:
    total = math.comb(n, k)
    return float(Fraction(total - math.comb(n - c, k), total))


def _pass_hat_k(n: int, c: int, k: int) -> float:
    return float(Fraction(math.comb(c, k), math.comb(n, k)))


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k = 1 - C(n-c, k) / C(n, k) (R28): the chance that at least one of k trials
    drawn without replacement from n trials (c of them passing) passes.

    Exact: computed on integers and rounded once to float, so n in the thousands is fine.

    Raises:
        ValueError: unless n >= 1, 0 <= c <= n and 1 <= k <= n.
    """
    _check_counts(n, c, k)
    return _pass_at_k(n, c, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k = C(c, k) / C(n, k) (R28): the chance that all k trials drawn without
    replacement from n trials (c of them passing) pass.

    Exact: computed on integers and rounded once to float.

    Raises:
        ValueError: unless n >= 1, 0 <= c <= n and 1 <= k <= n.
    """
    _check_counts(n, c, k)
    return _pass_hat_k(n, c, k)


def pass_k_table(n: int, c: int) -> tuple[dict[str, float], dict[str, float]]:
    """pass@k and pass^k for k = 1..n, keyed by k as a decimal string (R28, R29 ``passAtK`` /
    ``passHatK``), e.g. ``({"1": 0.75, "2": 1.0, ...}, {"1": 0.75, "2": 0.5, ...})``.

    Raises:
        ValueError: unless n >= 1 and 0 <= c <= n.
    """
    _check_counts(n, c)
    at_k = {str(k): _pass_at_k(n, c, k) for k in range(1, n + 1)}
    hat_k = {str(k): _pass_hat_k(n, c, k) for k in range(1, n + 1)}
    return at_k, hat_k


@dataclass(frozen=True, slots=True)
class TrialStats:
    """A task's trial figures (R28, R29 ``trials``)."""

    n: int
    """Number of trials."""
    passed: int
    """Number of passing trials (c)."""
    pass_at_k: dict[str, float]
    """pass@k for k = 1..n, keyed by k as a decimal string."""
    pass_hat_k: dict[str, float]
    """pass^k for k = 1..n, keyed by k as a decimal string."""
    score: float
    """The task score: passed / n."""


def trial_stats(results: Sequence[bool]) -> TrialStats:
    """Trial figures from per-trial pass flags, in trial order (R28).

    Raises:
        ValueError: no trials, or a result that is not a bool.
    """
    for index, result in enumerate(results):
        if not isinstance(result, bool):
            raise ValueError(f"trial results must be booleans; results[{index}] is {result!r}")
    n = len(results)
    if n == 0:
        raise ValueError("trial results are empty: a task has at least one trial")
    passed = sum(results)
    at_k, hat_k = pass_k_table(n, passed)
    return TrialStats(n=n, passed=passed, pass_at_k=at_k, pass_hat_k=hat_k, score=passed / n)


# --------------------------------------------------------------------------------------------
# Thresholds (R28, RFC 0081 ``thresholds``)


class Thresholds(TypedDict, total=False):
    """RFC 0081 suite ``thresholds``; every member is optional."""

    passScore: float
    """Minimum score (0..1) for ``passed: true``."""
    maxCostUsd: float
    """Maximum total cost in USD for a passing run."""
    maxP95LatencyMs: int
    """Maximum p95 per-task latency in milliseconds for a passing run."""


def _threshold(thresholds: Mapping[str, Any] | None, name: str) -> float | None:
    if thresholds is None or name not in thresholds:
        return None
    number = thresholds[name]
    if isinstance(number, bool) or not isinstance(number, (int, float)) or number < 0:
        raise ValueError(f"thresholds.{name} must be a number >= 0, got {number!r}")
    if name == "passScore" and number > 1:
        raise ValueError(f"thresholds.passScore must be in 0..1, got {number!r}")
    return float(number)


def task_passed(stats: TrialStats, thresholds: Mapping[str, Any] | None = None) -> bool:
    """Whether a task passed (R28).

    Without ``passScore`` a task passes when every one of its trials passed; with it, when its
    score (passing trials / trials) is at least ``passScore``. Cost and latency bars are
    suite-level (`suite_passed`).
    """
    pass_score = _threshold(thresholds, "passScore")
    if pass_score is None:
        return stats.passed == stats.n
    return stats.score >= pass_score


def aggregate_score(task_scores: Iterable[float]) -> float:
    """The summary's ``aggregateScore``: the mean task score (R28).

    Computed exactly from the given floats and rounded once, so the result does not depend on
    the order of the tasks. Decision: no tasks gives ``0.0`` (a suite has at least one task, so
    this only guards callers; `suite_passed` never passes an empty run).
    """
    scores = [Fraction(score) for score in task_scores]
    if not scores:
        return 0.0
    return float(sum(scores, Fraction(0)) / len(scores))


def suite_passed(
    aggregate_score: float,
    task_passed_flags: Sequence[bool],
    thresholds: Mapping[str, Any] | None = None,
    total_cost_usd: float | None = None,
    p95_latency_ms: float | None = None,
) -> bool:
    """The summary's ``passed`` flag, following RFC 0081 thresholds (R28).

    - With ``passScore``: ``aggregate_score >= passScore``.
    - Without it (or without thresholds): every task passed.
    - Then, when ``maxCostUsd`` is declared and the total cost is known, the cost must not exceed
      it; likewise ``maxP95LatencyMs`` and the p95 latency. A bar whose figure is unknown (None)
      cannot be exceeded and is not held against the run.
    - Decision: a run with no tasks never passes.
    """
    if not task_passed_flags:
        return False
    pass_score = _threshold(thresholds, "passScore")
    passed = all(task_passed_flags) if pass_score is None else aggregate_score >= pass_score
    max_cost = _threshold(thresholds, "maxCostUsd")
    if max_cost is not None and total_cost_usd is not None and total_cost_usd > max_cost:
        passed = False
    max_latency = _threshold(thresholds, "maxP95LatencyMs")
    if max_latency is not None and p95_latency_ms is not None and p95_latency_ms > max_latency:
        passed = False
    return passed
