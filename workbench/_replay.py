"""Replaying a suite: tasks x trials through an agent on the fixture host, graded (R10-R29).

:func:`replay` checks the suite against the host profile (refusing it before any event is
written, R11), runs every task's trials through the agent on a :class:`~workbench.FixtureHost`,
writes the event log in the order of R19, grades each trial (golden R26, trajectory R27, misses
R16) and each task over its trials (R28), and builds the summary (R29).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._agents import Agent, Decision, ScriptedAgent, ScriptError, TaskContext, as_decision
from ._agents import script_problems as _script_problems
from ._capabilities import HostProfile, check_suite
from ._events import EventLog, run_id_for
from ._grading import (
    TrialStats,
    aggregate_score,
    golden_match,
    suite_passed,
    task_passed,
    trajectory_report,
    trial_stats,
)
from ._host import CallRecord, FixtureHost, LiveTool, TaskFixtures
from ._jsonio import write_json_atomic
from ._suite import Suite, task_trials

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ReplayResult", "TaskResult", "TrialResult", "replay", "trajectory_string"]


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
    def trajectory(self) -> str:
        """The calls as a compact string (``tool`` per step, ``!`` marking a failed call)."""
        return trajectory_string(self.calls)


def trajectory_string(calls: Sequence[CallRecord]) -> str:
    """``a > b! > b``: the tools called, in order, a failed call marked with ``!`` (R17)."""
    return " > ".join(f"{c.tool}!" if c.is_error else c.tool for c in calls)


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

    def summary_entry(self) -> dict[str, Any]:
        """The task's entry in the extended summary (R29)."""
        return {
            "taskId": self.task_id,
            "score": self.stats.score,
            "passed": self.passed,
            "fixtureMissCount": self.fixture_misses,
            "trials": {
                "n": self.stats.n,
                "passed": self.stats.passed,
                "passAtK": dict(self.stats.pass_at_k),
                "passHatK": dict(self.stats.pass_hat_k),
            },
        }


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

    def task(self, task_id: str) -> TaskResult:
        """The result of one task."""
        for task in self.tasks:
            if task.task_id == task_id:
                return task
        raise KeyError(task_id)

    def to_frame(self) -> pd.DataFrame:
        """One row per task: score, passed, trials, fixture misses, calls, errors served."""
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
            }
            for t in self.tasks
        ]
        columns = [
            "taskId", "score", "passed", "trials", "passedTrials",
            "fixtureMisses", "calls", "errorsServed",
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
            }
            for t in self.tasks
            for r in t.trials
        ]
        return pd.DataFrame(rows)

    def write_events(self, path: str | os.PathLike[str]) -> None:
        """Write the event log as JSONL, atomically."""
        from ._events import events_to_jsonl
        from ._jsonio import write_text_atomic

        write_text_atomic(path, events_to_jsonl(self.events))

    def write_summary(self, path: str | os.PathLike[str]) -> None:
        """Write the summary as stable JSON, atomically."""
        write_json_atomic(path, self.summary)


def _agent_id(agent: Any) -> str:
    value = getattr(agent, "agent_id", None)
    return value if isinstance(value, str) and value else "workbench.agent"


def _grade_trial(
    task: Mapping[str, Any],
    decision: Decision,
    calls: Sequence[CallRecord],
    misses: int,
    on_miss: str,
) -> tuple[bool | None, bool | None, bool]:
    golden: bool | None = None
    expected = task.get("expected")
    if isinstance(expected, Mapping):
        match = expected.get("match")
        if expected.get("kind") == "golden" and isinstance(match, Mapping):
            golden = golden_match(
                decision.output(), match.get("strategy", "exact"), match.get("value")
            )
        elif expected.get("kind") == "rubric":
            golden = False  # the workbench has no rubric judge; such a task cannot pass here
    trajectory: bool | None = None
    spec = task.get("trajectory")
    if isinstance(spec, Mapping) and isinstance(spec.get("expected"), list):
        report = trajectory_report(
            [c.as_call() for c in calls],
            spec["expected"],
            spec.get("match", "strict"),
            spec.get("argsMatch", "exact"),
        )
        trajectory = report.matched
    passed = golden is not False and trajectory is not False
    if misses and on_miss == "fail":
        passed = False
    return golden, trajectory, passed


