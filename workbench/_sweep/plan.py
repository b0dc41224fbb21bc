"""The work of a sweep as sent to an executor, and what comes back (SPEC R32).

A :class:`SweepPlan` is what every worker needs to know about the sweep (trials, seed, agent,
how faults are made); a :class:`Batch` is a baseline task and the variants to replay against it.
For generated variants only the baseline task and each variant's faults travel: workers build the
variant suites themselves. What comes back is small records (:class:`VariantOutcome`), with the
trajectory steps shared between trials where they are equal (a repeated object pickles once).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._common.canonical import canonical_json
from .._common.step import Step
from .._replay.host import CallRecord
from .._replay.results import TaskResult
from .._suite.model import Suite
from .variants import Fault

__all__ = [
    "Batch",
    "FaultOptions",
    "StepCache",
    "SweepPlan",
    "TaskOutcome",
    "TrialOutcome",
    "VariantOutcome",
    "WorkItem",
    "chunks",
]


@dataclass(frozen=True, slots=True)
class FaultOptions:
    """How injected faults are made (R32)."""

    hard_repeats: int = 3
    """How many more identical calls a ``hard`` fault fails after the first."""
    payload: Any = None
    """What an injected failure serves (``None``: ``{"error":"upstream_down"}`` as MCP text)."""


@dataclass(frozen=True, slots=True)
class SweepPlan:
    """What every variant of a sweep runs with: the same trials, seed and agent as the baseline."""

    trials: int = 1
    """Trials per variant."""
    seed: int = 0
    """The sweep's seed (the baseline's and every variant's)."""
    agent: Any = None
    """The agent (``None``: the scripted agent); it must pickle to run in other processes."""
    faults: FaultOptions = field(default_factory=FaultOptions)
    """How faults are injected."""


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One variant to replay: its place in the sweep, its name, its faults, or its own suite."""

    index: int
    name: str
    faults: tuple[Fault, ...]
    suite_data: dict[str, Any] | None
    """``None``: build the variant from the batch's base and the faults."""


@dataclass(frozen=True, slots=True)
class Batch:
    """Variants of one task, sent to a worker together."""

    base: dict[str, Any]
    """The baseline suite holding the batch's task only."""
    items: tuple[WorkItem, ...]
    plan: SweepPlan


@dataclass(frozen=True, slots=True)
class TrialOutcome:
    """One replayed trial, as the sweep table reads it."""

    trial: int
    passed: bool
    calls: int
    errors_served: int
    fixture_misses: int
    outcome: str
    steps: tuple[Step, ...]
    """The trial's own steps: after the baseline trial's first :attr:`prefix` steps and, when
    :attr:`rejoin` is 0 or more, before the baseline's steps from that index on."""
    triggered: bool = True
    """Whether the trial was served anything the baseline trial was not (R37)."""
    divergence: int | None = None
    """The first step where the trajectory leaves the baseline's (R33)."""
    prefix: int = 0
    """Baseline steps before :attr:`steps` (a trial resumed from the baseline's prefix)."""
    rejoin: int = -1
    """The baseline step index from which the rest of the trial is the baseline's (-1: none)."""

    def all_steps(self, baseline: Sequence[Step]) -> tuple[Step, ...]:
        """Every step of the trial, given the baseline trial's steps."""
        if not self.prefix and self.rejoin < 0:
            return self.steps
        tail = tuple(baseline[self.rejoin :]) if self.rejoin >= 0 else ()
        return (*baseline[: self.prefix], *self.steps, *tail)


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """One task of one variant over its trials."""

    task_id: str
    score: float
    trials: tuple[TrialOutcome, ...]


@dataclass(frozen=True, slots=True)
class VariantOutcome:
    """What replaying one variant gave, by its index in the sweep."""

    index: int
    tasks: tuple[TaskOutcome, ...]


class StepCache:
    """Canonical args text and :class:`~workbench.Step` objects reused within a batch (cheaper
    to make and to pickle: a repeated object is sent once)."""

    def __init__(self) -> None:
        self._canon: dict[int, tuple[Any, str]] = {}
        self._steps: dict[tuple[str, str, bool, str, str], Step] = {}

    def step(self, call: CallRecord) -> Step:
        """The call as a step (the same object for equal steps)."""
        args = call.args
        held = self._canon.get(id(args))
        if held is not None and held[0] is args:
            text = held[1]
        else:
            text = canonical_json(args)
            self._canon[id(args)] = (args, text)  # holding args keeps its id from being reused
        error = call.error or ""
        key = (call.tool, text, call.is_error, call.served_by, error)
        found = self._steps.get(key)
        if found is None:
            found = self._steps[key] = Step(call.tool, text, call.is_error, call.served_by, error)
        return found

    def task_outcome(self, task: TaskResult) -> TaskOutcome:
        """A replayed task as the sweep table reads it."""
        return TaskOutcome(
            task.task_id,
            task.score,
            tuple(
                TrialOutcome(
                    r.trial,
                    r.passed,
                    len(r.calls),
                    r.errors_served,
                    r.fixture_misses,
                    r.decision.outcome,
                    tuple(self.step(c) for c in r.calls),
                )
                for r in task.trials
            ),
        )


def chunks(items: Sequence[WorkItem], size: int) -> Iterator[tuple[WorkItem, ...]]:
    """``items`` in runs of ``size``."""
    for start in range(0, len(items), size):
        yield tuple(items[start : start + size])


def batches_for(
    suite: Suite,
    items_by_task: Mapping[str, Sequence[WorkItem]],
    plan: SweepPlan,
    *,
    in_process: bool,
    workers: int,
) -> list[Batch]:
    """The batches of a sweep: per task, small ones in process (a lively progress bar, and a
    cancel from ``on_progress`` waits for at most one: 4 variants), else 4
    per worker (enough to balance the load, few enough that each pays for its trip), strided so
    each mixes early and late boundaries (their costs differ)."""
    root = {k: v for k, v in suite.data.items() if k != "tasks"}
    batches: list[Batch] = []
    for task_id, items in items_by_task.items():
        base = {**root, "tasks": [suite.task(task_id)]} if task_id else suite.data
        if in_process:
            groups = list(chunks(items, 4))
        else:
            count = min(len(items), 4 * workers)
            groups = [tuple(items[k::count]) for k in range(count)]
        batches.extend(Batch(base, group, plan) for group in groups)
    return batches
