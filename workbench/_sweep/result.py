"""A sweep's result: one row per variant x trial, each trial's steps, per-boundary figures.

The table's columns and their dtypes are declared once (:data:`FRAME_DTYPES`); a row is a
:class:`SweepRow`, and the frame is built from rows, so the record, the columns and the CSV can
never disagree.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final

from .._common.step import Step, divergence, trajectory_string
from .._common.vocab import BASELINE, FAULT_KINDS, NEEDS_MODEL
from .._grade.trials import pass_hat_k
from .._replay.results import ReplayResult, TaskResult
from .._suite.model import Suite, task_tool_responses
from .plan import StepCache, VariantOutcome
from .variants import Variant

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FRAME_COLUMNS",
    "FRAME_DTYPES",
    "PER_BOUNDARY_COLUMNS",
    "SweepResult",
    "SweepRow",
    "tabulate",
]

StepKey = tuple[str, str, int]
"""``(variant, taskId, trial)``: how a trial's steps are found."""


@dataclass(frozen=True, slots=True)
class SweepRow:
    """One variant x trial of a sweep (the baseline's rows have variant ``"baseline"``)."""

    variant: str
    """The variant's name, or ``"baseline"``."""
    taskId: str
    """The task."""
    boundaries: str
    """The boundaries faulted, ``+``-joined (``""`` for the baseline)."""
    kind: str
    """The fault kind(s), or ``"baseline"``."""
    trial: int
    """The trial number (compared with the baseline's trial of the same number)."""
    passed: bool
    """Whether the trial passed as graded (R26-R28)."""
    score: float
    """The task's score over the variant's trials."""
    calls: int
    """Calls the agent made."""
    errorsServed: int
    """Failures the agent received."""
    fixtureMisses: int
    """Calls no fixture matched (R16)."""
    outcome: str
    """The agent's decision: completed, failed, escalated or needs-model."""
    divergenceStep: int | None
    """The first step where the trajectory leaves the baseline's (R33); ``None``: it does not."""
    recovered: bool | None
    """Whether the variant-trial still passed; ``None`` for the baseline and for a trial that
    ended ``needs-model`` (R41: left out of recovery rates)."""
    trajectory: str
    """The calls as ``a > b! > b`` (``!``: a failed call)."""


FRAME_DTYPES: Final[Mapping[str, str]] = {
    "variant": "object",
    "taskId": "object",
    "boundaries": "object",
    "kind": "object",
    "trial": "int64",
    "passed": "bool",
    "score": "float64",
    "calls": "int64",
    "errorsServed": "int64",
    "fixtureMisses": "int64",
    "outcome": "object",
    "divergenceStep": "Int64",
    "recovered": "boolean",
    "trajectory": "object",
}
"""The sweep table's columns, in order, and their pandas dtypes."""

FRAME_COLUMNS: Final[tuple[str, ...]] = tuple(FRAME_DTYPES)
"""The columns of :attr:`SweepResult.frame`, in order."""

assert tuple(f.name for f in fields(SweepRow)) == FRAME_COLUMNS
_ROW_VALUES = attrgetter(*FRAME_COLUMNS)

PER_BOUNDARY_COLUMNS: Final[tuple[str, ...]] = (
    "taskId", "boundary", "tool", "kind", "variants", "trials", "recoveryRate", "passHatK",
    "extraCalls",
)  # fmt: skip


def rows_frame(rows: Sequence[SweepRow]) -> pd.DataFrame:
    """The sweep table of ``rows`` (columns and dtypes :data:`FRAME_DTYPES`)."""
    import pandas as pd

    frame = pd.DataFrame([_ROW_VALUES(r) for r in rows], columns=list(FRAME_COLUMNS))
    return frame.astype(dict(FRAME_DTYPES))


