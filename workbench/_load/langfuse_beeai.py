"""BeeAI's ReAct agent in a Langfuse trace: its tool calls, which only its step updates hold.

OpenInference's BeeAI instrumentation (0.1) sends the ReAct agent's ``update`` events as spans
(Langfuse ``SPAN`` observations named ``agent.react.update-<n>``, attribute ``target``
``agent.react.update``), several a step, each holding the step so far: ``thought``, then
``tool.name``, ``tool.parameters`` (JSON text, ``"null"`` until the model has written them) and
``output.value`` (the tool's output once it ran; a step with no tool gives the final answer
there). A tool run of its own is not always traced (the trace of BeeAI's weather example holds
``tool.search.wikipedia.*`` events for the Wikipedia call, none for OpenMeteo's), so the steps
are what the agent called and read.

A step is the updates of one iteration (the ``iteration-<n>`` span they sit under; under no such
span, the updates in a row that share a ``thought``); its last update says the call: the tool, its
arguments and, when given, its output (the agent's own ``partial_update`` events repeat it while
it streams, and are not read). The call's id is that update's observation id.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from .._common.jsonio import json_text
from .._common.toolresult import text_content
from .pairing import CallPairer
from .records import ErrorRule

__all__ = ["REACT_PREFIX", "ReActCall", "react_calls", "read_react"]

REACT_PREFIX = "agent.react.update-"
"""The name of a ReAct step's update observation, less its number."""
_TARGET = "agent.react.update"


def is_react(observation: Mapping[str, Any]) -> bool:
    """Whether an observation is a ReAct step's update (by its name)."""
    name = observation.get("name")
    return isinstance(name, str) and name.startswith(REACT_PREFIX)


class ReActCall(NamedTuple):
    """A tool call of a ReAct step: its last update (``place``: its index in the export)."""

    place: int
    observation: Mapping[str, Any]
    name: str
    args: Any
    output: Any
    """The tool's output as the update gives it (JSON text, or text); ``None`` when none."""
    errored: bool
    """Whether the step's update says ``level: ERROR``, or its tool's error event is in it."""


def react_calls(
    observations: Sequence[tuple[int, Mapping[str, Any]]],
    attributes: Callable[[Mapping[str, Any]], Mapping[str, Any]],
    decoded: Callable[[Any], Any],
) -> list[ReActCall]:
    """The tool calls of a trace's ReAct steps, in the order the steps began
    (``observations``: ``(index, observation)`` in start order)."""
    iterations: set[str] = set()  # the iteration spans, and those a tool's error is under
    parents: dict[str, Any] = {}
    errors: list[Any] = []  # the parents of the tools' error events
    for _, observation in observations:
        name, own_id = observation.get("name"), observation.get("id")
        if type(own_id) is str:
            parents[own_id] = observation.get("parentObservationId")
        if isinstance(name, str) and name.startswith(_ITERATION) and type(own_id) is str:
            iterations.add(own_id)
        elif isinstance(name, str) and _TOOL_ERROR.fullmatch(name):
            errors.append(observation.get("parentObservationId"))
    failed: set[str] = set()
    for above in errors:  # (BeeAI puts a tool's events under the update that called it)
        for _ in range(8):
            if type(above) is not str or above in iterations:
                break
            above = parents.get(above)
        if type(above) is str:
            failed.add(above)
    steps: dict[Any, tuple[int, Mapping[str, Any], Mapping[str, Any]]] = {}
    thought_before: Any = None
    step = 0  # steps told apart by their thought alone (updates under no iteration)
    for index, observation in observations:
        name = observation.get("name")
        if not isinstance(name, str) or not name.startswith(REACT_PREFIX):
            continue
        said = attributes(observation)
        if said.get("target") != _TARGET:
            continue
        parent, thought = observation.get("parentObservationId"), said.get("thought")
        key = parent if type(parent) is str and parent in iterations else None
        if key is None and (step == 0 or thought != thought_before):
            step += 1
        thought_before = thought
        steps[key if key is not None else step] = (index, observation, said)  # (first place)
    calls: list[ReActCall] = []
    for key, (index, observation, said) in steps.items():
        tool, given = said.get("tool.name"), said.get("tool.parameters")
        if not isinstance(tool, str) or not tool or given is None or given == "null":
            continue  # a step that called no tool: its output is the answer
        output = said.get("output.value")
        errored = observation.get("level") == "ERROR" or (type(key) is str and key in failed)
        calls.append(ReActCall(index, observation, tool, decoded(given), output, errored))
    return calls


_ITERATION = "iteration-"
"""The name of the span of a ReAct iteration (a step), less its number."""
_TOOL_ERROR = re.compile(r"tool\..+\.error-\d+")
"""A tool's ``error`` event as a span of its own (BeeAI's ``tool.<path>.error-<n>``)."""


def read_react(
    observations: Iterable[tuple[int, Any]],
    attributes: Callable[[Mapping[str, Any]], Mapping[str, Any]],
    decoded: Callable[[Any], Any],
    base: str,
    pairer: CallPairer,
    rule: ErrorRule,
) -> None:
    """The calls of a trace's ReAct steps (``observations``: ``(index, observation)`` in start
    order, of any type), each with its output: served as the text the agent read, failed as
    ``rule`` says, by its update's ``level: ERROR`` or by its tool's error event under the same
    iteration (``tool.<path>.error-<n>``); a call with no output is left open (R2)."""
    if not any(type(o) is dict and is_react(o) for _, o in observations):
        return
    calls = react_calls([(i, o) for i, o in observations if type(o) is dict], attributes, decoded)
    for call in calls:
        where = f"{base}[{call.place}]"
        call_id = call.observation.get("id")
        if not isinstance(call_id, str) or not call_id:
            call_id = f"react-step-{call.place}"
        field = "metadata.attributes.tool.name"
        pairer.call(call_id, call.name, call.args, where=where, field_name=field)
        if call.output is None:
            continue
        text = call.output if isinstance(call.output, str) else json_text(call.output)
        failed = call.errored or rule.matches(text)
        pairer.result(
            call_id,
            {"content": text_content(text)},
            failed,
            where=where,
            field_name="metadata.attributes.output.value",
            error_message=text if failed else None,
        )
