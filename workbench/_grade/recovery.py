"""Triggered faults, recoveries and their rates with Wilson intervals (SPEC R37, R38).

A variant-trial is **triggered** (R37) when the agent was served at least one result (``isError``
or response) that differs from what the baseline trial was served at the same point of its call
sequence: :func:`served_key` is what is compared, :func:`is_triggered` the comparison. A fault on
a call the agent never made, or one that serves the failure the recording already had, is
untriggered: it changed nothing the agent saw.

A triggered variant-trial **recovered** (R38) when it passes as graded (R26-R28); an untriggered
one has no ``recovered`` value. Every rate here is over triggered variant-trials only, with its
counts and a Wilson 95% score interval (:func:`wilson_interval`); untriggered variant-trials are
counted beside it, never in it. So are trials that ended ``needs-model`` (R41: the LLM agent
had no model to answer): they have no ``recovered`` value and are in no rate either.

Everything here takes plain data (served results, flags), so the sweep, a widget or a test can
compute the same figures.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

_SORTED: Final = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS

__all__ = [
    "WILSON_Z",
    "RecoveryFigure",
    "is_triggered",
    "recovery_figure",
    "served_key",
    "wilson_interval",
]

WILSON_Z: Final = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval (``scipy.stats.norm.ppf(0.975)``)."""


def served_key(is_error: bool, content: Any, structured_content: Any = None) -> bytes:
    """What R37 compares of a served result: its ``isError`` flag and its response (the MCP
    content and ``structuredContent``), as one compact sorted-key JSON text.

    Two results with equal keys are the same to an agent; the error code and the host's
    ``_meta`` (which entry served it) are not part of it.
    """
    try:
        return orjson.dumps([bool(is_error), content, structured_content], option=_SORTED)
    except (TypeError, orjson.JSONEncodeError):
        return repr((bool(is_error), content, structured_content)).encode()


def is_triggered(baseline: Sequence[Any], served: Sequence[Any]) -> bool:
    """Whether a variant-trial was triggered (R37): some result it was served differs from the
    baseline trial's at the same position of the call sequence (``served_key`` values).

    A call past the baseline's last one was served something the baseline trial never was, so it
    counts as a difference; so does a baseline call the variant never made only when something
    before it differed (a deterministic agent served the same results makes the same calls).
    """
    if len(served) > len(baseline):
        return True
    return any(a != b for a, b in zip(baseline, served, strict=False))


def wilson_interval(successes: int, n: int, z: float = WILSON_Z) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``n`` (no continuity correction).

    ``(nan, nan)`` when ``n`` is 0. With ``z`` = 1.96 it is the 95% interval that
    ``statsmodels``' ``proportion_confint(method="wilson")`` and ``scipy``'s
    ``binomtest(...).proportion_ci(method="wilson")`` give.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True)
class RecoveryFigure:
    """Recovery over a set of variant-trials (R38): counts, the rate and its Wilson interval."""

    variant_trials: int
    """Variant-trials in the set, triggered or not."""
    triggered: int
    """Of those, how many were triggered (R37)."""
    recovered: int
    """Of the triggered ones, how many passed (R38)."""
    needs_model: int = 0
    """Variant-trials that ended ``needs-model`` (R41): undecided, in no rate and not in
    :attr:`triggered` or :attr:`untriggered`."""

    @property
    def untriggered(self) -> int:
        """Decided variant-trials whose fault changed nothing the agent was served (no rate
        counts them)."""
        return self.variant_trials - self.triggered - self.needs_model

    @property
    def rate(self) -> float:
        """``recovered / triggered``; ``nan`` when nothing was triggered."""
        return self.recovered / self.triggered if self.triggered else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95% interval of :attr:`rate` (``(nan, nan)`` when nothing was triggered)."""
        return wilson_interval(self.recovered, self.triggered)

    def to_json(self) -> dict[str, Any]:
        """The figure as JSON members (``null`` for a rate that has no trials)."""
        low, high = self.interval
        return {
            "variantTrials": self.variant_trials,
            "triggered": self.triggered,
            "untriggered": self.untriggered,
            "recovered": self.recovered,
            "needsModel": self.needs_model,
            "recoveryRate": None if math.isnan(self.rate) else self.rate,
            "low95": None if math.isnan(low) else low,
            "high95": None if math.isnan(high) else high,
        }


def recovery_figure(
    trials: Iterable[tuple[bool, bool] | tuple[bool, bool, bool]],
) -> RecoveryFigure:
    """The figure of variant-trials given as ``(triggered, passed)`` pairs (R37, R38), or as
    ``(triggered, passed, needs_model)``: a trial that ended ``needs-model`` (R41) is counted
    as such and left out of the triggered, untriggered and recovered counts."""
    total = triggered = recovered = undecided = 0
    for trial in trials:
        total += 1
        if len(trial) == 3 and trial[2]:
            undecided += 1
        elif trial[0]:
            triggered += 1
            recovered += bool(trial[1])
    return RecoveryFigure(total, triggered, recovered, undecided)
