"""One step of a trajectory: a call as made and as answered (SPEC R17, R27, R33).

Every view of a replay (the trial's record, the sweep table, the branch tree, the notebook's
trajectory view) reads the same :class:`Step`, so two views of one replay cannot disagree: the
args are written once, as canonical JSON (R12: key order and ``1`` vs ``1.0`` do not matter), and
two steps are the same step when their :attr:`Step.key` (tool, args, isError) is equal (R33).

Two trajectories are compared in two ways: :func:`divergence`, the first step where they part
(R33), and :func:`align_trajectories`, a sequence alignment on the calls (tool, args), so that a
retry the agent inserted is one inserted row and the steps after it line up again.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from .canonical import canonical_json
from .vocab import AlignOp, ServedBy

__all__ = [
    "AlignedStep",
    "Step",
    "align_trajectories",
    "args_text",
    "divergence",
    "trajectory_string",
]


def args_text(args: Any) -> str:
    """Args as text, the one way the workbench writes them: canonical JSON (R12).

    A value that is not JSON (a hand-written agent may pass anything) is written with
    ``repr`` for the parts JSON cannot hold, so every call still has a text and a key.
    """
    try:
        return canonical_json(args)
    except (TypeError, ValueError):
        return json.dumps(args, ensure_ascii=False, sort_keys=True, default=repr)


@dataclass(frozen=True, slots=True)
class Step:
    """One call of a trial, as the agent made it and as the host answered it."""

    tool: str
    """The tool called."""
    args_json: str
    """The call's args as canonical JSON (:func:`args_text`)."""
    is_error: bool
    """Whether the agent received a failure (R17)."""
    served_by: ServedBy = "fixture"
    """``fixture``, ``miss`` (R16) or ``live``."""
    error: str = ""
    """The R17 error text of a failure (``""`` for a success)."""

    @property
    def key(self) -> tuple[str, str, bool]:
        """``(tool, args, isError)``: what divergence and the branch tree compare (R33)."""
        return (self.tool, self.args_json, self.is_error)

    @property
    def call(self) -> tuple[str, str]:
        """``(tool, args)``: the call as made, whatever it got back (what alignment pairs)."""
        return (self.tool, self.args_json)

    @property
    def label(self) -> str:
        """The tool, with ``!`` when the call failed (as in a trajectory string)."""
        return f"{self.tool}!" if self.is_error else self.tool


def trajectory_string(steps: Iterable[Any]) -> str:
    """``a > b! > b``: the tools called, in order, a failed call marked with ``!`` (R17).

    Takes anything with ``tool`` and ``is_error``: steps, or a trial's call records.
    """
    return " > ".join(f"{s.tool}!" if s.is_error else s.tool for s in steps)


def divergence(baseline: Sequence[Step], steps: Sequence[Step]) -> int | None:
    """The first step at which two trajectories differ (R33), ``None`` when they are the same.

    A trajectory that is a strict prefix of the other diverges where the shorter one ends.
    """
    for index, (a, b) in enumerate(zip(baseline, steps, strict=False)):
        if a.key != b.key:
            return index
    if len(baseline) != len(steps):
        return min(len(baseline), len(steps))
    return None


@dataclass(frozen=True, slots=True)
class AlignedStep:
    """One row of two trajectories aligned: a step of each, or of one of them."""

    op: AlignOp
    """``same`` (equal :attr:`Step.key`), ``changed`` (the same call, tool and args, answered
    otherwise: failed in one, not in the other), ``added`` (only on the right), ``removed``
    (only on the left)."""
    left: int | None
    """The step's index in the left trajectory (``None`` for ``added``)."""
    right: int | None
    """The step's index in the right trajectory (``None`` for ``removed``)."""


def _matched(
    a: Sequence[Hashable], b: Sequence[Hashable], a0: int, a1: int, b0: int, b1: int
) -> list[tuple[int, int, int]]:
    """Matching blocks ``(i, j, size)`` of ``a[a0:a1]`` and ``b[b0:b1]``, in absolute indexes.

    difflib's matcher (Ratcliff/Obershelp: the longest common run first, then recursively on each
    side of it) gives alignments that read right to people and is fast on long sequences with
    distinct items. ``autojunk`` is off: a step repeated many times (a polling loop) must still
    be matched."""
    matcher = SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
    return [(a0 + i, b0 + j, n) for i, j, n in matcher.get_matching_blocks() if n]


def align_trajectories(left: Sequence[Step], right: Sequence[Step]) -> tuple[AlignedStep, ...]:
    """Two trajectories aligned step by step, for a diff that lines up (R33).

    The common prefix and suffix (equal :attr:`Step.key`) are ``same`` rows. In between, steps
    with equal keys are matched first; in each stretch left unmatched, steps making the same call
    (:attr:`Step.call`: tool and args) are paired as ``changed``; what is still left is
    ``added`` (right only) then ``removed`` (left only), so what the right-hand run did next
    (a retry, a give-up) sits beside the step it followed. Every index of each trajectory appears
    exactly once, in order, so any two trajectories can be compared (a variant with the
    baseline, two variants, two trials).

    An inserted retry is one ``added`` row: ``a > b! > b > c`` against ``a > b > c`` gives
    ``same, added, same, same``. The first row that is not ``same`` is at
    :func:`divergence` ``(left, right)``.
    """
    n, m = len(left), len(right)
    keys_a = [s.key for s in left]
    keys_b = [s.key for s in right]
    start = 0
    limit = min(n, m)
    while start < limit and keys_a[start] == keys_b[start]:
        start += 1
    end = 0
    while end < limit - start and keys_a[n - 1 - end] == keys_b[m - 1 - end]:
        end += 1
    rows = [AlignedStep("same", i, i) for i in range(start)]
    if start < n - end or start < m - end:
        calls_a = [s.call for s in left]
        calls_b = [s.call for s in right]
        i, j = start, start
        for bi, bj, size in [*_matched(keys_a, keys_b, start, n - end, start, m - end),
                             (n - end, m - end, 0)]:  # fmt: skip
            _align_gap(rows, calls_a, calls_b, i, bi, j, bj)
            rows.extend(AlignedStep("same", bi + k, bj + k) for k in range(size))
            i, j = bi + size, bj + size
    rows.extend(AlignedStep("same", n - end + k, m - end + k) for k in range(end))
    return tuple(rows)


def _align_gap(
    rows: list[AlignedStep],
    calls_a: Sequence[tuple[str, str]],
    calls_b: Sequence[tuple[str, str]],
    a0: int,
    a1: int,
    b0: int,
    b1: int,
) -> None:
    """Rows for ``left[a0:a1]`` against ``right[b0:b1]``, where no step has an equal key."""
    i, j = a0, b0
    if a0 < a1 and b0 < b1:
        for bi, bj, size in _matched(calls_a, calls_b, a0, a1, b0, b1):
            rows.extend(AlignedStep("added", None, k) for k in range(j, bj))
            rows.extend(AlignedStep("removed", k, None) for k in range(i, bi))
            rows.extend(AlignedStep("changed", bi + k, bj + k) for k in range(size))
            i, j = bi + size, bj + size
    rows.extend(AlignedStep("added", None, k) for k in range(j, b1))
    rows.extend(AlignedStep("removed", k, None) for k in range(i, a1))
