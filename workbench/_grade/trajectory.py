"""Trajectory expectations: ``strict``, ``unordered``, ``subset`` and ``superset`` (SPEC R27).

Calls are compared by tool and by args under an :data:`~workbench.ArgsMatch` mode. Where a call
could pair with several others, a maximum bipartite matching decides, never a greedy pass (these
are LangChain agentevals' four modes).

Longer than 400 lines: the four modes, the flow network that decides the unordered ones and the
prepared form a sweep grades thousands of trials with belong together; split, the rule would
live in two places.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NotRequired, Required, TypedDict, get_args

from .._common.canonical import args_match as _args_match
from .._common.canonical import canonical_json
from .._common.vocab import ARGS_MATCH_MODES, ArgsMatch, TrajectoryMatch

__all__ = [
    "Call",
    "PreparedTrajectory",
    "TrajectoryResult",
    "trajectory_match",
    "trajectory_report",
]

_TRAJECTORY_MODES: Final[tuple[str, ...]] = get_args(TrajectoryMatch)
_ARGS_MATCH_MODES: Final[tuple[str, ...]] = ARGS_MATCH_MODES


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


def _expected_classes(
    expected: Sequence[Mapping[str, Any]], mode: ArgsMatch
) -> dict[tuple[str, tuple[str, str]], list[int]]:
    """Expected calls grouped into classes by tool and key (first-appearance order)."""
    exp_classes: dict[tuple[str, tuple[str, str]], list[int]] = {}
    for index, call in enumerate(expected):
        exp_classes.setdefault((call["tool"], _expected_key(call, mode)), []).append(index)
    return exp_classes


def _actual_classes(
    actual: Sequence[Mapping[str, Any]], mode: ArgsMatch, keys: Sequence[str | None] | None
) -> dict[tuple[str, tuple[str, str]], list[int]]:
    """Actual calls grouped into classes; ``keys`` (canonical args JSON per call, ``None`` for a
    call without args) saves canonicalising them again."""
    act_classes: dict[tuple[str, tuple[str, str]], list[int]] = {}
    if keys is None or mode == "any":
        for index, call in enumerate(actual):
            act_classes.setdefault((call["tool"], _actual_key(call, mode)), []).append(index)
        return act_classes
    for index, (call, key) in enumerate(zip(actual, keys, strict=True)):
        class_key = _NO_ARGS if key is None else ("=", key)
        act_classes.setdefault((call["tool"], class_key), []).append(index)
    return act_classes


def _max_matching(
    expected: Sequence[Mapping[str, Any]],
    actual: Sequence[Mapping[str, Any]],
    mode: ArgsMatch,
    exp_classes: dict[tuple[str, tuple[str, str]], list[int]] | None = None,
    actual_keys: Sequence[str | None] | None = None,
) -> list[tuple[int, int]]:
    """One maximum matching of expected to actual calls, as sorted (expected, actual) pairs.

    Calls are grouped by tool and then into classes of calls with the same neighbours (same
    canonical args, or "any args"); classes become nodes with capacities in a flow network, so
    a few thousand identical calls cost no more than one. Deterministic: classes, edges and the
    final assignment of indices all follow first-appearance order. Under ``exact`` with no
    expected call that matches any args, each expected class has at most one neighbour (the
    actual class of the same key), so the flow is the pairing of the two classes in order, and
    it is computed as that, without a network.
    """
    if exp_classes is None:
        exp_classes = _expected_classes(expected, mode)
    act_classes = _actual_classes(actual, mode, actual_keys)
    if mode == "exact" and all(key != _WILDCARD for _, key in exp_classes):
        pairs: list[tuple[int, int]] = []
        for class_key, exp_indices in exp_classes.items():
            act_indices = act_classes.get(class_key)
            if act_indices:
                pairs.extend(zip(exp_indices, act_indices, strict=False))
        pairs.sort()
        return pairs

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
    pairs = []
    for edge, number, node in class_edges:
        flow = network.cap[edge ^ 1]
        act_queue = act_free[node - 1 - len(exp_list)]
        for _ in range(flow):
            pairs.append((exp_free[number].popleft(), act_queue.popleft()))
    pairs.sort()
    return pairs


class PreparedTrajectory:
    """An expected trajectory checked and grouped once, to compare many actual ones with (R27).

    What :func:`trajectory_report` does for one comparison, split so that a sweep grading
    thousands of trials of one task groups the expected calls once.
    """

    __slots__ = ("_classes", "_counts", "args_match", "expected", "mode")

    def __init__(
        self,
        expected_calls: Sequence[Mapping[str, Any]],
        mode: TrajectoryMatch,
        args_match: ArgsMatch = "exact",
    ) -> None:
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
        _check_calls(expected_calls, "expected")
        self.expected = expected_calls
        """The expected calls."""
        self.mode: TrajectoryMatch = mode
        """The match mode."""
        self.args_match: ArgsMatch = args_match
        """How args are compared."""
        self._classes = None if mode == "strict" else _expected_classes(expected_calls, args_match)
        self._counts: dict[tuple[str, str], int] | None = None
        if (
            self._classes is not None
            and args_match == "exact"
            and all(key != _WILDCARD for _, key in self._classes)
        ):
            self._counts = {
                (tool, key[1]): len(indices) for (tool, key), indices in self._classes.items()
            }

    def matched_keys(self, tools: Sequence[str], keys: Sequence[str | None]) -> bool | None:
        """Whether calls given as tools and canonical args keys meet the expectation, counted
        by class (no matching needed: under ``exact`` with every expected call holding args, an
        expected class can pair only with the actual class of the same key, so a maximum
        matching pairs ``min`` of the two counts per class). ``None`` where that does not apply
        (``strict``, other ``argsMatch`` modes, expected calls without args): use :meth:`report`.
        """
        expected = self._counts
        if expected is None:
            return None
        actual = Counter(zip(tools, keys, strict=True))
        if self.mode == "superset":
            return all(actual.get(k, 0) >= n for k, n in expected.items())
        if self.mode == "subset":
            return all(
                key is not None and expected.get((tool, key), 0) >= n
                for (tool, key), n in actual.items()
            )
        return all(key is not None for _, key in actual) and dict(actual) == expected

    def report(
        self,
        actual_calls: Sequence[Mapping[str, Any]],
        actual_keys: Sequence[str | None] | None = None,
    ) -> TrajectoryResult:
        """Compare ``actual_calls`` with the expected ones (see :func:`trajectory_report`).

        ``actual_keys``: each actual call's args as canonical JSON (``None``: the call has no
        args), when the caller has them already (a :class:`~workbench.Step`'s ``args_json``).
        """
        _check_calls(actual_calls, "actual")
        expected_calls, mode, args_match = self.expected, self.mode, self.args_match
        if mode == "strict":
            pairs = [
                (index, index)
                for index, (exp, act) in enumerate(zip(expected_calls, actual_calls, strict=False))
                if _call_matches(exp, act, args_match)
            ]
        else:
            pairs = _max_matching(
                expected_calls, actual_calls, args_match, self._classes, actual_keys
            )
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
        return TrajectoryResult(
            matched=matched, missing=missing, unexpected=unexpected, pairs=pairs
        )


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
    return PreparedTrajectory(expected_calls, mode, args_match).report(actual_calls)


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
