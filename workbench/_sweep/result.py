"""A sweep's result: one row per variant x trial, each trial's steps, per-boundary figures.

The table's columns and their dtypes are declared once (:data:`FRAME_DTYPES`); a row is a
:class:`SweepRow`, and the frame is built from rows, so the record, the columns and the CSV can
never disagree.

Longer than 400 lines: the table and every figure read from it (per boundary, the recovery
levels of R38, the minimal failing pairs) are one view of one sweep, computed from the same rows.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final, cast

from .._common.step import Step, trajectory_string
from .._common.text import cut
from .._common.vocab import BASELINE, FAULT_KINDS, NEEDS_MODEL
from .._grade.recovery import RecoveryFigure, recovery_figure
from .._grade.trials import pass_hat_k
from .._replay.results import ReplayResult, TaskResult
from .._suite.model import Suite, task_tool_responses
from .plan import StepCache, VariantOutcome
from .tables import StepKey, TrialSteps, csv_safe, frame_csv
from .variants import Variant

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FRAME_COLUMNS",
    "FRAME_DTYPES",
    "MINIMAL_PAIR_COLUMNS",
    "PER_BOUNDARY_COLUMNS",
    "RECOVERY_COLUMNS",
    "SweepResult",
    "SweepRow",
    "TrialSteps",
    "csv_safe",
    "frame_csv",
    "tabulate",
]


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
    triggered: bool | None
    """Whether the agent was served a result the baseline trial was not (R37); ``None`` for the
    baseline."""
    recovered: bool | None
    """Whether the triggered variant-trial passed (R38); ``None`` for the baseline, for an
    untriggered variant-trial (its fault changed nothing the agent saw) and for a trial that
    ended ``needs-model`` (R41). Every rate leaves the ``None`` ones out."""
    trajectory: str
    """The calls as ``a > b! > b`` (``!``: a failed call); past 200 steps cut, ending
    ``… (+N calls)``."""


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
    "triggered": "boolean",
    "recovered": "boolean",
    "trajectory": "object",
}
"""The sweep table's columns, in order, and their pandas dtypes."""

FRAME_COLUMNS: Final[tuple[str, ...]] = tuple(FRAME_DTYPES)
"""The columns of :attr:`SweepResult.frame`, in order."""

assert tuple(f.name for f in fields(SweepRow)) == FRAME_COLUMNS
_ROW_VALUES = attrgetter(*FRAME_COLUMNS)

PER_BOUNDARY_COLUMNS: Final[tuple[str, ...]] = (
    "taskId", "boundary", "tool", "kind", "variants", "trials", "triggered", "untriggered",
    "recovered", "recoveryRate", "low95", "high95", "passHatK", "extraCalls",
)  # fmt: skip
"""The columns of :meth:`SweepResult.per_boundary`."""

RECOVERY_COLUMNS: Final[tuple[str, ...]] = (
    "level", "taskId", "boundary", "tool", "kind", "variantTrials", "triggered", "untriggered",
    "recovered", "needsModel", "recoveryRate", "low95", "high95",
)  # fmt: skip
"""The columns of :meth:`SweepResult.recovery` and ``recovery.csv``: one row per task x
boundary x kind (``level`` ``boundary``), per task x kind (``task-kind``), per task (``task``),
per kind over every task (``kind``) and one ``overall`` row."""

