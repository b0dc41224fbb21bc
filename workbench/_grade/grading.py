"""Grading: golden matches, trajectory matches, pass@k / pass^k and thresholds (SPEC R26-R28).

- Golden (R26): the three RFC 0081 strategies ``exact``, ``contains`` and ``json-match``.
- Trajectory (R27): ``strict``, ``unordered``, ``subset`` and ``superset``, with args compared
  under an `ArgsMatch` mode. Where a call could pair with several others, a maximum bipartite
  matching decides, never a greedy pass.
- Trials (R28): task score, unbiased pass@k and pass^k for k = 1..n, and the RFC 0081 thresholds
  that decide whether a task and the suite passed.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal, NotRequired, Required, TypedDict, get_args

from workbench._common.canonical import ArgsMatch, canonical_json, json_equal
from workbench._common.canonical import args_match as _args_match

__all__ = [
    "Call",
    "GoldenStrategy",
    "Thresholds",
    "TrajectoryMatch",
    "TrajectoryResult",
    "TrialStats",
    "aggregate_score",
    "golden_match",
    "pass_at_k",
    "pass_hat_k",
    "pass_k_table",
    "suite_passed",
    "task_passed",
    "trajectory_match",
    "trajectory_report",
    "trial_stats",
]

GoldenStrategy = Literal["exact", "contains", "json-match"]
"""RFC 0081 golden match strategies (R26)."""

TrajectoryMatch = Literal["strict", "unordered", "subset", "superset"]
"""Trajectory match modes (R7, R27)."""

_GOLDEN_STRATEGIES: Final[tuple[str, ...]] = get_args(GoldenStrategy)
_TRAJECTORY_MODES: Final[tuple[str, ...]] = get_args(TrajectoryMatch)
_ARGS_MATCH_MODES: Final[tuple[str, ...]] = get_args(ArgsMatch)


# --------------------------------------------------------------------------------------------
# Golden (R26)


def _stringify(value: Any) -> str:
    """A str as is; anything else as canonical JSON (sorted keys, compact, ``1.0`` as ``1``)."""
    if isinstance(value, str):
        return value
    return canonical_json(value)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _parse_json_text(text: str) -> tuple[bool, Any]:
    """Parse `text` as strict JSON (no NaN/Infinity); ``(False, None)`` when it is not JSON."""
    try:
        return True, json.loads(text, parse_constant=_reject_constant)
    except ValueError:  # json.JSONDecodeError, NaN, or an integer too long to convert
        return False, None


def golden_match(output: Any, strategy: GoldenStrategy, value: Any) -> bool:
    """Whether the agent's output meets a golden expectation (R26, RFC 0081 ``match``).

    Both sides are *stringified* the same way: a str as is, anything else as canonical JSON
    (sorted keys, compact separators, integral floats written as integers).

    - ``exact``: ``stringify(output) == stringify(value)``. So the output ``"42"`` equals the value
      ``42`` and ``{"b": 1, "a": 2}`` equals ``{"a": 2, "b": 1.0}``.
    - ``contains``: ``stringify(value)`` is a substring of ``stringify(output)``. Decision: when the
      output is a list, the match is also true when one element json-equals `value` (so the value
      ``{"b": 2, "a": 1.0}`` is found in ``[{"a": 1, "b": 2}]``, not a substring of its text).
    - ``json-match``: ``json_equal(output, value)``. Decision: when the output is a str that parses
      as JSON, the parsed value is compared too (agents often return JSON as text), so the output
      ``'{"a": 1}'`` json-matches ``{"a": 1}``; a plain string still json-matches an equal string.

    An output that is not a JSON value (or holds NaN) matches nothing rather than failing the
    grading; a `value` that is not a JSON value is a suite error and raises ValueError/TypeError.
    """
    if strategy not in _GOLDEN_STRATEGIES:
        raise ValueError(
            f"golden strategy must be one of {', '.join(map(repr, _GOLDEN_STRATEGIES))}, "
            f"got {strategy!r}"
        )
    expected_text = _stringify(value)
    try:
        output_text = _stringify(output)
    except (TypeError, ValueError):
        return False
    if strategy == "exact":
        return output_text == expected_text
    if strategy == "contains":
        if expected_text in output_text:
            return True
        return isinstance(output, list) and any(
            _json_equal_or_false(item, value) for item in output
        )
    # json-match
    if _json_equal_or_false(output, value):
        return True
    if isinstance(output, str):
        parsed_ok, parsed = _parse_json_text(output)
        return parsed_ok and _json_equal_or_false(parsed, value)
    return False


def _json_equal_or_false(output: Any, value: Any) -> bool:
    try:
        return json_equal(output, value)
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------------------------
# Trajectory (R27)


class Call(TypedDict, total=False):
    """One tool call in a trajectory (R7, R27); any mapping with these keys is accepted.

    Other keys (``isError``, ``callId``, ...) are ignored: a failed call is a call like any other.
    """

    tool: Required[str]
    """The tool name; calls only ever match calls of the same tool."""
    args: NotRequired[Any]
    """The call's args. An expected call without ``args`` matches any args; an actual call
    without ``args`` is matched only by expected calls without ``args`` (or under ``any``)."""


@dataclass(frozen=True, slots=True)
class TrajectoryResult:
    """The outcome of comparing an actual trajectory with the expected one (R27)."""

    matched: bool
    """Whether the trajectory meets the mode."""
    missing: list[int] = field(default_factory=list)
    """Indices of expected calls left unmatched, ascending."""
    unexpected: list[int] = field(default_factory=list)
    """Indices of actual calls left unmatched, ascending."""
    pairs: list[tuple[int, int]] = field(default_factory=list)
    """The ``(expected index, actual index)`` pairs of one maximum matching (for ``strict``: the
    positions where the calls match), sorted by expected index. Deterministic for given inputs."""


def _check_calls(calls: Sequence[Mapping[str, Any]], name: str) -> None:
    for index, call in enumerate(calls):
        if not isinstance(call, Mapping):
            raise ValueError(
                f"{name}[{index}]: a call must be an object, got {type(call).__name__}"
            )
        tool = call.get("tool")
        if not isinstance(tool, str):
            raise ValueError(f"{name}[{index}].tool: must be a string, got {tool!r}")


def _call_matches(expected: Mapping[str, Any], actual: Mapping[str, Any], mode: ArgsMatch) -> bool:
    """An expected call matches an actual one: same tool, expected args match the actual's."""
    if expected["tool"] != actual["tool"]:
        return False
    if "args" not in expected or mode == "any":
        return True
    if "args" not in actual:
        return False
    return _args_match(expected["args"], actual["args"], mode)


