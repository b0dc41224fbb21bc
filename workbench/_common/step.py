"""One step of a trajectory: a call as made and as answered (SPEC R17, R27, R33).

Every view of a replay (the trial's record, the sweep table, the branch tree, the notebook's
trajectory view) reads the same :class:`Step`, so two views of one replay cannot disagree: the
args are written once, as canonical JSON (R12: key order and ``1`` vs ``1.0`` do not matter), and
two steps are the same step when their :attr:`Step.key` (tool, args, isError) is equal (R33).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .canonical import canonical_json
from .vocab import ServedBy

__all__ = ["Step", "args_text", "divergence", "trajectory_string"]


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
