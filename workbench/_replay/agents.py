"""Agents: the :class:`Agent` protocol and the scripted agent (SPEC R23-R25).

Any object with a ``run(task_input, tools)`` method can be replayed: it calls tools through
``tools.call(tool, args)``, reads each result's ``is_error``, and returns a :class:`Decision`
(or a mapping with ``outcome`` and ``answer``). The scripted agent ships in the box: it reads a
script from the task input and reacts to failures by the policies of R23.

A hand-written agent is a few lines::

    class CheckTwice:
        agent_id = "example.check-twice"

        def run(self, task_input, tools):
            result = tools.call("billing:lookup", {"id": task_input["customer"]})
            if result.is_error:
                result = tools.call("billing:lookup", {"id": task_input["customer"]})
            if result.is_error:
                return Decision("failed")
            return Decision("completed", answer=result.text)
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from .._common.toolresult import ToolResult

__all__ = [
    "Agent",
    "Decision",
    "Outcome",
    "ScriptError",
    "ScriptedAgent",
    "TaskContext",
    "ToolInterface",
    "as_decision",
    "script_problems",
    "seeded_draw",
]

Outcome = Literal["completed", "failed", "escalated"]
"""How an agent's run ended (R24)."""


@dataclass(frozen=True, slots=True)
class TaskContext:
    """Which task and trial an agent is running, and the run's seed (for seeded choices)."""

    task_id: str
    """The task's ``taskId``."""
    trial: int
    """The 0-based trial number."""
    seed: int = 0
    """The run's seed (default 0)."""


@runtime_checkable
class ToolInterface(Protocol):
    """What an agent calls tools through: the replay host implements it."""

    @property
    def context(self) -> TaskContext:
        """The task, trial and seed being run."""
        ...

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The tools the task has fixtures for, in first-use order."""
        ...

    def call(self, tool: str, args: Any = None) -> ToolResult:
        """Call a tool; a failure comes back with ``is_error=True`` (never raised)."""
        ...


@dataclass(frozen=True, slots=True)
class Decision:
    """An agent's decision: the task output golden expectations match (R24)."""

    outcome: Outcome
    """``completed``, ``failed`` or ``escalated``."""
    answer: Any = None
    """The agent's answer (any JSON)."""
    reason: str = ""
    """Why the run ended so (for people; not part of the graded output)."""

    def output(self) -> dict[str, Any]:
        """The graded output: ``{"outcome": ..., "answer": ...}``."""
        return {"outcome": self.outcome, "answer": self.answer}


@runtime_checkable
class Agent(Protocol):
    """Anything that runs a task against a tool interface and returns a decision (R25)."""

    def run(self, task_input: Any, tools: ToolInterface) -> Decision | Mapping[str, Any] | Any:
        """Run one task; return a :class:`Decision` (or ``{"outcome", "answer"}``)."""
        ...


def as_decision(value: Any) -> Decision:
    """A :class:`Decision` from what an agent returned.

    A mapping with an ``outcome`` of ``completed`` / ``failed`` / ``escalated`` is read as one;
    any other value is the answer of a ``completed`` run.
    """
    if isinstance(value, Decision):
        return value
    if isinstance(value, Mapping) and value.get("outcome") in ("completed", "failed", "escalated"):
        return Decision(value["outcome"], value.get("answer"), str(value.get("reason", "")))
    return Decision("completed", value)


class ScriptError(ValueError):
    """A scripted task's input is not a valid script; the message names the field."""


def seeded_draw(seed: int, task_id: str, trial: int, step: int, draw: int = 0) -> float:
    """A number in [0, 1) fixed by seed, task, trial and step (R23 ``choose``).

    Derived from SHA-256, not Python's ``hash``, so it is the same in every process.
    """
    key = f"{seed}\0{task_id}\0{trial}\0{step}\0{draw}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2.0**64


def _call_problems(value: Any, field: str) -> list[str]:
    if not isinstance(value, Mapping):
        return [f"{field}: must be an object with 'tool'"]
    if not isinstance(value.get("tool"), str) or not value["tool"]:
        return [f"{field}.tool: must be a non-empty string"]
    return []


_POLICY_MEMBERS: dict[str, tuple[str, ...]] = {
    "retry": ("retry", "then"),
    "fallback": ("fallback", "then"),
    "escalate": ("escalate",),
    "choose": ("choose",),
}
"""R23: each policy object's kind and the members it may have (``x-`` members are carried)."""


def _policy_problems(policy: Any, field: str) -> list[str]:
    if policy in ("abort", "skip"):
        return []
    if not isinstance(policy, Mapping):
        return [
            f"{field}: unknown policy {policy!r} (abort, skip, retry, fallback, escalate, choose)"
        ]
    kinds = [kind for kind in _POLICY_MEMBERS if kind in policy]
    if len(kinds) > 1:
        return [f"{field}: one policy per object, not {' and '.join(kinds)}"]
    if kinds:
        allowed = _POLICY_MEMBERS[kinds[0]]
        unknown = [k for k in policy if k not in allowed and not str(k).startswith("x-")]
        if unknown:
            return [
                f"{field}.{unknown[0]}: not a member of a {kinds[0]} policy "
                f"(members: {', '.join(allowed)})"
            ]
    problems: list[str] = []
    if "retry" in policy:
        n = policy["retry"]
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            problems.append(f"{field}.retry: must be an integer >= 0")
    elif "fallback" in policy:
        problems += _call_problems(policy["fallback"], f"{field}.fallback")
    elif "escalate" in policy:
        problems += _call_problems(policy["escalate"], f"{field}.escalate")
    elif "choose" in policy:
        options = policy["choose"]
        if not isinstance(options, list) or not options:
            return [f"{field}.choose: must be a non-empty list"]
        for i, option in enumerate(options):
            where = f"{field}.choose[{i}]"
            if not isinstance(option, Mapping):
                problems.append(f"{where}: must be an object with 'p' and 'policy'")
                continue
            p = option.get("p")
            if not isinstance(p, int | float) or isinstance(p, bool) or p < 0:
                problems.append(f"{where}.p: must be a number >= 0")
            problems += _policy_problems(option.get("policy"), f"{where}.policy")
        if not problems and sum(float(o["p"]) for o in options) <= 0:
            problems.append(f"{field}.choose: probabilities sum to 0")
    else:
        return [f"{field}: unknown policy {dict(policy)!r}"]
    if "then" in policy:
        problems += _policy_problems(policy["then"], f"{field}.then")
    return problems