MINIMAL_PAIR_COLUMNS: Final[tuple[str, ...]] = (
    "taskId", "variant", "boundaries", "kind", "trial", "tools",
)  # fmt: skip
"""The columns of :meth:`SweepResult.minimal_failing_pairs`."""


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
    steps: Mapping[StepKey, tuple[Step, ...]]
    """Each trial's steps by ``(variant, taskId, trial)``; the baseline's variant is
    ``"baseline"``."""
    trials: int
    """Trials per variant."""
    seed: int
    """The sweep's seed."""
    kinds: tuple[str, ...] = field(default=())
    """The fault kinds swept (for generated variants)."""
    faults: str = "custom"
    """What was swept: ``single``, ``pairs``, ``tool:NAME`` or ``custom`` (your variants)."""
    agent_name: str = "workbench.scripted-agent"
    """The agent's id (R25): the scripted agent unless another was given."""
    baseline_note: str = "the suite as given"
    """What the baseline is (R38): the suite as given, as promoted from a recording, or as
    edited after promotion."""
    singles: pd.DataFrame | None = None
    """For a pairs sweep: the single-fault sweep of the same boundaries and kinds (its frame),
    which :meth:`minimal_failing_pairs` compares the pairs with."""

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

    def _groups(self) -> dict[tuple[str, int, str], list[tuple[str, str]]]:
        """(task, boundary, kind) -> the (variant, task) pairs faulting it, in sweep order."""
        groups: dict[tuple[str, int, str], list[tuple[str, str]]] = {}
        for variant in self.variants:
            for fault in variant.faults:
                members = groups.setdefault((fault.task_id, fault.boundary, fault.kind), [])
                if (variant.name, fault.task_id) not in members:
                    members.append((variant.name, fault.task_id))
        task_order = {t: i for i, t in enumerate(self.task_ids)}
        kind_order: dict[str, int] = {k: i for i, k in enumerate(FAULT_KINDS)}
        return dict(
            sorted(
                groups.items(),
                key=lambda kv: (
                    task_order.get(kv[0][0], 0), kv[0][1], kind_order.get(kv[0][2], 9)
                ),
            )
        )  # fmt: skip

    def _trial_rows(self) -> dict[tuple[str, str], list[Any]]:
        rows = self.frame[self.frame["variant"] != BASELINE]
        by_variant: dict[tuple[str, str], list[Any]] = {}
        for r in rows.itertuples(index=False):
            by_variant.setdefault((str(r.variant), str(r.taskId)), []).append(r)
        return by_variant

    def _tools(self) -> dict[str, list[Any]]:
        """Each task's fixture entries, by task id (looked up once, not once per boundary)."""
        tasks: dict[str, list[Any]] = {}
        for task in self.suite.tasks:
            tasks.setdefault(str(task.get("taskId")), list(task_tool_responses(task)))
        return tasks

    @staticmethod
    def _tool(tools: Mapping[str, Sequence[Any]], task_id: str, boundary: int) -> str:
        entries = tools.get(task_id, ())
        return str(entries[boundary].get("tool")) if 0 <= boundary < len(entries) else ""

    def per_boundary(self) -> pd.DataFrame:
        """Per task, boundary and kind (columns :data:`PER_BOUNDARY_COLUMNS`): the variants and
        variant-trials faulting it, how many were triggered (R37) and untriggered, how many of
        the triggered recovered (R38), the recovery rate over triggered variant-trials only with
        its Wilson 95% interval (``low95``, ``high95``; empty when none was triggered), pass^k
        (mean over the variants of pass^k at k = their triggered trials) and ``extraCalls``,
        the mean number of calls a triggered variant-trial made beyond its baseline trial's. A
        pair variant counts for both its boundaries."""
        import pandas as pd

        frame = self.frame
        base_calls = {
            (r.taskId, r.trial): r.calls
            for r in frame[frame["variant"] == BASELINE].itertuples(index=False)
        }
        by_variant = self._trial_rows()
        tools = self._tools()
        out: list[dict[str, Any]] = []
        for (task_id, boundary, kind), members in self._groups().items():
            trial_rows = [r for m in members for r in by_variant.get(m, [])]
            if not trial_rows:
                continue
            # R37/R38: rates over triggered trials; R41: needs-model trials are in none.
            figure = recovery_figure(_figure_key(r) for r in trial_rows)
            low, high = figure.interval
            hat = []
            for m in members:
                done = [r for r in by_variant.get(m, []) if _decided_triggered(r)]
                if done:
                    hat.append(pass_hat_k(len(done), sum(bool(r.passed) for r in done), len(done)))
            fired = [r for r in trial_rows if _decided_triggered(r)]
            extra = [r.calls - base_calls.get((task_id, r.trial), 0) for r in fired]
            out.append(
                {
                    "taskId": task_id,
                    "boundary": boundary,
                    "tool": self._tool(tools, task_id, boundary),
                    "kind": kind,
                    "variants": len(members),
                    "trials": len(trial_rows),
                    "triggered": figure.triggered,
                    "untriggered": figure.untriggered,
                    "recovered": figure.recovered,
                    "recoveryRate": figure.rate,
                    "low95": low,
                    "high95": high,
                    "passHatK": sum(hat) / len(hat) if hat else math.nan,
                    "extraCalls": sum(extra) / len(extra) if extra else math.nan,
                }
            )
        return pd.DataFrame(out, columns=list(PER_BOUNDARY_COLUMNS))

    def recovery(self) -> pd.DataFrame:
        """Recovery figures (R38) at every level (columns :data:`RECOVERY_COLUMNS`): per task x
        boundary x kind, per task x kind, per task, per kind and overall; each with its
        variant-trials, triggered and untriggered counts (R37), recoveries, the rate over
        triggered variant-trials and its Wilson 95% interval. Above the boundary level each
        variant-trial counts once (a pair variant is not counted twice)."""
        import pandas as pd

        by_variant = self._trial_rows()
        out: list[dict[str, Any]] = []

        def add(
            level: str, task: str, boundary: Any, tool: str, kind: str, rows: list[Any]
        ) -> None:
            figure = recovery_figure(_figure_key(r) for r in rows)
            data = figure.to_json()
            out.append(
                {
                    "level": level, "taskId": task, "boundary": boundary, "tool": tool,
                    "kind": kind, **{k: data[k] for k in RECOVERY_COLUMNS[5:]},
                }
            )  # fmt: skip

        tools = self._tools()
        for (task_id, boundary, kind), members in self._groups().items():
            rows = [r for m in members for r in by_variant.get(m, [])]
            add("boundary", task_id, boundary, self._tool(tools, task_id, boundary), kind, rows)
        kinds = list(dict.fromkeys(v.kind for v in self.variants))
        variant_kind = {v.name: v.kind for v in self.variants}
        by_task: dict[str, list[Any]] = {}
        for (_, t), rs in by_variant.items():
            by_task.setdefault(t, []).extend(rs)
        for task_id in self.task_ids:
            task_rows = by_task.get(task_id, [])
            for kind in kinds:
                part = [r for r in task_rows if variant_kind.get(str(r.variant)) == kind]
                if part:
                    add("task-kind", task_id, None, "", kind, part)
            add("task", task_id, None, "", "", task_rows)
        every = [r for rs in by_variant.values() for r in rs]
        for kind in kinds:
            add("kind", "", None, "", kind,
                [r for r in every if variant_kind.get(str(r.variant)) == kind])  # fmt: skip
        add("overall", "", None, "", "", every)
        frame = pd.DataFrame(out, columns=list(RECOVERY_COLUMNS))
        return frame.astype({"boundary": "Int64"})

    def overall(self) -> RecoveryFigure:
        """Recovery over every variant-trial of the sweep (R38)."""
        rows = self.frame[self.frame["variant"] != BASELINE]
        return recovery_figure(
            (bool(t), bool(p), o == NEEDS_MODEL)
            for t, p, o in zip(rows["triggered"], rows["passed"], rows["outcome"], strict=True)
        )

    def minimal_failing_pairs(self) -> pd.DataFrame:
        """For a pairs sweep: the pair variant-trials that failed though each of their two faults
        alone was recovered (triggered and passed, same kind, same trial) in :attr:`singles`.
        These are the smallest fault sets that break the task (columns
        :data:`MINIMAL_PAIR_COLUMNS`); empty for other sweeps."""
        import pandas as pd

        if self.singles is None:
            return pd.DataFrame([], columns=list(MINIMAL_PAIR_COLUMNS))
        alone: dict[tuple[str, str, str, int], bool] = {}
        for r in self.singles.itertuples(index=False):
            if r.variant != BASELINE:
                key = (str(r.taskId), str(r.boundaries), str(r.kind), int(cast(Any, r.trial)))
                alone[key] = _decided_triggered(r) and bool(r.passed)
        out: list[dict[str, Any]] = []
        found = self._tools()
        for r in self.frame.itertuples(index=False):
            parts = str(r.boundaries).split("+")
            if r.variant == BASELINE or len(parts) != 2 or "+" in str(r.kind):
                continue
            if not _decided_triggered(r) or bool(r.passed):
                continue
            task_id, kind, trial = str(r.taskId), str(r.kind), int(cast(Any, r.trial))
            if all(alone.get((task_id, p, kind, trial), False) for p in parts):
                tools = " + ".join(self._tool(found, task_id, int(p)) for p in parts)
                out.append(
                    {"taskId": task_id, "variant": str(r.variant), "boundaries": str(r.boundaries),
                     "kind": kind, "trial": trial, "tools": tools}
                )  # fmt: skip
        return pd.DataFrame(out, columns=list(MINIMAL_PAIR_COLUMNS))

    def branches(self, task_id: str | None = None, **limits: Any) -> pd.DataFrame:
        """The branch tree (R33): see :func:`~workbench.branch_tree`."""
        from .branches import branch_tree

        return branch_tree(self, task_id, **limits)

    def write_csvs(
        self, out_dir: str | os.PathLike[str], *, overwrite: bool = False, parents: bool = False
    ) -> list[str]:
        """Write ``sweep.csv``, ``branches.csv`` and ``recovery.csv`` into ``out_dir`` (atomically,
        text cells formula-safe: :func:`csv_safe`); return their paths.

        An existing CSV is replaced when its header is the one written (the workbench's own
        table), or with ``overwrite=True``; ``out_dir`` must exist unless ``parents=True``."""
        from .._common.jsonio import write_text_atomic
        from .._common.markers import file_starts_with

        paths = []
        for name, frame in (
            ("sweep.csv", self.frame),
            ("branches.csv", self.branches()),
            ("recovery.csv", self.recovery()),
        ):
            path = os.path.join(os.fspath(out_dir), name)
            text = frame_csv(frame)
            header = text.split("\n", 1)[0] + "\n"
            write_text_atomic(
                path,
                text,
                overwrite=overwrite,
                parents=parents,
                recognise=file_starts_with(header.encode("utf-8")),
            )
            paths.append(path)
        return paths


