"""The scripted agent's script and failure policies, parsed once into typed records (SPEC R23).

A task input ``{"script": [step, ...], "answer"?: ...}`` is checked and parsed by
:func:`parse_script` into a :class:`Script` of :class:`ScriptStep` records, each failure policy
into one of the :data:`Policy` records. The scripted agent runs those records; nothing is
validated again while it runs. :func:`script_problems` lists every problem by field (what
``validate`` and ``replay`` report), and a script with none always parses.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, TypeAlias

__all__ = [
    "ABORT",
    "MAX_RETRIES",
    "SKIP",
    "Abort",
    "Choose",
    "Escalate",
    "Fallback",
    "Policy",
    "Retry",
    "Script",
    "ScriptError",
    "ScriptStep",
    "Skip",
    "ToolCall",
    "parse_policy",
    "parse_script",
    "policy_problems",
    "script_problems",
    "seeded_draw",
]


class ScriptError(ValueError):
    """A scripted task's input is not a valid script; the message names the field."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call a policy makes: a fallback or a hand-off tool and its args."""

    tool: str
    """The tool to call."""
    args: Any
    """Its args (``{}`` when the policy gives none)."""


@dataclass(frozen=True, slots=True)
class Abort:
    """Stop; the outcome is ``failed`` (the default policy)."""


@dataclass(frozen=True, slots=True)
class Skip:
    """Go on with the next step."""


@dataclass(frozen=True, slots=True)
class Retry:
    """Call again with the same args up to :attr:`times` times, then apply :attr:`then`."""

    times: int
    """How many more calls to make."""
    then: Policy
    """What to do when every retry failed (default: abort)."""


@dataclass(frozen=True, slots=True)
class Fallback:
    """Call another tool; if that fails too, apply :attr:`then` to the fallback's failure."""

    call: ToolCall
    """The fallback call."""
    then: Policy
    """What to do when the fallback failed (default: abort)."""


@dataclass(frozen=True, slots=True)
class Escalate:
    """Call a hand-off tool and stop; the outcome is ``escalated``."""

    call: ToolCall
    """The hand-off call."""


@dataclass(frozen=True, slots=True)
class Choose:
    """A policy drawn by weight with :func:`seeded_draw` (weights need not sum to 1)."""

    options: tuple[tuple[float, Policy], ...]
    """``(weight, policy)`` pairs, in the order given."""
    total: float
    """The sum of the weights (more than 0)."""


Policy: TypeAlias = Abort | Skip | Retry | Fallback | Escalate | Choose
"""A parsed failure policy (R23)."""

ABORT: Final = Abort()
SKIP: Final = Skip()


class ScriptStep(NamedTuple):
    """One scripted call and what to do when it fails.

    A named tuple rather than a frozen dataclass: a suite's scripts are parsed on every
    :func:`~workbench.replay` call, and a tuple is built four times faster (benchmarks/replay.py).
    """

    tool: str
    """The tool to call."""
    args: Any
    """Its args (``{}`` when the step gives none)."""
    on_error: Policy | None
    """The step's ``onError`` policy; ``None``: the agent's default."""


@dataclass(frozen=True, slots=True)
class Script:
    """A scripted task's input, parsed."""

    steps: tuple[ScriptStep, ...]
    """The calls, in order."""
    answer: Any
    """The answer of a run that completes."""


def seeded_draw(seed: int, task_id: str, trial: int, step: int, draw: int = 0) -> float:
    """A number in [0, 1) fixed by seed, task, trial and step (R23 ``choose``).

    Derived from SHA-256, not Python's ``hash``, so it is the same in every process.
    """
    key = f"{seed}\0{task_id}\0{trial}\0{step}\0{draw}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2.0**64


# -- checking ------------------------------------------------------------------------------------

MAX_RETRIES: Final = 1000
"""The most retries one ``{"retry": n}`` policy may ask for (more would never finish)."""

_POLICY_MEMBERS: Final[dict[str, tuple[str, ...]]] = {
    "retry": ("retry", "then"),
    "fallback": ("fallback", "then"),
    "escalate": ("escalate",),
    "choose": ("choose",),
}
"""R23: each policy object's kind and the members it may have (``x-`` members are carried)."""


def _call_problems(value: Any, field: str) -> list[str]:
    if not isinstance(value, Mapping):
        return [f"{field}: must be an object with 'tool'"]
    if not isinstance(value.get("tool"), str) or not value["tool"]:
        return [f"{field}.tool: must be a non-empty string"]
    return []


def policy_problems(policy: Any, field: str) -> list[str]:
    """Every problem of a failure policy, by field (empty when it is valid)."""
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
        elif n > MAX_RETRIES:
            problems.append(f"{field}.retry: {n} retries is over the limit of {MAX_RETRIES}")
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
            problems += policy_problems(option.get("policy"), f"{where}.policy")
        if not problems and sum(float(o["p"]) for o in options) <= 0:
            problems.append(f"{field}.choose: probabilities sum to 0")
    else:
        return [f"{field}: unknown policy {dict(policy)!r}"]
    if "then" in policy:
        problems += policy_problems(policy["then"], f"{field}.then")
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
                    if type(n) is int and 0 <= n <= MAX_RETRIES:
                        continue
        where = f"{field}.script[{i}]"
        problems += _call_problems(step, where)
        if isinstance(step, Mapping) and "onError" in step:
            problems += policy_problems(step["onError"], f"{where}.onError")
    return problems


# -- parsing -------------------------------------------------------------------------------------


def _call(value: Mapping[str, Any]) -> ToolCall:
    return ToolCall(value["tool"], value.get("args", {}))


def _build(policy: Any) -> Policy:
    """The record of a policy :func:`policy_problems` found valid."""
    if policy == "abort":
        return ABORT
    if policy == "skip":
        return SKIP
    then = _build(policy["then"]) if "then" in policy else ABORT
    if "retry" in policy:
        return Retry(int(policy["retry"]), then)
    if "fallback" in policy:
        return Fallback(_call(policy["fallback"]), then)
    if "escalate" in policy:
        return Escalate(_call(policy["escalate"]))
    options = tuple((float(o["p"]), _build(o["policy"])) for o in policy["choose"])
    return Choose(options, sum(p for p, _ in options))


def parse_policy(policy: Any, field: str = "policy") -> Policy:
    """A failure policy as its record; :class:`ScriptError` names the first problem's field."""
    problems = policy_problems(policy, field)
    if problems:
        raise ScriptError(problems[0])
    return _build(policy)


def parse_script(task_input: Any, field: str = "input") -> Script:
    """A scripted task's input as a :class:`Script`; :class:`ScriptError` names the first
    problem's field."""
    problems = script_problems(task_input, field)
    if problems:
        raise ScriptError(problems[0])
    steps = tuple(
        [
            ScriptStep(
                step["tool"],
                step.get("args", {}),
                _build(step["onError"]) if "onError" in step else None,
            )
            for step in task_input["script"]
        ]
    )
    return Script(steps, task_input.get("answer"))