def script_problems(task_input: Any, field: str = "input") -> list[str]:
    """Every problem of a scripted task's input, by field (empty when it is a valid script)."""
    if not isinstance(task_input, Mapping) or not isinstance(task_input.get("script"), list):
        return [f"{field}.script: the scripted agent needs a list of steps"]
    problems: list[str] = []
    for i, step in enumerate(task_input["script"]):
        # Fast path for the common step (a tool, and no policy or abort/skip): nothing to report,
        # so no field names are built. Anything else takes the full check below.
        if type(step) is dict:
            tool = step.get("tool")
            if type(tool) is str and tool:
                if "onError" not in step:
                    continue
                policy = step["onError"]
                if type(policy) is str and (policy == "abort" or policy == "skip"):
                    continue
                if type(policy) is dict and len(policy) == 1:  # {"retry": n}: promotion's default
                    n = policy.get("retry")
                    if type(n) is int and n >= 0:
                        continue
        where = f"{field}.script[{i}]"
        problems += _call_problems(step, where)
        if isinstance(step, Mapping) and "onError" in step:
            problems += _policy_problems(step["onError"], f"{where}.onError")
    return problems


class _Stop(Exception):
    def __init__(self, decision: Decision) -> None:
        self.decision = decision


class ScriptedAgent:
    """The scripted agent (R23): makes the script's calls in order, reacting to failures.

    A step is ``{"tool", "args"?, "onError"?}``; ``onError`` is a policy: ``"abort"`` (default:
    stop, outcome ``failed``), ``"skip"`` (go on), ``{"retry": n}`` (call again with the same
    args up to n times, then abort), ``{"retry": n, "then": policy}``, ``{"fallback": {"tool",
    "args"?}, "then"?: policy}`` (``then`` handles the fallback's own failure, default abort),
    ``{"escalate": {"tool", "args"?}}`` (call the hand-off tool, outcome ``escalated``), and
    ``{"choose": [{"p", "policy"}, ...]}`` (a policy drawn with :func:`seeded_draw`; the weights
    are normalised). When the script ends, the outcome is ``completed`` with the input's
    ``answer``.
    """

    agent_id = "workbench.scripted-agent"

    def __init__(self, default_policy: Any = "abort") -> None:
        problems = _policy_problems(default_policy, "default_policy")
        if problems:
            raise ScriptError(problems[0])
        self.default_policy = default_policy
        """The policy of a step with no ``onError`` (R23: ``abort``)."""

    def run(self, task_input: Any, tools: ToolInterface) -> Decision:
        """Run the script against ``tools``."""
        problems = script_problems(task_input)
        if problems:
            raise ScriptError(problems[0])
        script: Sequence[Mapping[str, Any]] = task_input["script"]
        context = tools.context
        call = tools.call
        default = self.default_policy
        try:
            for index, step in enumerate(script):
                tool = step["tool"]
                args = step.get("args", {})
                if call(tool, args).is_error:
                    policy = step.get("onError", default)
                    if policy != "skip":
                        self._handle(policy, tool, args, index, context, tools, [0])
        except _Stop as stop:
            return stop.decision
        return Decision("completed", task_input.get("answer"))

    def _handle(
        self,
        policy: Any,
        tool: str,
        args: Any,
        step: int,
        context: TaskContext,
        tools: ToolInterface,
        draws: list[int],
    ) -> None:
        """Apply ``policy`` to a failed call; return to go on, raise :class:`_Stop` to stop."""
        if policy == "skip":
            return
        if policy == "abort" or not isinstance(policy, Mapping):
            raise _Stop(Decision("failed", reason=f"step {step}: {tool} failed"))
        if "retry" in policy:
            for _ in range(int(policy["retry"])):
                if not tools.call(tool, args).is_error:
                    return
            self._handle(policy.get("then", "abort"), tool, args, step, context, tools, draws)
            return
        if "fallback" in policy:
            target = policy["fallback"]
            fb_tool, fb_args = target["tool"], target.get("args", {})
            if not tools.call(fb_tool, fb_args).is_error:
                return
            self._handle(policy.get("then", "abort"), fb_tool, fb_args, step, context, tools, draws)
            return
        if "escalate" in policy:
            target = policy["escalate"]
            tools.call(target["tool"], target.get("args", {}))
            raise _Stop(Decision("escalated", reason=f"step {step}: escalated after {tool} failed"))
        if "choose" in policy:
            options = policy["choose"]
            draw = seeded_draw(context.seed, context.task_id, context.trial, step, draws[0])
            draws[0] += 1
            total = sum(float(o["p"]) for o in options)
            point = draw * total
            chosen = options[-1]["policy"]
            for option in options:
                point -= float(option["p"])
                if point < 0:
                    chosen = option["policy"]
                    break
            self._handle(chosen, tool, args, step, context, tools, draws)
            return
        raise _Stop(Decision("failed", reason=f"step {step}: unknown policy"))
