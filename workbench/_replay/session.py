"""Replaying a suite: tasks x trials through an agent on the fixture host (SPEC R10-R29).

:class:`ReplaySession` is one run's event log, hosts and grading, for calls that arrive from
inside (an :class:`~workbench.Agent`) or from outside (the MCP bridge, the HTTP host). Creating
one checks the suite against the host profile, refusing it before any event is written (R11).
:func:`replay` drives a session with an agent: every task's trials on a
:class:`~workbench.FixtureHost`, the events in the order of R19, each trial graded (R16, R26,
R27), each task over its trials (R28), and the summary (R29).

Longer than 400 lines: the session is one record of a run's life (open, trials, scoring,
finish, stop, and the loop that drives it), and its docstrings say what each step emits.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Unpack

from .._common.vocab import NEEDS_MODEL
from .._grade.trial import decided_trial_stats, grade_task, grade_trial, summary
from .._suite.capabilities import MAX_TOTAL_TRIALS, HostRefusal, check_suite
from .._suite.model import Suite, task_trials
from . import events
from .agents import Agent, Decision, TaskContext, as_decision
from .events import EventLog, run_id_for
from .fixtures import TaskFixtures
from .host import FixtureHost
from .options import ReplayOptions, ReplayOverrides, resolve_options
from .policies import ScriptError
from .results import ReplayResult, TaskResult, TrialResult
from .scripted import ScriptedAgent

__all__ = ["ReplaySession", "agent_id_for", "replay"]

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
    same whether it runs alone or with the others. ``options`` (or its fields as keywords) say
    how the run goes; ``options.trials`` is read only by :meth:`run` (whoever drives the session
    otherwise decides). ``run_id`` replaces the id derived from the suite id, version and seed
    (a host running the same suite twice gives each run its own id); ``fixture_runs`` (RFC
    0252: task id -> the recorded run its fixtures came from) is echoed on ``eval.started``.
    """

    __slots__ = (
        "_current",
        "_done",
        "_finished",
        "_fixtures",
        "_host",
        "_log",
        "_results",
        "_stopped",
        "_task_ids",
        "_thresholds",
        "_trials",
        "agent_id",
        "options",
        "profile",
        "suite",
    )

    def __init__(
        self,
        suite: Suite | Mapping[str, Any] | str | os.PathLike[str],
        options: ReplayOptions | None = None,
        *,
        tasks: Sequence[str] | None = None,
        agent_id: str = "workbench.agent",
        run_id: str | None = None,
        fixture_runs: Mapping[str, str] | None = None,
        **overrides: Unpack[ReplayOverrides],
    ) -> None:
        the_options = resolve_options(options, overrides)
        the_suite = Suite.coerce(suite)
        data = the_suite.data
        profile = the_options.profile
        check_suite(data, profile, validate=the_options.validate)
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
        self.options = the_options
        """How the run goes (seed, live tools, events, content)."""
        self.profile = profile
        """The host profile it runs under."""
        self.agent_id = agent_id_for(agent_id)
        """The agent id written on the agent events (made a valid ``agentId``, R18)."""
        self._task_ids = [(task_id, index_of[task_id]) for task_id in selected]
        self._fixtures: dict[str, TaskFixtures] = {}
        self._trials: dict[str, list[TrialResult]] = {}
        self._results: list[TaskResult] = []
        self._done: set[str] = set()
        self._current: tuple[str, int, int] | None = None
        self._host: FixtureHost | None = None
        self._finished: ReplayResult | None = None
        self._stopped = False
        self._thresholds = (
            data.get("thresholds") if isinstance(data.get("thresholds"), Mapping) else None
        )
        self._log = EventLog(
            run_id or run_id_for(the_suite.suite_id, the_suite.version, the_options.seed),
            enabled=the_options.events,
            wall_clock=the_options.wall_clock,
        )
        modes: list[Any] = data["modes"] if isinstance(data.get("modes"), list) else ["golden"]
        self._log.emit(
            "eval.started",
            events.eval_started(
                the_suite.suite_id,
                the_suite.version,
                len(self._task_ids),
                modes,
                the_options.seed,
                fixture_runs,
            ),
        )

    @property
    def seed(self) -> int:
        """The run's seed (ids, the scripted agent's draws)."""
        return self.options.seed

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
        if self.ended:
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
            events.invocation_started(f"inv-{t_index}-{trial}", self.agent_id, task_id, trial),
        )
        self._host = FixtureHost(
            fixtures,
            TaskContext(task_id, trial, self.options.seed),
            self.options,
            log=self._log,
            agent_id=self.agent_id,
            call_prefix=f"call-{t_index}-{trial}-",
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
        turns = decision.model_turns
        log.emit(
            "agent.decided",
            events.decided(
                self.agent_id,
                decision.outcome,
                decision.answer,
                self.options.include_content,
                (turns.recording, turns.model) if turns is not None else None,
            ),
        )
        log.emit(
            "agent.invocation-completed",
            events.invocation_completed(f"inv-{t_index}-{trial}", self.agent_id, decision.outcome),
        )
        calls = tuple(host.calls)
        grade = grade_trial(self.suite.tasks[t_index], decision.output(), calls)
        result = TrialResult(
            task_id=task_id,
            trial=trial,
            decision=decision,
            calls=calls,
            fixture_misses=host.misses,
            errors_served=host.errors_served,
            golden_passed=grade.golden,
            trajectory_passed=grade.trajectory,
            # R41: a needs-model trial is neither passed nor failed; it is left out of the
            # task's figures (end_task) and counted on its own.
            passed=grade.passed and agent_error is None and decision.outcome != NEEDS_MODEL,
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
        decided = [r for r in trial_results if not r.needs_model]
        stats = decided_trial_stats([r.passed for r in decided])
        passed = grade_task(stats, self._thresholds, (c for r in decided for c in r.calls))
        task_result = TaskResult(task_id, tuple(trial_results), stats, passed)
        self._results.append(task_result)
        self._done.add(task_id)
        self._log.emit(
            "eval.scored",
            events.eval_scored(
                task_id,
                stats.score,
                passed,
                task_result.fixture_misses,
                stats.n,
                stats.passed,
                stats.pass_hat_k,
                task_result.needs_model,
            ),
        )
        return task_result

    def finish(self, decision: Decision | None = None) -> ReplayResult:
        """End the run: close an open trial (with ``decision``), score every task with trials
        not yet scored, emit ``eval.completed`` and ``run.completed``; build the result.

        Calling it again returns the same result.
        """
        if self._finished is not None:
            return self._finished
        if self._stopped:
            raise RuntimeError("the run was stopped (run.failed or run.cancelled)")
        if self._current is not None:
            self.end_trial(decision)
        for task_id, _ in self._task_ids:
            if task_id not in self._done and task_id in self._trials:
                self.end_task(task_id)
        results = self._results
        the_summary = summary(
            self.suite.suite_id,
            self.suite.version,
            [t.summary_entry() for t in results],
            self._thresholds,
        )
        self._log.emit("eval.completed", events.eval_completed(the_summary))
        self._log.emit("run.completed", events.run_completed(the_summary))
        self._finished = ReplayResult(
            suite=self.suite,
            profile=self.profile,
            seed=self.options.seed,
            run_id=self._log.run_id,
            tasks=tuple(results),
            summary=the_summary,
            events=self._log.events,
        )
        return self._finished

    @property
    def ended(self) -> bool:
        """Whether the log has its terminal event (``run.completed``, ``run.failed`` or
        ``run.cancelled``)."""
        return self._finished is not None or self._stopped

    def stop(self, kind: Literal["failed", "cancelled"], code: str, message: str) -> None:
        """End an unfinished run without a summary: emit ``run.failed`` (``error`` is
        ``{code, message}``) or ``run.cancelled`` (``message`` is the reason), so a reader of
        the log sees a terminal event. No-op once the log has one."""
        if self.ended:
            return
        self._stopped = True
        self._current = None
        self._host = None
        if kind == "failed":
            self._log.emit("run.failed", events.run_failed(code, message))
        else:
            self._log.emit("run.cancelled", events.run_cancelled(message))

    def run(
        self,
        agent: Agent | None = None,
        *,
        on_trial: Callable[[TrialResult], None] | None = None,
    ) -> ReplayResult:
        """Drive the whole session with ``agent`` (default: the scripted agent): every task's
        trials (``options.trials``, else R8), each trial's decision, each task's score, then
        :meth:`finish`. An agent that raises fails its trial and the run goes on; a
        :class:`~workbench.ScriptError` stops it. ``on_trial`` is called after each trial (an
        exception it raises stops the run, with the log left unfinished). This is the loop
        :func:`replay` runs, so both write the same events and summary."""
        the_agent: Any = agent if agent is not None else ScriptedAgent()
        trials = self.options.trials
        for task_id in self.task_ids:
            task = self.task(task_id)
            n_trials = trials if trials is not None else self.trials_for(task_id)
            for trial in range(n_trials):
                host = self.begin_trial(task_id, trial)
                agent_error: str | None = None
                try:
                    decision = as_decision(the_agent.run(task.get("input"), host))
                except ScriptError:
                    raise
                except Exception as exc:  # an agent's crash fails its trial; the replay goes on
                    agent_error = f"{type(exc).__name__}: {exc}"
                    decision = Decision("failed", reason=f"agent raised {agent_error}")
                trial_result = self.end_trial(decision, agent_error=agent_error)
                if on_trial is not None:
                    on_trial(trial_result)
            self.end_task(task_id)
        return self.finish()


def replay(
    suite: Suite | Mapping[str, Any] | str | os.PathLike[str],
    agent: Agent | None = None,
    options: ReplayOptions | None = None,
    *,
    on_trial: Callable[[TrialResult], None] | None = None,
    **overrides: Unpack[ReplayOverrides],
) -> ReplayResult:
    """Replay a suite through an agent (default: the scripted agent) and grade it.

    ``options`` (a :class:`~workbench.ReplayOptions`, or its fields as keywords) say how:
    ``trials`` overrides every task's trial count (R8 otherwise: task, then suite, then 1);
    ``seed`` seeds the scripted agent's ``choose`` draws and the run's ids (R22);
    ``host_profile`` is what the host advertises: a suite using more is refused with
    :class:`~workbench.HostRefusal` before any event is written (R11); ``live_tools`` answer
    misses under ``onMiss: "live"`` (R16); ``validate=False`` skips the schema check (the
    capability check still runs), for variants derived from a validated suite. ``on_trial`` is
    called after each trial (progress bars). The run is a :class:`ReplaySession` driven by the
    agent.
    """
    the_options = resolve_options(options, overrides)
    the_suite = Suite.coerce(suite)
    check_suite(the_suite.data, the_options.profile, validate=the_options.validate)
    if the_options.trials is not None:  # the suite's own trials were checked above
        total = the_options.trials * len(the_suite.tasks)
        if total > MAX_TOTAL_TRIALS:
            raise HostRefusal(
                "trials",
                f"{the_options.trials} trials x {len(the_suite.tasks)} tasks: {total} trials "
                f"over all tasks is over the limit of {MAX_TOTAL_TRIALS}",
            )
    the_agent: Any = agent if agent is not None else ScriptedAgent()
    if isinstance(the_agent, ScriptedAgent):
        for index, task in enumerate(the_suite.tasks):
            the_agent.script_for(task.get("input"), f"tasks[{index}].input")
    session = ReplaySession(
        the_suite,
        the_options.replace(validate=False),  # checked above, once
        agent_id=agent_id_for(getattr(the_agent, "agent_id", None)),
    )
    return session.run(the_agent, on_trial=on_trial)