@dataclass(frozen=True, slots=True)
class SweepResult:
    """A sweep: the baseline, the variants, one row per variant x trial, and each trial's steps."""

    suite: Suite
    """The baseline suite."""
    baseline_result: ReplayResult
    """The baseline's replay."""
    variants: tuple[Variant, ...]
    """The variants, in sweep order."""
    frame: pd.DataFrame
    """One row per variant x trial, baseline rows first (columns :data:`FRAME_COLUMNS`)."""
    steps: dict[StepKey, tuple[Step, ...]]
    """Each trial's steps by ``(variant, taskId, trial)``; the baseline's variant is
    ``"baseline"``."""
    trials: int
    """Trials per variant."""
    seed: int
    """The sweep's seed."""
    kinds: tuple[str, ...] = field(default=())
    """The fault kinds swept (for generated variants)."""

    @property
    def baseline(self) -> dict[str, TaskResult]:
        """The baseline's result per task, by ``taskId``."""
        return {t.task_id: t for t in self.baseline_result.tasks}

    @property
    def task_ids(self) -> tuple[str, ...]:
        """The baseline's task ids, in suite order."""
        return tuple(t.task_id for t in self.baseline_result.tasks)

    def variant(self, name: str) -> Variant:
        """The variant named ``name``."""
        for variant in self.variants:
            if variant.name == name:
                return variant
        raise KeyError(f"no variant {name!r}")

    def per_boundary(self) -> pd.DataFrame:
        """Per task, boundary and kind: how many variants and trials fault it, the recovery
        rate (share of those trials where the agent still met the expectations), pass^k (mean
        over the variants of pass^k at k = trials) and the mean extra calls over the baseline's
        trial. A pair variant counts for both its boundaries."""
        import pandas as pd

        frame = self.frame
        rows = frame[frame["variant"] != BASELINE]
        base_calls = {
            (r.taskId, r.trial): r.calls
            for r in frame[frame["variant"] == BASELINE].itertuples(index=False)
        }
        by_variant: dict[tuple[str, str], list[Any]] = {}
        for r in rows.itertuples(index=False):
            by_variant.setdefault((str(r.variant), str(r.taskId)), []).append(r)
        groups: dict[tuple[str, int, str], list[tuple[str, str]]] = {}
        for variant in self.variants:
            for fault in variant.faults:
                key = (fault.task_id, fault.boundary, fault.kind)
                members = groups.setdefault(key, [])
                if (variant.name, fault.task_id) not in members:
                    members.append((variant.name, fault.task_id))
        task_order = {t: i for i, t in enumerate(self.task_ids)}
        kind_order: dict[str, int] = {k: i for i, k in enumerate(FAULT_KINDS)}
        out: list[dict[str, Any]] = []
        for (task_id, boundary, kind), members in sorted(
            groups.items(),
            key=lambda kv: (task_order.get(kv[0][0], 0), kv[0][1], kind_order.get(kv[0][2], 9)),
        ):
            trial_rows = [r for m in members for r in by_variant.get(m, [])]
            if not trial_rows:
                continue
            # R41: needs-model trials are left out of the rates (their recovered is NA).
            decided = [r for r in trial_rows if r.outcome != NEEDS_MODEL]
            hat = [
                pass_hat_k(len(v), sum(bool(r.passed) for r in v), len(v))
                for m in members
                if (v := [r for r in by_variant.get(m, []) if r.outcome != NEEDS_MODEL])
            ]
            extra = [r.calls - base_calls.get((task_id, r.trial), 0) for r in trial_rows]
            entries = task_tool_responses(self.suite.task(task_id))
            out.append(
                {
                    "taskId": task_id,
                    "boundary": boundary,
                    "tool": str(entries[boundary].get("tool")) if boundary < len(entries) else "",
                    "kind": kind,
                    "variants": len(members),
                    "trials": len(trial_rows),
                    "recoveryRate": (
                        sum(bool(r.recovered) for r in decided) / len(decided)
                        if decided
                        else math.nan
                    ),
                    "passHatK": sum(hat) / len(hat) if hat else math.nan,
                    "extraCalls": sum(extra) / len(extra),
                }
            )
        return pd.DataFrame(out, columns=list(PER_BOUNDARY_COLUMNS))

    def branches(self, task_id: str | None = None) -> pd.DataFrame:
        """The branch tree (R33): see :func:`~workbench.branch_tree`."""
        from .branches import branch_tree

        return branch_tree(self, task_id)

    def write_csvs(self, out_dir: str | os.PathLike[str]) -> list[str]:
        """Write ``sweep.csv`` and ``branches.csv`` into ``out_dir`` (atomically); return paths."""
        from .._common.jsonio import write_text_atomic

        os.makedirs(out_dir, exist_ok=True)
        paths = []
        for name, frame in (("sweep.csv", self.frame), ("branches.csv", self.branches())):
            path = os.path.join(os.fspath(out_dir), name)
            write_text_atomic(path, frame.to_csv(index=False, lineterminator="\n"))
            paths.append(path)
        return paths


def tabulate(
    baseline: ReplayResult,
    variants: Sequence[Variant],
    outs: Mapping[int, VariantOutcome],
) -> tuple[pd.DataFrame, dict[StepKey, tuple[Step, ...]]]:
    """The sweep table and every trial's steps, baseline rows first, then variant by variant."""
    cache = StepCache()
    steps: dict[StepKey, tuple[Step, ...]] = {}
    rows: list[SweepRow] = []
    for task in baseline.tasks:
        for t in cache.task_outcome(task).trials:
            steps[(BASELINE, task.task_id, t.trial)] = t.steps
            rows.append(
                SweepRow(
                    BASELINE, task.task_id, "", BASELINE, t.trial, t.passed, task.score, t.calls,
                    t.errors_served, t.fixture_misses, t.outcome, None, None,
                    trajectory_string(t.steps),
                )
            )  # fmt: skip
    for index, variant in enumerate(variants):
        boundaries = "+".join(str(b) for b in variant.boundaries)
        for task_out in outs[index].tasks:
            task_id = task_out.task_id
            for t in task_out.trials:
                steps[(variant.name, task_id, t.trial)] = t.steps
                base = steps.get((BASELINE, task_id, t.trial), ())
                rows.append(
                    SweepRow(
                        variant.name, task_id, boundaries, variant.kind, t.trial, t.passed,
                        task_out.score, t.calls, t.errors_served, t.fixture_misses, t.outcome,
                        divergence(base, t.steps),
                        None if t.outcome == NEEDS_MODEL else t.passed,
                        trajectory_string(t.steps),
                    )
                )  # fmt: skip
    return rows_frame(rows), steps
