"""Grading a trial, a task over its trials and a whole run (SPEC R16, R26-R29).

These functions take plain data (a task's JSON object, the agent's graded output, the calls made)
so that every path that replays a suite, in process, over MCP or over HTTP, grades it the same
way. The one rule of R16 that grading owns, "a miss handled as a failure means the task cannot
pass", is :func:`unhandled_miss`, used for trials and tasks alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .golden import golden_match
from .trajectory import PreparedTrajectory
from .trials import TrialStats, aggregate_score, suite_passed, task_passed, trial_stats

__all__ = [
    "GradedCall",
    "TaskGrader",
    "TrialGrade",
    "decided_trial_stats",
    "grade_task",
    "grade_trial",
    "summary",
    "task_summary_entry",
    "unhandled_miss",
]


class GradedCall(Protocol):
    """What grading reads of a call: its tool, its args and how it was served."""

    @property
    def tool(self) -> str: ...

    @property
    def args(self) -> Any: ...

    @property
    def served_by(self) -> str: ...


@dataclass(frozen=True, slots=True)
class TrialGrade:
    """How one trial was graded."""

    golden: bool | None
    """Whether the output met the golden expectation (``None``: the task has none)."""
    trajectory: bool | None
    """Whether the calls met the trajectory expectation (``None``: the task has none)."""
    passed: bool
    """Golden and trajectory met, and no miss handled as a failure (R16)."""


def unhandled_miss(calls: Iterable[GradedCall]) -> bool:
    """Whether a call matched no fixture and no live tool answered it (R16: cannot pass).

    A miss under ``onMiss: "fail"``, or ``"live"`` with no live tool registered, is served as a
    ``workbench.fixture_miss`` failure; a miss a live tool answered is graded as usual.
    """
    return any(call.served_by == "miss" for call in calls)


class TaskGrader:
    """A task's expectations read once, to grade many trials of it (R16, R26, R27).

    :func:`grade_trial` is ``TaskGrader(task).grade(output, calls)``; a sweep grading thousands
    of trials of one task builds one grader and passes each call's canonical args it already has.
    A ``rubric`` expectation cannot pass here: the workbench has no rubric judge.
    """

    __slots__ = ("_golden", "_rubric", "_trajectory")

    def __init__(self, task: Mapping[str, Any]) -> None:
        self._golden: tuple[Any, Any] | None = None
        self._rubric = False
        expected = task.get("expected")
        if isinstance(expected, Mapping):
            match = expected.get("match")
            if expected.get("kind") == "golden" and isinstance(match, Mapping):
                self._golden = (match.get("strategy", "exact"), match.get("value"))
            elif expected.get("kind") == "rubric":
                self._rubric = True
        self._trajectory: PreparedTrajectory | None = None
        spec = task.get("trajectory")
        if isinstance(spec, Mapping) and isinstance(spec.get("expected"), list):
            self._trajectory = PreparedTrajectory(
                spec["expected"], spec.get("match", "strict"), spec.get("argsMatch", "exact")
            )

    def grade(
        self,
        output: Any,
        calls: Sequence[GradedCall],
        args_keys: Sequence[str | None] | None = None,
    ) -> TrialGrade:
        """Grade one trial: golden on the output (R26), trajectory on the calls (R27), misses
        (R16). ``args_keys``: each call's args as canonical JSON, when the caller has them."""
        golden: bool | None = None
        if self._golden is not None:
            golden = golden_match(output, self._golden[0], self._golden[1])
        elif self._rubric:
            golden = False
        trajectory: bool | None = None
        if self._trajectory is not None:
            report = self._trajectory.report(
                [{"tool": c.tool, "args": c.args} for c in calls], args_keys
            )
            trajectory = report.matched
        passed = golden is not False and trajectory is not False and not unhandled_miss(calls)
        return TrialGrade(golden, trajectory, passed)

    def passes(
        self,
        output: Any,
        calls: Sequence[GradedCall],
        tools: Sequence[str],
        args_keys: Sequence[str | None],
    ) -> bool:
        """Whether a trial passes, as :meth:`grade`'s ``passed`` (R16, R26, R27), the cheapest
        way: a failed golden expectation decides without the trajectory, and the trajectory is
        counted by class where that gives the matching's answer."""
        if self._rubric:
            return False
        if self._golden is not None and not golden_match(output, *self._golden):
            return False
        if unhandled_miss(calls):
            return False
        if self._trajectory is None:
            return True
        matched = self._trajectory.matched_keys(tools, args_keys)
        if matched is None:
            return self.grade(output, calls, args_keys).passed
        return matched


