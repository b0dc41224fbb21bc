"""Replaying a batch of variants against one baseline: shared prefixes, rejoins, triggers (R37).

A fault at boundary ``b`` cannot change anything the agent is served before the first call the
baseline trial answered with entry ``b`` or later (or with a miss): the entries before ``b`` are
the baseline's, consumed the same way. The scripted agent's state at the start of a script step
is only that step's number (R23), so a variant-trial **resumes** from the start of the script step
holding that call, on a host preloaded with the baseline's calls before it, instead of replaying
the whole prefix. A variant-trial that never reaches its fault is the baseline trial itself.

After the fault, a single-fault variant-trial **rejoins** the baseline when, at the start of a
script step, its host holds the same unconsumed entries as the baseline's host did at the start
of that step (every faulted entry consumed, every other entry consumed alike): from there on the
agent is served what the baseline was and makes the same calls, so the rest of the trial is the
baseline's (its calls, its decision). Cost then grows with the calls that differ from the
baseline, not with variants x calls.

Any other agent (a hand-written one, an LLM agent) is replayed in full. In both cases each
variant-trial's served results are compared with the baseline trial's (R37, :func:`is_triggered`)
and its steps are kept as a reference to the baseline's: ``prefix`` steps of the baseline, the
variant's own steps, then (when it rejoined) the baseline's steps from ``rejoin`` on.

Longer than 400 lines: resuming, detecting the rejoin and comparing served results are one
algorithm over one preloaded host; split, each part would need the others' private state.
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from .._common.step import Step
from .._grade.recovery import is_triggered, served_key
from .._grade.trial import TaskGrader
from .._grade.trials import trial_stats
from .._replay.agents import Decision, TaskContext, as_decision
from .._replay.fixtures import TaskFixtures
from .._replay.host import CallRecord, FixtureHost
from .._replay.options import ReplayOptions
from .._replay.policies import ScriptError
from .._replay.scripted import ScriptedAgent
from .._replay.session import replay
from .._suite.model import Suite
from .plan import Batch, StepCache, TaskOutcome, TrialOutcome, VariantOutcome, WorkItem
from .variants import faulted_entries, inject, payload_response

__all__ = ["BaselineTrace", "BatchRunner", "run_batch"]

_OPTIONS: Final = ReplayOptions(events=False, validate=False)
_NEVER: Final = 1 << 62
"""The reach of a call served by no entry (a miss): every fault is at or before it."""


@dataclass(frozen=True, slots=True)
class BaselineTrace:
    """One baseline trial as the batch compares variants with it."""

    trial: int
    calls: tuple[CallRecord, ...]
    steps: tuple[Step, ...]
    keys: tuple[bytes, ...]
    """Each call's served result (:func:`served_key`)."""
    marks: tuple[int, ...] | None
    """Calls made before each script step began (``None``: the agent cannot be resumed)."""
    reach: tuple[int, ...]
    """Running maximum of the entry each call was served (a miss counts as past every entry)."""
    errors: tuple[int, ...]
    """Failures served before each call (one more item: the trial's total)."""
    misses: tuple[int, ...]
    """Misses before each call (one more item: the trial's total)."""
    entries: tuple[int, ...]
    """The fixture entries the calls consumed, in order."""
    consumed: tuple[int, ...]
    """How many entries were consumed before each call (one more item)."""
    live: tuple[int, ...]
    """Live calls before each call (one more item)."""
    decision: Decision
    passed: bool
    agent_error: str | None


def _resumable(agent: Any) -> bool:
    return agent is None or type(agent) is ScriptedAgent


