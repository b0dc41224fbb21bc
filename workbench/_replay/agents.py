"""Agents: the :class:`Agent` protocol, what agents see and what they return (SPEC R24, R25).

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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .._common.toolresult import ToolResult
from .._common.vocab import OUTCOMES, Outcome

__all__ = ["Agent", "Decision", "ModelTurns", "TaskContext", "ToolInterface", "as_decision"]


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
class ModelTurns:
    """Where an LLM agent's assistant turns came from in one trial (R40, R41)."""

    recording: int = 0
    """Turns served from the recording (model fixtures): no model was asked."""
    cache: int = 0
    """Turns served from the model cache."""
    live: int = 0
    """Turns the live chat client answered (each stored in the cache)."""

    @property
    def model(self) -> int:
        """Turns that came from a model (cached or live): the same on a rerun with the cache."""
        return self.cache + self.live

    def to_json(self) -> dict[str, int]:
        """``{"recording", "cache", "live"}``."""
        return {"recording": self.recording, "cache": self.cache, "live": self.live}


@dataclass(frozen=True, slots=True)
class Decision:
    """An agent's decision: the task output golden expectations match (R24)."""

    outcome: Outcome
    """``completed``, ``failed``, ``escalated``, or ``needs-model`` (R41: the conversation left
    the recording and no model could answer; the trial is counted, neither passed nor
    failed)."""
    answer: Any = None
    """The agent's answer (any JSON)."""
    reason: str = ""
    """Why the run ended so (for people; not part of the graded output)."""
    model_turns: ModelTurns | None = None
    """For an LLM agent: where its turns came from (``None`` for other agents)."""

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
    if isinstance(value, Mapping) and value.get("outcome") in OUTCOMES:
        return Decision(value["outcome"], value.get("answer"), str(value.get("reason", "")))
    return Decision("completed", value)