def replay(
    suite: Suite | Mapping[str, Any] | str | os.PathLike[str],
    agent: Agent | None = None,
    *,
    trials: int | None = None,
    seed: int = 0,
    host_profile: HostProfile | None = None,
    live_tools: Mapping[str, LiveTool] | None = None,
    events: bool = True,
    include_content: bool = False,
    wall_clock: bool = False,
    on_trial: Callable[[TrialResult], None] | None = None,
    validate: bool = True,
) -> ReplayResult:
    """Replay a suite through an agent (default: the scripted agent) and grade it.

    ``trials`` overrides every task's trial count (R8 otherwise: task, then suite, then 1).
    ``seed`` seeds the scripted agent's ``choose`` draws and the run's ids (R22). A suite the
    host does not advertise is refused with :class:`~workbench.HostRefusal` before any event is
    written (R11). ``live_tools`` answer misses under ``onMiss: "live"`` (R16). ``on_trial`` is
    called after each trial (progress bars). ``validate=False`` skips the schema check (the
    capability check still runs): for sweeps whose variants derive from a validated suite.
    """
    the_suite = Suite.coerce(suite)
    data = the_suite.data
    profile = host_profile or HostProfile.workbench()
    check_suite(data, profile, validate=validate)
    if trials is not None and trials < 1:
        raise ValueError(f"trials must be at least 1, not {trials}")
    the_agent: Any = agent if agent is not None else ScriptedAgent()
    if isinstance(the_agent, ScriptedAgent):
        for index, task in enumerate(the_suite.tasks):
            problems = _script_problems(task.get("input"), f"tasks[{index}].input")
            if problems:
                raise ScriptError(problems[0])
    agent_id = _agent_id(the_agent)
    log = EventLog(
        run_id_for(the_suite.suite_id, the_suite.version, seed),
        enabled=events,
        wall_clock=wall_clock,
    )
    tasks: list[dict[str, Any]] = the_suite.tasks
    modes = data.get("modes") if isinstance(data.get("modes"), list) else ["golden"]
    log.emit(
        "eval.started",
        {
            "suiteId": the_suite.suite_id,
            "suiteVersion": the_suite.version,
            "taskCount": len(tasks),
            "modes": modes,
            "x-seed": seed,
        },
    )
    thresholds = data.get("thresholds") if isinstance(data.get("thresholds"), Mapping) else None
    results: list[TaskResult] = []
    for t_index, task in enumerate(tasks):
        task_id = str(task.get("taskId", f"task-{t_index}"))
        fixtures = TaskFixtures(task)
        n_trials = trials if trials is not None else task_trials(data, task)
        trial_results: list[TrialResult] = []
        for trial in range(n_trials):
            trial_result = _run_trial(
                the_agent, agent_id, task, task_id, t_index, trial, seed, fixtures,
                log, profile, live_tools, include_content,
            )  # fmt: skip
            trial_results.append(trial_result)
            if on_trial is not None:
                on_trial(trial_result)
        stats = trial_stats([r.passed for r in trial_results])
        passed = task_passed(stats, thresholds)
        task_result = TaskResult(task_id, tuple(trial_results), stats, passed)
        results.append(task_result)
        log.emit(
            "eval.scored",
            {
                "taskId": task_id,
                "score": stats.score,
                "passed": passed,
                "x-fixtureMissCount": task_result.fixture_misses,
                "x-trials": {"n": stats.n, "passed": stats.passed},
                "x-passHatK": dict(stats.pass_hat_k),
            },
        )
    summary = _summary(the_suite, results, thresholds)
    log.emit(
        "eval.completed",
        {
            "aggregateScore": summary["aggregateScore"],
            "passed": summary["passed"],
            "taskCount": summary["taskCount"],
            "passedCount": summary["passedCount"],
            "x-fixtureMissCount": summary["fixtureMissCount"],
        },
    )
    log.emit("run.completed", {"outputs": {"evalSummary": summary}})
    return ReplayResult(
        suite=the_suite,
        profile=profile,
        seed=seed,
        run_id=log.run_id,
        tasks=tuple(results),
        summary=summary,
        events=log.events,
    )


def _run_trial(
    agent: Any,
    agent_id: str,
    task: Mapping[str, Any],
    task_id: str,
    t_index: int,
    trial: int,
    seed: int,
    fixtures: TaskFixtures,
    log: EventLog,
    profile: HostProfile,
    live_tools: Mapping[str, LiveTool] | None,
    include_content: bool,
) -> TrialResult:
    invocation_id = f"inv-{t_index}-{trial}"
    log.emit(
        "agent.invocation-started",
        {
            "invocationId": invocation_id,
            "agentId": agent_id,
            "source": "run-api",
            "x-taskId": task_id,
            "x-trial": trial,
        },
    )
    host = FixtureHost(
        fixtures,
        TaskContext(task_id, trial, seed),
        live_tools=live_tools,
        log=log,
        agent_id=agent_id,
        call_prefix=f"call-{t_index}-{trial}-",
        pre_post_events=profile.pre_post_events,
        include_content=include_content,
    )
    agent_error: str | None = None
    try:
        decision = as_decision(agent.run(task.get("input"), host))
    except ScriptError:
        raise
    except Exception as exc:  # an agent's crash fails its trial; the replay goes on
        agent_error = f"{type(exc).__name__}: {exc}"
        decision = Decision("failed", reason=f"agent raised {agent_error}")
    decided: dict[str, Any] = {"agentId": agent_id, "decision": {"outcome": decision.outcome}}
    if include_content and decision.answer is not None:
        decided["decision"]["answer"] = decision.answer
    log.emit("agent.decided", decided)
    log.emit(
        "agent.invocation-completed",
        {"invocationId": invocation_id, "agentId": agent_id, "outcome": decision.outcome},
    )
    calls = tuple(host.calls)
    golden, trajectory, passed = _grade_trial(task, decision, calls, host.misses, fixtures.on_miss)
    if agent_error is not None:
        passed = False
    return TrialResult(
        task_id=task_id,
        trial=trial,
        decision=decision,
        calls=calls,
        fixture_misses=host.misses,
        errors_served=host.errors_served,
        golden_passed=golden,
        trajectory_passed=trajectory,
        passed=passed,
        agent_error=agent_error,
    )


def _summary(
    suite: Suite, results: Sequence[TaskResult], thresholds: Mapping[str, Any] | None
) -> dict[str, Any]:
    scores = [t.score for t in results]
    aggregate = aggregate_score(scores)
    flags = [t.passed for t in results]
    return {
        "suiteId": suite.suite_id,
        "suiteVersion": suite.version,
        "aggregateScore": aggregate,
        "passed": suite_passed(aggregate, flags, thresholds),
        "taskCount": len(results),
        "passedCount": sum(flags),
        "fixtureMissCount": sum(t.fixture_misses for t in results),
        "tasks": [t.summary_entry() for t in results],
    }