class _Keys:
    """Served keys of results, computed once per result object in a batch."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[Any, bytes]] = {}

    def key(self, call: CallRecord) -> bytes:
        result = call.result
        held = self._held.get(id(result))
        if held is not None and held[0] is result:
            return held[1]
        key = served_key(result.is_error, result.content, result.structured_content)
        self._held[id(result)] = (result, key)
        return key


def _divergence_from(base: Sequence[Step], steps: Sequence[Step], start: int) -> int | None:
    """:func:`~workbench.divergence` of two trajectories known to agree before ``start``."""
    for index in range(start, min(len(base), len(steps))):
        a, b = base[index], steps[index]
        if a is not b and a.key != b.key:
            return index
    if len(base) != len(steps):
        return min(len(base), len(steps))
    return None


class _Rejoin:
    """Whether a single-fault variant-trial's host holds what the baseline's did (R37)."""

    __slots__ = ("b", "base_pos", "delta", "host", "m", "m_done", "marks", "seen", "set_a",
                 "set_b", "trace")  # fmt: skip

    def __init__(self, trace: BaselineTrace, host: FixtureHost, b: int, m: int, c0: int) -> None:
        self.trace, self.host, self.b, self.m = trace, host, b, m
        assert trace.marks is not None
        self.marks = trace.marks
        self.seen = c0
        self.base_pos = c0
        self.m_done = 0
        self.delta = 0
        self.set_a: set[int] = set()
        self.set_b: set[int] = set()

    def _add(self, mine: set[int], other: set[int], entry: int) -> None:
        mine.add(entry)
        self.delta += -1 if entry in other else 1

    def __call__(self, step: int) -> bool:
        calls = self.host.calls
        b, m = self.b, self.m
        for record in calls[self.seen :]:
            entry = record.entry
            if entry is None:
                continue
            if entry < b:
                self._add(self.set_a, self.set_b, entry)
            elif entry < b + m:
                self.m_done += 1
                if self.m_done == m:
                    self._add(self.set_a, self.set_b, b)
            else:
                self._add(self.set_a, self.set_b, entry - m + 1)
        self.seen = len(calls)
        if step >= len(self.marks):
            return False
        target = self.marks[step]
        base_calls = self.trace.calls
        for index in range(self.base_pos, target):
            entry = base_calls[index].entry
            if entry is not None:
                self._add(self.set_b, self.set_a, entry)
        self.base_pos = max(self.base_pos, target)
        return self.delta == 0 and self.m_done == m


class BatchRunner:
    """Replays a batch's variants against the baseline traces of its task(s)."""

    def __init__(self, batch: Batch, cache: StepCache) -> None:
        self.batch = batch
        self.plan = batch.plan
        self.cache = cache
        self.keys = _Keys()
        self.base = Suite(batch.base)
        self._traces: dict[str, list[BaselineTrace]] = {}
        self._graders: dict[str, TaskGrader] = {}
        self._fixtures: dict[str, TaskFixtures] = {}
        self.agent: Any = batch.plan.agent if batch.plan.agent is not None else ScriptedAgent()
        self._response = payload_response(batch.plan.faults.payload)

    # -- the baseline -------------------------------------------------------------------------

    def traces(self, task_id: str) -> list[BaselineTrace]:
        """The baseline's trials of a task (replayed once per batch)."""
        found = self._traces.get(task_id)
        if found is None:
            found = self._traces[task_id] = self._trace_task(task_id)
        return found

    def _grader(self, task_id: str, task: Mapping[str, Any]) -> TaskGrader:
        grader = self._graders.get(task_id)
        if grader is None:
            grader = self._graders[task_id] = TaskGrader(task)
        return grader

    def _trace_task(self, task_id: str) -> list[BaselineTrace]:
        plan = self.plan
        task = self.base.task(task_id)
        if _resumable(plan.agent):
            agent = self.agent
            fixtures = self._fixtures[task_id] = TaskFixtures(task)
            grader = self._grader(task_id, task)
            out = []
            for trial in range(plan.trials):
                host = FixtureHost(fixtures, TaskContext(task_id, trial, plan.seed), _OPTIONS)
                marks: list[int] = []

                def mark(_step: int, host: FixtureHost = host, marks: list[int] = marks) -> bool:
                    marks.append(len(host.calls))
                    return False

                decision, error = _run(agent, task.get("input"), host, 0, mark)
                assert isinstance(decision, Decision)
                calls = tuple(host.calls)
                steps = tuple(self.cache.step(c) for c in calls)
                grade = grader.grade(decision.output(), calls, [s.args_json for s in steps])
                out.append(self._trace(trial, calls, steps, tuple(marks), decision,
                                       grade.passed and error is None, error))  # fmt: skip
            return out
        result = replay(
            self.base, plan.agent, trials=plan.trials, seed=plan.seed, events=False,
            validate=False,
        )  # fmt: skip
        return [
            self._trace(
                r.trial,
                r.calls,
                tuple(self.cache.step(c) for c in r.calls),
                None,
                r.decision,
                r.passed,
                r.agent_error,
            )
            for r in result.task(task_id).trials
        ]

    def _trace(
        self,
        trial: int,
        calls: tuple[CallRecord, ...],
        steps: tuple[Step, ...],
        marks: tuple[int, ...] | None,
        decision: Decision,
        passed: bool,
        error: str | None,
    ) -> BaselineTrace:
        reach: list[int] = []
        errors = [0]
        misses = [0]
        live = [0]
        consumed = [0]
        top = -1
        for call in calls:
            consumed.append(consumed[-1] + (call.entry is not None))
            top = max(top, call.entry if call.entry is not None else _NEVER)
            reach.append(top)
            errors.append(errors[-1] + call.is_error)
            misses.append(misses[-1] + (call.entry is None))
            live.append(live[-1] + (call.served_by == "live"))
        return BaselineTrace(
            trial, calls, steps, tuple(self.keys.key(c) for c in calls), marks, tuple(reach),
            tuple(errors), tuple(misses),
            tuple(c.entry for c in calls if c.entry is not None), tuple(consumed), tuple(live),
            decision, passed, error,
        )  # fmt: skip

    # -- variants -----------------------------------------------------------------------------

    def run(self, item: WorkItem) -> VariantOutcome:
        """Replay one variant x trials."""
        plan = self.plan
        if item.suite_data is not None or not item.faults or not _resumable(plan.agent):
            return self._replayed(item)
        task_id = item.faults[0].task_id
        if any(f.task_id != task_id for f in item.faults):
            return self._replayed(item)
        task = self.base.task(task_id)
        made: list[tuple[TaskFixtures, int]] = []
        trials = [self._resumed(task, made, item, trace) for trace in self.traces(task_id)]
        score = trial_stats([t.passed for t in trials]).score
        return VariantOutcome(item.index, (TaskOutcome(task_id, score, tuple(trials)),))

    def _variant_fixtures(self, task_id: str, item: WorkItem) -> tuple[TaskFixtures, int]:
        """The variant's fixtures, made from the baseline's (the entries :func:`inject` would
        make), and how many entries the lowest faulted boundary grew by."""
        fixtures = self._fixtures[task_id]
        entries = fixtures.entries
        grown = 0
        repeats = self.plan.faults.hard_repeats
        for fault in sorted(item.faults, key=lambda f: f.boundary, reverse=True):
            if not 0 <= fault.boundary < len(entries):
                raise ValueError(
                    f"task {task_id!r}: boundary {fault.boundary} out of range "
                    f"(0..{len(entries) - 1})"
                )
            new = faulted_entries(entries[fault.boundary], fault.kind, repeats, self._response)
            fixtures = fixtures.replaced(fault.boundary, new)
            grown = len(new) - 1
        return fixtures, grown

    def _resumed(
        self,
        task: Mapping[str, Any],
        made: list[tuple[TaskFixtures, int]],
        item: WorkItem,
        trace: BaselineTrace,
    ) -> TrialOutcome:
        assert trace.marks is not None
        task_id = item.faults[0].task_id
        first = min(f.boundary for f in item.faults)
        n = len(trace.calls)
        fork = bisect_left(trace.reach, first)
        if fork >= n:  # the fault is never reached: this is the baseline trial (R37)
            return TrialOutcome(
                trace.trial, trace.passed, n, trace.errors[n], trace.misses[n],
                trace.decision.outcome, (), triggered=False, divergence=None, prefix=n,
            )  # fmt: skip
        if not made:
            made.append(self._variant_fixtures(task_id, item))
        fixtures, grown = made[0]
        step = bisect_right(trace.marks, fork) - 1
        c0 = trace.marks[step]
        plan = self.plan
        host = FixtureHost(fixtures, TaskContext(task_id, trace.trial, plan.seed), _OPTIONS)
        host.preload(
            trace.calls[:c0],
            trace.entries[: trace.consumed[c0]],
            (trace.misses[c0], trace.errors[c0], trace.live[c0]),
        )
        rejoin: _Rejoin | None = None
        if len(item.faults) == 1:
            rejoin = _Rejoin(trace, host, first, grown + 1, c0)
        outcome, error = _run(self.agent, task.get("input"), host, step, rejoin)
        own = host.calls[c0:]
        middle = tuple(self.cache.step(c) for c in own)
        keys = [self.keys.key(c) for c in own]
        if isinstance(outcome, int):  # rejoined the baseline at script step `outcome`
            cb = trace.marks[outcome]
            calls: list[CallRecord] = [*host.calls, *trace.calls[cb:]]
            steps = (*trace.steps[:c0], *middle, *trace.steps[cb:])
            decision = trace.decision
            errors = host.errors_served + trace.errors[n] - trace.errors[cb]
            misses = host.misses + trace.misses[n] - trace.misses[cb]
            cv = c0 + len(own)
            triggered = is_triggered(trace.keys[c0:cv], keys) or (
                cv != cb and trace.keys[cb:] != trace.keys[cv : cv + n - cb]
            )
            rest = cb
        else:
            calls = host.calls
            steps = (*trace.steps[:c0], *middle)
            decision = outcome
            errors, misses = host.errors_served, host.misses
            triggered = is_triggered(trace.keys[c0:], keys)
            rest = -1
        passed = error is None and self._grader(task_id, task).passes(
            decision.output(), calls, [s.tool for s in steps], [s.args_json for s in steps]
        )
        return TrialOutcome(
            trace.trial, passed, len(calls), errors, misses,
            decision.outcome, middle, triggered=triggered,
            divergence=_divergence_from(trace.steps, steps, c0), prefix=c0, rejoin=rest,
        )  # fmt: skip

    def _replayed(self, item: WorkItem) -> VariantOutcome:
        """A variant replayed in full (its own suite, or an agent that cannot be resumed)."""
        plan = self.plan
        if item.suite_data is None:
            suite = inject(
                self.base, item.faults, hard_repeats=plan.faults.hard_repeats,
                payload=plan.faults.payload, name=item.name,
            )  # fmt: skip
            validate = False  # derived from the baseline, which was validated once
        else:
            suite = Suite(item.suite_data)
            validate = True
        result = replay(
            suite, plan.agent, trials=plan.trials, seed=plan.seed, events=False, validate=validate
        )
        tasks: list[TaskOutcome] = []
        for task in result.tasks:
            known = {str(t.get("taskId")) for t in self.base.tasks}
            traces = (
                {t.trial: t for t in self.traces(task.task_id)} if task.task_id in known else {}
            )
            trials = []
            for r in task.trials:
                steps = tuple(self.cache.step(c) for c in r.calls)
                keys = [self.keys.key(c) for c in r.calls]
                trace = traces.get(r.trial)
                base_steps: tuple[Step, ...] = trace.steps if trace is not None else ()
                triggered = trace is None or is_triggered(trace.keys, keys)
                trials.append(
                    TrialOutcome(
                        r.trial,
                        r.passed,
                        len(r.calls),
                        r.errors_served,
                        r.fixture_misses,
                        r.decision.outcome,
                        steps,
                        triggered=triggered,
                        divergence=_divergence_from(base_steps, steps, 0),
                    )
                )
            tasks.append(TaskOutcome(task.task_id, task.score, tuple(trials)))
        return VariantOutcome(item.index, tuple(tasks))