def grade_trial(task: Mapping[str, Any], output: Any, calls: Sequence[GradedCall]) -> TrialGrade:
    """Grade one trial: golden on the output (R26), trajectory on the calls (R27), misses (R16).

    A ``rubric`` expectation cannot pass here: the workbench has no rubric judge.
    """
    return TaskGrader(task).grade(output, calls)


def decided_trial_stats(passed: Sequence[bool]) -> TrialStats:
    """R28's figures over the trials that were decided: ``needs-model`` trials (R41) are left
    out by the caller. With none decided, ``n`` is 0, the score 0 and no pass@k is defined
    (such a task cannot pass and is left out of the aggregate score)."""
    if not passed:
        return TrialStats(n=0, passed=0, pass_at_k={}, pass_hat_k={}, score=0.0)
    return trial_stats(passed)


def grade_task(
    stats: TrialStats, thresholds: Mapping[str, Any] | None, calls: Iterable[GradedCall]
) -> bool:
    """Whether a task passed over its decided trials (R28), and never with an unhandled miss
    (R16), even where thresholds would pass it on its score; a task with no decided trial (all
    ``needs-model``, R41) does not pass."""
    return stats.n > 0 and task_passed(stats, thresholds) and not unhandled_miss(calls)


def task_summary_entry(
    task_id: str, stats: TrialStats, passed: bool, fixture_misses: int, needs_model: int = 0
) -> dict[str, Any]:
    """A task's entry in the extended summary (R29); ``needsModelCount`` when trials ended
    ``needs-model`` (R41: counted here, left out of ``trials`` and the score)."""
    entry: dict[str, Any] = {
        "taskId": task_id,
        "score": stats.score,
        "passed": passed,
        "fixtureMissCount": fixture_misses,
        "trials": {
            "n": stats.n,
            "passed": stats.passed,
            "passAtK": dict(stats.pass_at_k),
            "passHatK": dict(stats.pass_hat_k),
        },
    }
    if needs_model:
        entry["needsModelCount"] = needs_model
    return entry


def summary(
    suite_id: str,
    suite_version: str,
    entries: Sequence[Mapping[str, Any]],
    thresholds: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The run's extended ``EvalSummary`` (R28, R29) from its task entries.

    A task none of whose trials was decided (all ``needs-model``, R41) is left out of the
    aggregate score; it does not pass, and the root ``needsModelCount`` counts such trials.
    """
    decided = [e for e in entries if _decided(e)]
    aggregate = aggregate_score(float(e["score"]) for e in decided)
    flags = [bool(e["passed"]) for e in entries]
    body: dict[str, Any] = {
        "suiteId": suite_id,
        "suiteVersion": suite_version,
        "aggregateScore": aggregate,
        "passed": suite_passed(aggregate, flags, thresholds),
        "taskCount": len(entries),
        "passedCount": sum(flags),
        "fixtureMissCount": sum(int(e["fixtureMissCount"]) for e in entries),
        "tasks": [dict(e) for e in entries],
    }
    needs_model = sum(int(e.get("needsModelCount", 0)) for e in entries)
    if needs_model:
        body["needsModelCount"] = needs_model
    return body


def _decided(entry: Mapping[str, Any]) -> bool:
    trials = entry.get("trials")
    return not isinstance(trials, Mapping) or int(trials.get("n", 1)) > 0
