"""Tables a sweep writes and holds: formula-safe CSV text, and each trial's steps by reference.

CSV cells follow OWASP's CSV injection rule (:func:`csv_safe`), so a recorded tool name such as
``=HYPERLINK(...)`` reaches a spreadsheet as text. :class:`TrialSteps` holds a variant-trial
resumed from the baseline's prefix as a reference to the baseline's steps.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from .._common.step import Step
from .._common.text import safe_text
from .._common.vocab import BASELINE
from .plan import TrialOutcome

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["StepKey", "TrialSteps", "csv_safe", "frame_csv"]

StepKey = tuple[str, str, int]
"""``(variant, taskId, trial)``: how a trial's steps are found."""

_FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """A CSV cell shown safely: its control, separator and format characters written as
    visible escapes (``safe_text``: an escape sequence in recorded text never reaches a
    terminal that shows the file), and text no spreadsheet reads as a formula (OWASP's CSV
    injection rule: text starting with ``=``, ``+``, ``-`` or ``@`` gets a leading ``'``).
    Other values are returned as they are."""
    if not isinstance(value, str):
        return value
    value = safe_text(value)
    if value.startswith(_FORMULA_START):
        return "'" + value
    return value


def frame_csv(frame: pd.DataFrame) -> str:
    """A frame as CSV text, every text cell made formula-safe (:func:`csv_safe`)."""
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype == object or str(safe[column].dtype) in ("string", "str"):
            safe[column] = safe[column].map(csv_safe)
    return str(safe.to_csv(index=False, lineterminator="\n"))


class TrialSteps(Mapping[StepKey, tuple[Step, ...]]):
    """Each trial's steps by ``(variant, taskId, trial)``, kept as references to the baseline's.

    A variant-trial resumed from the baseline's prefix (see :mod:`workbench._sweep.resume`)
    holds only its own steps; its whole trajectory is made when it is looked up, so a sweep of
    thousands of variants of a long run does not hold thousands of copies of the baseline.
    """

    __slots__ = ("_baseline", "_held")

    def __init__(self) -> None:
        self._held: dict[StepKey, tuple[Step, ...] | TrialOutcome] = {}
        self._baseline: dict[tuple[str, int], tuple[Step, ...]] = {}

    def add_baseline(self, task_id: str, trial: int, steps: tuple[Step, ...]) -> None:
        """Hold a baseline trial's steps."""
        self._baseline[(task_id, trial)] = steps
        self._held[(BASELINE, task_id, trial)] = steps

    def add(self, key: StepKey, outcome: TrialOutcome) -> None:
        """Hold a variant-trial, by reference to its task's baseline trial."""
        self._held[key] = outcome.steps if not outcome.prefix and outcome.rejoin < 0 else outcome

    def baseline_steps(self, task_id: str, trial: int) -> tuple[Step, ...]:
        """The baseline trial's steps (``()`` when there is none)."""
        return self._baseline.get((task_id, trial), ())

    def __getitem__(self, key: StepKey) -> tuple[Step, ...]:
        held = self._held[key]
        if isinstance(held, tuple):
            return held
        return held.all_steps(self._baseline.get((key[1], key[2]), ()))

    def __iter__(self) -> Iterator[StepKey]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)

    def parts(self, key: StepKey) -> tuple[int, tuple[Step, ...], int]:
        """A trial as ``(prefix, own steps, rejoin)``: the baseline's first ``prefix`` steps, its
        own steps, then (``rejoin`` >= 0) the baseline's steps from ``rejoin`` on."""
        held = self._held[key]
        if isinstance(held, tuple):
            return (0, held, -1)
        return (held.prefix, held.steps, held.rejoin)

    def length(self, key: StepKey) -> int:
        """The number of steps of a trial, without making them."""
        held = self._held[key]
        if isinstance(held, tuple):
            return len(held)
        base = self._baseline.get((key[1], key[2]), ())
        tail = len(base) - held.rejoin if held.rejoin >= 0 else 0
        return held.prefix + len(held.steps) + tail
