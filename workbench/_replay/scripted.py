"""The scripted agent (SPEC R23, R24): makes a script's calls in order, reacting to failures.

The conformance seam of RFC 0245: its recovery is exactly what its policies say, so a sweep with
it tests the host and the suite, not a model. Scripts are parsed once per task input
(:func:`~workbench._replay.policies.parse_script`) and the records are what runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .agents import Decision, TaskContext, ToolInterface
from .policies import (
    SKIP,
    Abort,
    Choose,
    Escalate,
    Fallback,
    Policy,
    Retry,
    Script,
    Skip,
    parse_policy,
    parse_script,
    seeded_draw,
)

__all__ = ["ScriptedAgent"]

_CACHE_LIMIT = 4096
"""Parsed scripts kept per agent (a sweep's variants share their task inputs)."""


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

    ``default_policy`` handles a failed step that has no ``onError`` (R23: ``abort``). A promoted
    suite gives every step its own ``onError``, so there the default never applies; ``override``
    is a policy for every failed step, in place of the steps' own (what if this agent always
    gave up, or always retried three times?).
    """

    agent_id = "workbench.scripted-agent"

    def __init__(self, default_policy: Any = "abort", *, override: Any = None) -> None:
        self._default: Policy = parse_policy(default_policy, "default_policy")
        self.default_policy = default_policy
        """The policy of a step with no ``onError`` (R23: ``abort``), as given."""
        self._override: Policy | None = (
            None if override is None else parse_policy(override, "override")
        )
        self.override = override
        """The policy of every failed step, in place of the steps' own ``onError`` (``None``:
        each step's own policy, else the default), as given."""
        self._scripts: dict[int, tuple[Any, Script]] = {}

    def __getstate__(self) -> dict[str, Any]:
        # Sent to sweep workers: the policies, not this process's parse cache.
        return {"default_policy": self.default_policy, "override": self.override}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["default_policy"], override=state.get("override"))  # type: ignore[misc]

    def script_for(self, task_input: Any, field: str = "input") -> Script:
        """The parsed script of a task input (parsed once per input object).

        Raises:
            ScriptError: the input is not a valid script (the message names ``field``).
        """
        held = self._scripts.get(id(task_input))
        if held is not None and held[0] is task_input:
            return held[1]
        script = parse_script(task_input, field)
        if len(self._scripts) >= _CACHE_LIMIT:
            self._scripts.clear()
        # Holding the input keeps its id from being reused by another object.
        self._scripts[id(task_input)] = (task_input, script)
        return script

    def run(self, task_input: Any, tools: ToolInterface) -> Decision:
        """Run the script against ``tools``."""
        decision = self.run_from(task_input, tools)
        assert isinstance(decision, Decision)
        return decision

    def run_from(
        self,
        task_input: Any,
        tools: ToolInterface,
        start: int = 0,
        at_step: Callable[[int], bool] | None = None,
    ) -> Decision | int:
        """Run the script from step ``start`` against ``tools``: the agent's state at the start
        of a step is only that step's number (each step's ``choose`` draws are numbered from 0),
        so a run resumed at step ``start`` on a host holding the calls made before it is the
        run from the beginning.

        ``at_step(i)`` is called before each step ``i`` from ``start`` on; when it returns
        ``True`` the run stops there and returns ``i`` instead of a decision (a sweep that
        knows the rest of the run from the baseline).
        """
        script = self.script_for(task_input)
        context = tools.context
        call = tools.call
        default = self._default
        override = self._override
        steps = script.steps
        try:
            for index in range(start, len(steps)):
                if at_step is not None and at_step(index):
                    return index
                step = steps[index]
                if call(step.tool, step.args).is_error:
                    if override is not None:
                        policy = override
                    else:
                        policy = step.on_error if step.on_error is not None else default
                    if policy is not SKIP:
                        self._handle(policy, step.tool, step.args, index, context, tools, [0])
        except _Stop as stop:
            return stop.decision
        if at_step is not None and at_step(len(steps)):
            return len(steps)
        return Decision("completed", script.answer)

    def _handle(
        self,
        policy: Policy,
        tool: str,
        args: Any,
        step: int,
        context: TaskContext,
        tools: ToolInterface,
        draws: list[int],
    ) -> None:
        """Apply ``policy`` to a failed call; return to go on, raise :class:`_Stop` to stop."""
        match policy:
            case Skip():
                return
            case Abort():
                raise _Stop(Decision("failed", reason=f"step {step}: {tool} failed"))
            case Retry(times=times, then=then):
                for _ in range(times):
                    if not tools.call(tool, args).is_error:
                        return
                self._handle(then, tool, args, step, context, tools, draws)
            case Fallback(call=target, then=then):
                if not tools.call(target.tool, target.args).is_error:
                    return
                self._handle(then, target.tool, target.args, step, context, tools, draws)
            case Escalate(call=target):
                tools.call(target.tool, target.args)
                raise _Stop(
                    Decision("escalated", reason=f"step {step}: escalated after {tool} failed")
                )
            case Choose(options=options, total=total):
                draw = seeded_draw(context.seed, context.task_id, context.trial, step, draws[0])
                draws[0] += 1
                point = draw * total
                chosen = options[-1][1]
                for weight, option in options:
                    point -= weight
                    if point < 0:
                        chosen = option
                        break
                self._handle(chosen, tool, args, step, context, tools, draws)
