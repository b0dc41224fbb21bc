"""Every check a replay runs before it starts, as a list (SPEC R11, R23): one validator.

:func:`preflight` is what ``workbench validate`` reports and what :func:`~workbench.replay`
refuses with: the schema problems and reused task ids, trials over the host's limits, members
the host profile does not advertise (:func:`~workbench._suite.capabilities.suite_problems`),
then, for the scripted agent, every task input it could not run. ``replay`` raises the first of
them (a :class:`~workbench.HostRefusal`, or a :class:`~workbench.ScriptError` for a script), so
a suite ``validate`` passes is never refused by ``replay`` before it starts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .._suite.capabilities import HostProfile, HostRefusal, SuiteProblem, suite_problems
from .._suite.model import Suite
from .policies import ScriptError, script_problems
from .scripted import ScriptedAgent

__all__ = ["preflight", "refuse"]


def preflight(
    suite: Suite | Mapping[str, Any] | str | os.PathLike[str],
    *,
    host_profile: HostProfile | None = None,
    agent: Any = None,
    validate: bool = True,
) -> list[SuiteProblem]:
    """Every reason a replay of ``suite`` would be refused before it starts, in order.

    ``host_profile``: the host it would run on (default: the workbench's own, which advertises
    everything). ``agent``: the agent it would run (default: the scripted agent, whose scripts
    are checked too; another agent's inputs are its own business). ``validate=False`` leaves out
    the schema check (as replays of variants derived from a validated suite do).
    """
    the_suite = Suite.coerce(suite)
    profile = host_profile if host_profile is not None else HostProfile()
    problems = suite_problems(the_suite.data, profile, validate=validate)
    if agent is None or isinstance(agent, ScriptedAgent):
        tasks = the_suite.data.get("tasks")
        for index, task in enumerate(tasks if isinstance(tasks, list) else ()):
            if not isinstance(task, Mapping):
                continue  # a schema problem already
            field = f"tasks[{index}].input"
            for text in script_problems(task.get("input"), field):
                where, _, why = text.partition(": ")
                problems.append(SuiteProblem("script", where, why))
    return problems


def refuse(problems: list[SuiteProblem]) -> None:
    """Raise for the first problem: :class:`ScriptError` for a script, else the host's
    :class:`HostRefusal` (``400 validation_error`` naming the field, R11)."""
    if not problems:
        return
    first = problems[0]
    if first.kind == "script":
        raise ScriptError(str(first))
    if first.kind in ("schema", "suite"):
        raise HostRefusal(first.field, f"suite is not valid: {first}")
    raise HostRefusal(first.field, first.message)
