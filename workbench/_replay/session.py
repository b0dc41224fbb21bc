"""Replaying a suite: tasks x trials through an agent on the fixture host, graded (R10-R29).

:func:`replay` checks the suite against the host profile (refusing it before any event is
written, R11), runs every task's trials through the agent on a :class:`~workbench.FixtureHost`,
writes the event log in the order of R19, grades each trial (golden R26, trajectory R27, misses
R16) and each task over its trials (R28), and builds the summary (R29).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._common.jsonio import write_json_atomic
from .._grade.grading import (
    TrialStats,
    aggregate_score,
    golden_match,
    suite_passed,
    task_passed,
    trajectory_report,
    trial_stats,
)
from .._suite.capabilities import HostProfile, check_suite
from .._suite.model import Suite, task_trials
from .agents import Agent, Decision, ScriptedAgent, ScriptError, TaskContext, as_decision
from .agents import script_problems as _script_problems
from .events import EventLog, run_id_for
from .host import CallRecord, FixtureHost, LiveTool, TaskFixtures

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ReplayResult",
    "ReplaySession",
    "TaskResult",
    "TrialResult",
    "replay",
    "trajectory_string",
]


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
        from .._common.jsonio import write_text_atomic
        from .events import events_to_jsonl

        write_text_atomic(path, events_to_jsonl(self.events))

    def write_summary(self, path: str | os.PathLike[str]) -> None:
        """Write the summary as stable JSON, atomically."""
        write_json_atomic(path, self.summary)


_AGENT_ID = re.compile(r"[A-Za-z0-9._~:-]{1,128}")
_NOT_AGENT_ID_CHARS = re.compile(r"[^A-Za-z0-9._~:-]+")


def agent_id_for(value: Any) -> str:
    """An OpenWOP ``agentId`` (``ids.schema.json``: ``[A-Za-z0-9._~:-]{1,128}``) for a name.

    A valid id is kept; another string has each run of other characters replaced by ``-`` and
    is cut to 128 characters (so ``"My agent"`` is ``My-agent``), so every agent event stays
    valid (R18) whatever a hand-written agent calls itself (R25); nothing usable gives
    ``workbench.agent``.
    """
    if isinstance(value, str) and _AGENT_ID.fullmatch(value):
        return value
    if isinstance(value, str):
        cleaned = _NOT_AGENT_ID_CHARS.sub("-", value)[:128]
        if cleaned.strip("-"):
            return cleaned
    return "workbench.agent"


def _agent_id(agent: Any) -> str:
    return agent_id_for(getattr(agent, "agent_id", None))


def _grade_trial(
    task: Mapping[str, Any],
    decision: Decision,
    calls: Sequence[CallRecord],
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
    if any(c.served_by == "miss" for c in calls):
        # A miss handled as a failure (onMiss "fail", or "live" with no live tool registered)
        # means the task cannot pass (R16); a miss a live tool answered is graded as usual.
        passed = False
    return golden, trajectory, passed


class ReplaySession:
    """A replay whose tool calls arrive from outside: the MCP bridge, or :func:`replay` itself.

    Creating a session checks the suite against the host profile (refusing it with
    :class:`~workbench.HostRefusal` before any event is written, R11) and emits
    ``eval.started``. Then, per trial, :meth:`begin_trial` emits ``agent.invocation-started`` and
    returns the trial's :class:`~workbench.FixtureHost` (whoever makes the calls calls
    ``host.call``); :meth:`end_trial` takes the agent's decision, emits ``agent.decided`` and
    ``agent.invocation-completed`` and grades the trial; :meth:`end_task` emits the task's
    ``eval.scored``; :meth:`finish` closes whatever is open and emits ``eval.completed`` and
    ``run.completed`` with the summary (R19). :func:`replay` is this loop with an agent, so both
    paths write the same events and summary.

    ``tasks`` limits the run to those task ids (the summary then covers only them); each task
    keeps its index in the suite for its call and invocation ids, so a task's events are the
    same whether it runs alone or with the others.
    """

    __slots__ = (
        "_current",
        "_done",
        "_finished",
        "_fixtures",
        "_host",
        "_log",
        "_results",
        "_task_ids",
        "_thresholds",
        "_trials",
        "agent_id",
        "include_content",
        "live_tools",
        "profile",
        "seed",
        "suite",
    )

    def __init__(
        self,
        suite: Suite | Mapping[str, Any] | str | os.PathLike[str],
        *,
        tasks: Sequence[str] | None = None,
        agent_id: str = "workbench.agent",
        seed: int = 0,
        host_profile: HostProfile | None = None,
        live_tools: Mapping[str, LiveTool] | None = None,
        events: bool = True,
        include_content: bool = False,
        wall_clock: bool = False,
        validate: bool = True,
    ) -> None:
        the_suite = Suite.coerce(suite)
        data = the_suite.data
        profile = host_profile or HostProfile.workbench()
        check_suite(data, profile, validate=validate)
        index_of: dict[str, int] = {}
        for t_index, task in enumerate(the_suite.tasks):
            index_of.setdefault(str(task.get("taskId", f"task-{t_index}")), t_index)
        if tasks is None:
            selected = list(index_of)
        else:
            selected = list(tasks)
            for task_id in selected:
                if task_id not in index_of:
                    known = ", ".join(index_of) or "none"
                    raise KeyError(f"the suite has no task {task_id!r} (tasks: {known})")
        self.suite = the_suite
        """The suite replayed."""
        self.profile = profile
        """The host profile it runs under."""
        self.seed = seed
        """The run's seed (ids, the scripted agent's draws)."""
        self.agent_id = agent_id_for(agent_id)
        """The agent id written on the agent events (made a valid ``agentId``, R18)."""
        self.live_tools = live_tools
        """The live tools answering misses under ``onMiss: "live"`` (R16)."""
        self.include_content = include_content
        """Whether tool inputs and results go on the event log."""
        self._task_ids = [(task_id, index_of[task_id]) for task_id in selected]
        self._fixtures: dict[str, TaskFixtures] = {}
        self._trials: dict[str, list[TrialResult]] = {}
        self._results: list[TaskResult] = []
        self._done: set[str] = set()
        self._current: tuple[str, int, int] | None = None
        self._host: FixtureHost | None = None
        self._finished: ReplayResult | None = None
        self._thresholds = (
            data.get("thresholds") if isinstance(data.get("thresholds"), Mapping) else None
        )
        self._log = EventLog(
            run_id_for(the_suite.suite_id, the_suite.version, seed),
            enabled=events,
            wall_clock=wall_clock,
        )
        modes = data.get("modes") if isinstance(data.get("modes"), list) else ["golden"]
        self._log.emit(
            "eval.started",
            {
                "suiteId": the_suite.suite_id,
                "suiteVersion": the_suite.version,
                "taskCount": len(self._task_ids),
                "modes": modes,
                "x-seed": seed,
            },
        )

    @property
    def task_ids(self) -> tuple[str, ...]:
        """The ids of the tasks this session runs, in suite order (or as given)."""
        return tuple(task_id for task_id, _ in self._task_ids)

    @property
    def events(self) -> list[dict[str, Any]]:
        """The event log so far."""
        return self._log.events

    @property
    def run_id(self) -> str:
        """The run's id on the event log."""
        return self._log.run_id

    @property
    def host(self) -> FixtureHost | None:
        """The open trial's fixture host (``None`` between trials)."""
        return self._host

    def task(self, task_id: str) -> dict[str, Any]:
        """The task's JSON object."""
        return self.suite.tasks[self._index(task_id)]

    def trials_for(self, task_id: str) -> int:
        """The task's trial count (R8: task, then suite, then 1)."""
        return task_trials(self.suite.data, self.task(task_id))

    def _index(self, task_id: str) -> int:
        for known, t_index in self._task_ids:
            if known == task_id:
                return t_index
        raise KeyError(f"task {task_id!r} is not part of this session")

    def begin_trial(self, task_id: str, trial: int) -> FixtureHost:
        """Open one trial of a task: emit ``agent.invocation-started``; return its host."""
        if self._finished is not None:
            raise RuntimeError("the session is finished")
        if self._current is not None:
            raise RuntimeError("a trial is open; end it first")
        if trial < 0:
            raise ValueError(f"trial must be at least 0, not {trial}")
        if task_id in self._done:
            raise RuntimeError(f"task {task_id!r} has been scored already")
        t_index = self._index(task_id)
        task = self.suite.tasks[t_index]
        fixtures = self._fixtures.get(task_id)
        if fixtures is None:
            fixtures = self._fixtures[task_id] = TaskFixtures(task)
        self._log.emit(
            "agent.invocation-started",
            {
                "invocationId": f"inv-{t_index}-{trial}",
                "agentId": self.agent_id,
                "source": "run-api",
                "x-taskId": task_id,
                "x-trial": trial,
            },
        )
        self._host = FixtureHost(
            fixtures,
            TaskContext(task_id, trial, self.seed),
            live_tools=self.live_tools,
            log=self._log,
            agent_id=self.agent_id,
            call_prefix=f"call-{t_index}-{trial}-",
            pre_post_events=self.profile.pre_post_events,
            include_content=self.include_content,
        )
        self._current = (task_id, t_index, trial)
        return self._host

    def end_trial(
        self, decision: Decision | None = None, *, agent_error: str | None = None
    ) -> TrialResult:
        """Close the open trial with the agent's decision (default: ``completed``, no answer):
        emit ``agent.decided`` and ``agent.invocation-completed``, grade it (R26, R27, R16)."""
        if self._current is None or self._host is None:
            raise RuntimeError("no trial is open")
        task_id, t_index, trial = self._current
        host = self._host
        if decision is None:
            decision = Decision("completed")
        log = self._log
        decided: dict[str, Any] = {
            "agentId": self.agent_id,
            "decision": {"outcome": decision.outcome},
        }
        if self.include_content and decision.answer is not None:
            decided["decision"]["answer"] = decision.answer
        log.emit("agent.decided", decided)
        log.emit(
            "agent.invocation-completed",
            {
                "invocationId": f"inv-{t_index}-{trial}",
                "agentId": self.agent_id,
                "outcome": decision.outcome,
            },
        )
        calls = tuple(host.calls)
        task = self.suite.tasks[t_index]
        golden, trajectory, passed = _grade_trial(task, decision, calls)
        if agent_error is not None:
            passed = False
        result = TrialResult(
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
        self._trials.setdefault(task_id, []).append(result)
        self._current = None
        self._host = None
        return result

    def end_task(self, task_id: str) -> TaskResult:
        """Score a task over the trials run so far: emit its ``eval.scored`` (R28)."""
        if self._current is not None and self._current[0] == task_id:
            raise RuntimeError("a trial of this task is open; end it first")
        self._index(task_id)
        if task_id in self._done:
            raise RuntimeError(f"task {task_id!r} has been scored already")
        trial_results = self._trials.get(task_id, [])
        stats = trial_stats([r.passed for r in trial_results])
        # R16: a miss handled as a failure means the task cannot pass, even where thresholds
        # would pass it on its score (a passScore below 1 with the missing trial among the
        # failures); a miss a live tool answered is graded as usual.
        missed = any(c.served_by == "miss" for r in trial_results for c in r.calls)
        passed = task_passed(stats, self._thresholds) and not missed
        task_result = TaskResult(task_id, tuple(trial_results), stats, passed)
        self._results.append(task_result)
        self._done.add(task_id)
        self._log.emit(
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
        return task_result

    def finish(self, decision: Decision | None = None) -> ReplayResult:
        """End the run: close an open trial (with ``decision``), score every task with trials
        not yet scored, emit ``eval.completed`` and ``run.completed``; build the result.

        Calling it again returns the same result.
        """
        if self._finished is not None:
            return self._finished
        if self._current is not None:
            self.end_trial(decision)
        for task_id, _ in self._task_ids:
            if task_id not in self._done and task_id in self._trials:
                self.end_task(task_id)
        results = self._results
        summary = _summary(self.suite, results, self._thresholds)
        self._log.emit(
            "eval.completed",
            {
                "aggregateScore": summary["aggregateScore"],
                "passed": summary["passed"],
                "taskCount": summary["taskCount"],
                "passedCount": summary["passedCount"],
                "x-fixtureMissCount": summary["fixtureMissCount"],
            },
        )
        self._log.emit("run.completed", {"outputs": {"evalSummary": summary}})
        self._finished = ReplayResult(
            suite=self.suite,
            profile=self.profile,
            seed=self.seed,
            run_id=self._log.run_id,
            tasks=tuple(results),
            summary=summary,
            events=self._log.events,
        )
        return self._finished


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
    The run is a :class:`ReplaySession` driven by the agent.
    """
    the_suite = Suite.coerce(suite)
    profile = host_profile or HostProfile.workbench()
    check_suite(the_suite.data, profile, validate=validate)
    if trials is not None and trials < 1:
        raise ValueError(f"trials must be at least 1, not {trials}")
    the_agent: Any = agent if agent is not None else ScriptedAgent()
    if isinstance(the_agent, ScriptedAgent):
        for index, task in enumerate(the_suite.tasks):
            problems = _script_problems(task.get("input"), f"tasks[{index}].input")
            if problems:
                raise ScriptError(problems[0])
    session = ReplaySession(
        the_suite,
        agent_id=_agent_id(the_agent),
        seed=seed,
        host_profile=profile,
        live_tools=live_tools,
        events=events,
        include_content=include_content,
        wall_clock=wall_clock,
        validate=False,  # checked above, once
    )
    for task_id in session.task_ids:
        task = session.task(task_id)
        n_trials = trials if trials is not None else session.trials_for(task_id)
        for trial in range(n_trials):
            host = session.begin_trial(task_id, trial)
            agent_error: str | None = None
            try:
                decision = as_decision(the_agent.run(task.get("input"), host))
            except ScriptError:
                raise
            except Exception as exc:  # an agent's crash fails its trial; the replay goes on
                agent_error = f"{type(exc).__name__}: {exc}"
                decision = Decision("failed", reason=f"agent raised {agent_error}")
            trial_result = session.end_trial(decision, agent_error=agent_error)
            if on_trial is not None:
                on_trial(trial_result)
        session.end_task(task_id)
    return session.finish()


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