# Class keys: calls in one class have the same neighbours, so the matching runs on classes with
# capacities (a flow network) instead of on every pair of calls.
_WILDCARD: Final = ("*", "")
_NO_ARGS: Final = ("-", "")


def _expected_key(call: Mapping[str, Any], mode: ArgsMatch) -> tuple[str, str]:
    if "args" not in call or mode == "any":
        return _WILDCARD
    return ("=", canonical_json(call["args"]))


def _actual_key(call: Mapping[str, Any], mode: ArgsMatch) -> tuple[str, str]:
    if mode == "any":
        return _WILDCARD
    if "args" not in call:
        return _NO_ARGS
    return ("=", canonical_json(call["args"]))


class _FlowNetwork:
    """Dinic's maximum flow on a small graph (integer capacities)."""

    def __init__(self, size: int) -> None:
        self.heads: list[list[int]] = [[] for _ in range(size)]
        self.to: list[int] = []
        self.cap: list[int] = []

    def add_edge(self, source: int, target: int, capacity: int) -> int:
        """Add an edge and its residual twin; return the edge's id (its twin is id ^ 1)."""
        edge = len(self.to)
        self.heads[source].append(edge)
        self.to.append(target)
        self.cap.append(capacity)
        self.heads[target].append(edge + 1)
        self.to.append(source)
        self.cap.append(0)
        return edge

    def max_flow(self, source: int, sink: int) -> int:
        total = 0
        while True:
            level = [-1] * len(self.heads)
            level[source] = 0
            queue = deque([source])
            while queue:
                node = queue.popleft()
                for edge in self.heads[node]:
                    if self.cap[edge] > 0 and level[self.to[edge]] < 0:
                        level[self.to[edge]] = level[node] + 1
                        queue.append(self.to[edge])
            if level[sink] < 0:
                return total
            cursor = [0] * len(self.heads)
            while True:
                pushed = self._augment(source, sink, level, cursor)
                if not pushed:
                    break
                total += pushed
        return total  # pragma: no cover

    def _augment(self, source: int, sink: int, level: list[int], cursor: list[int]) -> int:
        """Push one blocking path (iterative DFS, so long graphs cannot overflow the stack)."""
        path: list[int] = []
        node = source
        while True:
            if node == sink:
                pushed = min(self.cap[edge] for edge in path)
                for edge in path:
                    self.cap[edge] -= pushed
                    self.cap[edge ^ 1] += pushed
                return pushed
            heads = self.heads[node]
            advanced = False
            while cursor[node] < len(heads):
                edge = heads[cursor[node]]
                target = self.to[edge]
                if self.cap[edge] > 0 and level[target] == level[node] + 1:
                    path.append(edge)
                    node = target
                    advanced = True
                    break
                cursor[node] += 1
            if advanced:
                continue
            if not path:
                return 0
            level[node] = -1  # dead end: never enter it again in this phase
            edge = path.pop()
            node = self.to[edge ^ 1]
            cursor[node] += 1