def _decided_triggered(row: Any) -> bool:
    """A frame row that was triggered (R37) and decided (not ``needs-model``, R41)."""
    return bool(row.triggered) and row.outcome != NEEDS_MODEL


def _figure_key(row: Any) -> tuple[bool, bool, bool]:
    """A frame row as :func:`recovery_figure` takes it: triggered, passed, needs-model."""
    return (bool(row.triggered), bool(row.passed), row.outcome == NEEDS_MODEL)


TRAJECTORY_STEPS: Final = 200
"""Steps the ``trajectory`` column writes out; a longer trajectory ends ``… (+N calls)`` (its
steps are all in :attr:`SweepResult.steps`)."""


TRAJECTORY_NAME = 100
"""Characters of a tool's name the ``trajectory`` column writes out; a longer one ends ``…``
(a column of 400 variants x 200 calls of a 10 KB name took 3.5 GB)."""


def _trajectory(steps: TrialSteps, key: StepKey) -> str:
    shown = steps[key] if steps.length(key) <= TRAJECTORY_STEPS else steps[key][:TRAJECTORY_STEPS]
    text = trajectory_string(shown)
    if len(text) > (TRAJECTORY_NAME + 4) * len(shown):  # (a name over the limit, maybe)
        text = " > ".join(cut(s.tool, TRAJECTORY_NAME) + ("!" if s.is_error else "") for s in shown)
    more = steps.length(key) - len(shown)
    return f"{text} > \u2026 (+{more:,} calls)" if more > 0 else text