def run_batch(
    batch: Batch, runners: dict[int, tuple[Batch, BatchRunner]] | None = None
) -> list[VariantOutcome]:
    """Replay a batch of variants (runs in a worker process, or in-process): the baseline
    once per task, then each variant, resumed from the baseline's prefix where the agent
    allows it. ``runners``: kept between in-process batches of one task, so its baseline is
    replayed once rather than once per batch."""
    if runners is None:
        return [runner.run(item) for runner in [_worker_runner(batch)] for item in batch.items]
    held = runners.get(id(batch.base))
    if held is not None and held[0].base is batch.base and held[0].plan is batch.plan:
        runner = held[1]
    else:
        runner = BatchRunner(batch, StepCache())
        runners[id(batch.base)] = (batch, runner)
    return [runner.run(item) for item in batch.items]


_WORKER = threading.local()
"""In a worker (per thread, so a thread pool never shares a runner): the last batch's runner,
with the content of its base suite."""


def _worker_runner(batch: Batch) -> BatchRunner:
    """The runner for a batch that came to a worker process: the previous batch's when its base
    suite has the same content and its plan is equal (a worker gets several batches of one
    task; the baseline is then replayed once per worker, not once per batch), else a new one.
    An agent that does not compare equal after pickling (any but the scripted one) always
    gets a new runner."""
    try:
        digest = orjson.dumps(batch.base, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return BatchRunner(batch, StepCache())
    held: tuple[bytes, Batch, BatchRunner] | None = getattr(_WORKER, "held", None)
    if held is not None and held[0] == digest and held[1].plan == batch.plan:
        return held[2]
    runner = BatchRunner(batch, StepCache())
    _WORKER.held = (digest, batch, runner)
    return runner


def _run(
    agent: ScriptedAgent, task_input: Any, host: FixtureHost, start: int, at_step: Any
) -> tuple[Decision | int, str | None]:
    """Run the scripted agent from ``start``; a crash fails the trial as in :func:`replay`."""
    try:
        out = agent.run_from(task_input, host, start, at_step)
    except ScriptError:
        raise
    except Exception as exc:  # an agent's crash fails its trial; the sweep goes on
        error = f"{type(exc).__name__}: {exc}"
        return Decision("failed", reason=f"agent raised {error}"), error
    return (out if isinstance(out, int) else as_decision(out)), None
