"""What a replay gives: each trial, each task over its trials, and the run (SPEC R24-R29)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._common.jsonio import write_json_atomic
from .._common.step import Step, trajectory_string
from .._common.vocab import NEEDS_MODEL
from .._grade.trial import task_summary_entry
from .._grade.trials import TrialStats
from .._suite.capabilities import HostProfile
from .._suite.model import Suite
from .agents import Decision, ModelTurns
from .events import write_event_log
from .host import CallRecord

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ReplayResult", "TaskResult", "TrialResult"]


@dataclass(frozen=True, slots=True)
class TrialResult:
    """One trial of one task: what the agent did and how it was graded."""

    task_id: str
    """The task's id."""
    trial: int
    """0-based trial number."""
    decision: Decision
    """The agent's decision."""
    calls: tuple[CallRecord, ...]
    """The trajectory: every call, failed ones included, in order."""
    fixture_misses: int
    """Calls that matched no fixture entry (R16)."""
    errors_served: int
    """Failures the agent received."""
    golden_passed: bool | None
    """Whether the output met the golden expectation (``None``: the task has none)."""
    trajectory_passed: bool | None
    """Whether the calls met the trajectory expectation (``None``: the task has none)."""
    passed: bool
    """Whether the trial passed: golden and trajectory met, and no miss under ``onMiss: fail``."""
    agent_error: str | None = None
    """The exception the agent raised, if it raised one (the trial then fails)."""

    @property
    def needs_model(self) -> bool:
        """Whether the trial ended ``needs-model`` (R41): neither passed nor failed, left out
        of the task's score and of recovery rates, counted on its own."""
        return self.decision.outcome == NEEDS_MODEL

    @property
    def model_turns(self) -> ModelTurns | None:
        """For an LLM agent: how many turns came from the recording, the cache, the model."""
        return self.decision.model_turns

    @property
    def trajectory(self) -> str:
        """The calls as a compact string (``tool`` per step, ``!`` marking a failed call)."""
        return trajectory_string(self.calls)

    @property
    def steps(self) -> tuple[Step, ...]:
        """The calls as trajectory :class:`~workbench.Step` records."""
        return tuple(call.to_step() for call in self.calls)


@dataclass(frozen=True, slots=True)
class TaskResult:
    """A task over its trials (R28)."""

    task_id: str
    """The task's id."""
    trials: tuple[TrialResult, ...]
    """Each trial's result."""
    stats: TrialStats
    """n, passes, pass@k and pass^k."""
    passed: bool
    """Whether the task passed (all trials, unless thresholds say otherwise)."""

    @property
    def score(self) -> float:
        """Passing trials / trials."""
        return self.stats.score

    @property
    def fixture_misses(self) -> int:
        """Misses over every trial."""
        return sum(t.fixture_misses for t in self.trials)

    @property
    def needs_model(self) -> int:
        """Trials that ended ``needs-model`` (R41), left out of :attr:`stats`."""
        return sum(t.needs_model for t in self.trials)

    def summary_entry(self) -> dict[str, Any]:
        """The task's entry in the extended summary (R29)."""
        return task_summary_entry(
            self.task_id, self.stats, self.passed, self.fixture_misses, self.needs_model
        )


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The result of replaying a suite: per-task results, the summary and the event log."""

    suite: Suite
    """The suite replayed."""
    profile: HostProfile
    """The host profile it ran under."""
    seed: int
    """The run's seed."""
    run_id: str
    """The run's id on the event log."""
    tasks: tuple[TaskResult, ...]
    """Per-task results, in suite order."""
    summary: dict[str, Any]
    """The extended EvalSummary (R29)."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """The event log (empty when events were off)."""

    @property
    def passed(self) -> bool:
        """The summary's ``passed`` flag."""
        return bool(self.summary["passed"])

    @property
    def fixture_miss_count(self) -> int:
        """Misses over the whole run."""
        return int(self.summary["fixtureMissCount"])

    @property
    def needs_model_count(self) -> int:
        """Trials over the whole run that ended ``needs-model`` (R41)."""
        return int(self.summary.get("needsModelCount", 0))

    def task(self, task_id: str) -> TaskResult:
        """The result of one task."""
        for task in self.tasks:
            if task.task_id == task_id:
                return task
        raise KeyError(task_id)

    def to_frame(self) -> pd.DataFrame:
        """One row per task: score, passed, trials (decided), fixture misses, calls, errors
        served, and trials that ended ``needs-model`` (R41)."""
        import pandas as pd

        rows = [
            {
                "taskId": t.task_id,
                "score": t.score,
                "passed": t.passed,
                "trials": t.stats.n,
                "passedTrials": t.stats.passed,
                "fixtureMisses": t.fixture_misses,
                "calls": sum(len(r.calls) for r in t.trials),
                "errorsServed": sum(r.errors_served for r in t.trials),
                "needsModel": t.needs_model,
            }
            for t in self.tasks
        ]
        columns = [
            "taskId", "score", "passed", "trials", "passedTrials",
            "fixtureMisses", "calls", "errorsServed", "needsModel",
        ]  # fmt: skip
        return pd.DataFrame(rows, columns=columns)

    def trials_frame(self) -> pd.DataFrame:
        """One row per trial: outcome, passed, calls, misses, errors and the trajectory."""
        import pandas as pd

        rows = [
            {
                "taskId": r.task_id,
                "trial": r.trial,
                "outcome": r.decision.outcome,
                "passed": r.passed,
                "goldenPassed": r.golden_passed,
                "trajectoryPassed": r.trajectory_passed,
                "calls": len(r.calls),
                "errorsServed": r.errors_served,
                "fixtureMisses": r.fixture_misses,
                "trajectory": r.trajectory,
                # an LLM agent's turns by source (R40, R41); NA for other agents
                "turnsRecorded": None if r.model_turns is None else r.model_turns.recording,
                "turnsCached": None if r.model_turns is None else r.model_turns.cache,
                "turnsLive": None if r.model_turns is None else r.model_turns.live,
            }
            for t in self.tasks
            for r in t.trials
        ]
        frame = pd.DataFrame(rows)
        for column in ("turnsRecorded", "turnsCached", "turnsLive"):
            if column in frame:
                frame[column] = frame[column].astype("Int64")
        return frame

    def write_events(
        self,
        path: str | os.PathLike[str],
        *,
        overwrite: bool = False,
        parents: bool = False,
        inputs: Iterable[str | os.PathLike[str] | None] = (),
    ) -> None:
        """Write the event log as JSONL, atomically.

        Refused (:class:`~workbench.OutputError`) when ``path`` is the suite's own file or one
        of ``inputs``, a folder, a device or a FIFO, or an existing file that is not an event
        log the workbench wrote (unless ``overwrite=True``); missing folders are created only
        with ``parents=True``.
        """
        write_event_log(
            path,
            self.events,
            overwrite=overwrite,
            parents=parents,
            inputs=(self.suite.path, *inputs),
        )

    def write_summary(
        self,
        path: str | os.PathLike[str],
        *,
        overwrite: bool = False,
        parents: bool = False,
        inputs: Iterable[str | os.PathLike[str] | None] = (),
    ) -> None:
        """Write the summary as stable JSON, atomically (refused as :meth:`write_events` says;
        an existing file may be replaced when it is stable JSON the workbench wrote)."""
        write_json_atomic(
            path,
            self.summary,
            overwrite=overwrite,
            parents=parents,
            inputs=(self.suite.path, *inputs),
        )