def tabulate(
    baseline: ReplayResult,
    variants: Sequence[Variant],
    outs: Mapping[int, VariantOutcome],
) -> tuple[pd.DataFrame, TrialSteps]:
    """The sweep table and every trial's steps, baseline rows first, then variant by variant."""
    cache = StepCache()
    steps = TrialSteps()
    rows: list[SweepRow] = []
    for task in baseline.tasks:
        for t in cache.task_outcome(task).trials:
            steps.add_baseline(task.task_id, t.trial, t.steps)
            rows.append(
                SweepRow(
                    BASELINE, task.task_id, "", BASELINE, t.trial, t.passed, task.score, t.calls,
                    t.errors_served, t.fixture_misses, t.outcome, None, None, None,
                    _trajectory(steps, (BASELINE, task.task_id, t.trial)),
                )
            )  # fmt: skip
    for index, variant in enumerate(variants):
        boundaries = "+".join(str(b) for b in variant.boundaries)
        for task_out in outs[index].tasks:
            task_id = task_out.task_id
            for t in task_out.trials:
                key = (variant.name, task_id, t.trial)
                steps.add(key, t)
                rows.append(
                    SweepRow(
                        variant.name, task_id, boundaries, variant.kind, t.trial, t.passed,
                        task_out.score, t.calls, t.errors_served, t.fixture_misses, t.outcome,
                        t.divergence, t.triggered,
                        t.passed if t.triggered and t.outcome != NEEDS_MODEL else None,
                        _trajectory(steps, key),
                    )
                )  # fmt: skip
    return rows_frame(rows), steps