def _leaf_path(pattern: dict[str, Any]) -> tuple[str, ...] | None:
    """The first path (by sorted keys) through nested objects to a value that is not an object.

    Every call a subset pattern matches has an equal value at that path, so it can index them.
    """
    for key in sorted(pattern):
        value = pattern[key]
        if not isinstance(value, dict):
            return (key,)
        rest = _leaf_path(value)
        if rest is not None:
            return (key, *rest)
    return None


def _follow(value: Any, path: tuple[str, ...]) -> tuple[bool, Any]:
    """The value at `path` through nested objects, as ``(found, value)``."""
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return False, None
        value = value[key]
    return True, value


def _max_matching(
    expected: Sequence[Mapping[str, Any]],
    actual: Sequence[Mapping[str, Any]],
    mode: ArgsMatch,
) -> list[tuple[int, int]]:
    """One maximum matching of expected to actual calls, as sorted (expected, actual) pairs.

    Calls are grouped by tool and then into classes of calls with the same neighbours (same
    canonical args, or "any args"); classes become nodes with capacities in a flow network, so
    a few thousand identical calls cost no more than one. Deterministic: classes, edges and the
    final assignment of indices all follow first-appearance order.
    """
    exp_classes: dict[tuple[str, tuple[str, str]], list[int]] = {}
    for index, call in enumerate(expected):
        exp_classes.setdefault((call["tool"], _expected_key(call, mode)), []).append(index)
    act_classes: dict[tuple[str, tuple[str, str]], list[int]] = {}
    for index, call in enumerate(actual):
        act_classes.setdefault((call["tool"], _actual_key(call, mode)), []).append(index)

    act_by_tool: dict[str, list[tuple[str, str]]] = {}
    for tool, key in act_classes:
        act_by_tool.setdefault(tool, []).append(key)
    # For subset patterns: actual classes of a tool indexed by the canonical value at a leaf path.
    leaf_index: dict[tuple[str, tuple[str, ...]], dict[str, list[tuple[str, str]]]] = {}

    def candidates(tool: str, exp_key: tuple[str, str], pattern: Any) -> list[tuple[str, str]]:
        """Actual classes of `tool` whose calls the expected class matches, in class order."""
        if exp_key == _WILDCARD:
            return act_by_tool.get(tool, [])
        if mode == "exact" or not isinstance(pattern, dict):
            return [exp_key] if (tool, exp_key) in act_classes else []
        # subset with an object pattern: narrow by one leaf (a value compared whole).
        path = _leaf_path(pattern)
        if path is None:
            pool = act_by_tool.get(tool, [])
        else:
            index = leaf_index.get((tool, path))
            if index is None:
                index = {}
                for act_key in act_by_tool.get(tool, []):
                    found, leaf = _follow(actual[act_classes[(tool, act_key)][0]].get("args"), path)
                    if found:
                        index.setdefault(canonical_json(leaf), []).append(act_key)
                leaf_index[(tool, path)] = index
            pool = index.get(canonical_json(_follow(pattern, path)[1]), [])
        return [
            act_key
            for act_key in pool
            if act_key != _NO_ARGS
            and _args_match(pattern, actual[act_classes[(tool, act_key)][0]]["args"], mode)
        ]

    exp_list = list(exp_classes.items())
    act_list = list(act_classes.items())
    act_node = {class_key: 1 + len(exp_list) + n for n, (class_key, _) in enumerate(act_list)}
    source, sink = 0, 1 + len(exp_list) + len(act_list)
    network = _FlowNetwork(sink + 1)
    class_edges: list[tuple[int, int, int]] = []  # (edge id, expected class no, actual node)
    for number, ((tool, exp_key), exp_indices) in enumerate(exp_list):
        network.add_edge(source, 1 + number, len(exp_indices))
        pattern = expected[exp_indices[0]].get("args")
        for act_key in candidates(tool, exp_key, pattern):
            node = act_node[(tool, act_key)]
            edge = network.add_edge(1 + number, node, len(exp_indices))
            class_edges.append((edge, number, node))
    for n, (_, act_indices) in enumerate(act_list):
        network.add_edge(1 + len(exp_list) + n, sink, len(act_indices))
    network.max_flow(source, sink)

    exp_free = [deque(indices) for _, indices in exp_list]
    act_free = [deque(indices) for _, indices in act_list]
    pairs: list[tuple[int, int]] = []
    for edge, number, node in class_edges:
        flow = network.cap[edge ^ 1]
        act_queue = act_free[node - 1 - len(exp_list)]
        for _ in range(flow):
            pairs.append((exp_free[number].popleft(), act_queue.popleft()))
    pairs.sort()
    return pairs


def trajectory_report(
    actual_calls: Sequence[Mapping[str, Any]],
    expected_calls: Sequence[Mapping[str, Any]],
    mode: TrajectoryMatch,
    args_match: ArgsMatch = "exact",
) -> TrajectoryResult:
    """Compare the actual calls with the expected ones under `mode` and say what did not match.

    R27 (over every ``agent.tool-called``, failed calls included; the caller passes them all). An
    expected call matches an actual call when the tools are equal and the expected ``args`` match
    the actual args under `args_match` (the expected args are the pattern); an expected call
    without ``args`` matches any args.

    - ``strict``: same length and the calls match pairwise in order. `missing` / `unexpected` list
      the positions that do not match and the unpaired tail.
    - ``unordered``: the same calls as a multiset: a maximum matching pairs every expected call and
      every actual call.
    - ``subset``: the actual calls fit inside the expected ones: every actual call is matched to a
      distinct expected call.
    - ``superset``: the expected calls fit inside the actual ones: every expected call is matched
      to a distinct actual call.

    The three unordered modes use one maximum bipartite matching (a flow on classes of identical
    calls), so a greedy choice can never make a matchable trajectory fail.
    """
    if mode not in _TRAJECTORY_MODES:
        raise ValueError(
            f"trajectory match must be one of {', '.join(map(repr, _TRAJECTORY_MODES))}, "
            f"got {mode!r}"
        )
    if args_match not in _ARGS_MATCH_MODES:
        raise ValueError(
            f"argsMatch must be one of {', '.join(map(repr, _ARGS_MATCH_MODES))}, "
            f"got {args_match!r}"
        )
    _check_calls(actual_calls, "actual")
    _check_calls(expected_calls, "expected")

    if mode == "strict":
        pairs = [
            (index, index)
            for index, (exp, act) in enumerate(zip(expected_calls, actual_calls, strict=False))
            if _call_matches(exp, act, args_match)
        ]
    else:
        pairs = _max_matching(expected_calls, actual_calls, args_match)
    paired_expected = {e for e, _ in pairs}
    paired_actual = {a for _, a in pairs}
    missing = [i for i in range(len(expected_calls)) if i not in paired_expected]
    unexpected = [i for i in range(len(actual_calls)) if i not in paired_actual]

    if mode in ("strict", "unordered"):
        matched = not missing and not unexpected
    elif mode == "subset":
        matched = not unexpected
    else:
        matched = not missing
    return TrajectoryResult(matched=matched, missing=missing, unexpected=unexpected, pairs=pairs)


def trajectory_match(
    actual_calls: Sequence[Mapping[str, Any]],
    expected_calls: Sequence[Mapping[str, Any]],
    mode: TrajectoryMatch,
    args_match: ArgsMatch = "exact",
) -> bool:
    """Whether the actual calls meet the expected trajectory under `mode` (R27).

    See `trajectory_report` for the modes; this is its ``matched`` flag.
    """
    return trajectory_report(actual_calls, expected_calls, mode, args_match).matched


# --------------------------------------------------------------------------------------------
# Trials (R28)


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
