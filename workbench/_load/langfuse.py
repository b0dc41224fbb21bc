"""Langfuse trace exports as promoted runs (SPEC R34-R36).

Langfuse keeps an agent's run as a trace of observations (``SPAN``, ``GENERATION``, ``AGENT``,
``TOOL``, ``CHAIN``, ``EVENT``, ...), whatever framework sent it (its own SDKs, or OpenTelemetry
from ADK, the OpenAI Agents SDK, pydantic-ai, the Vercel AI SDK, the Claude Agent SDK, ...). A
trace downloaded from its UI is ``{"trace": {...}, "observations": [...]}`` (the observations
also inside the trace); its public API gives the trace object itself with ``observations``.

One file is one run. A ``TOOL`` observation is a call and its result (an observation whose
OpenTelemetry attributes, ``metadata.attributes``, say ``gen_ai.operation.name:
execute_tool`` too): the tool is ``gen_ai.tool.name``, else the observation's name less the
framework's prefix (``execute_tool say_hello``, ``running tool: get_pun``); the call id is
``gen_ai.tool.call.id``, else the observation's id; the args are its ``input`` and the response
its ``output`` (exports keep both as JSON text: text that is JSON is decoded, other text kept as
it is); the call lasts from ``startTime`` to ``endTime``, and its agent is the nearest ``AGENT``
observation above it. A tool observation with neither output nor end time never finished (a
problem, R2). Calls are in ``startTime`` order.

Failures (R36): ``level: ERROR`` (its ``statusMessage`` the error), else the caller's error rule
on the output's text. Every other observation is counted by type (R35); observations hold no
conversation the workbench reads (R40: none).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .._common.toolresult import result_text, text_content
from .common import RecordTally
from .pairing import CallPairer
from .reading import decode_json
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["load_langfuse", "sniff_langfuse"]

_TYPES = frozenset(
    {
        "SPAN",
        "GENERATION",
        "EVENT",
        "AGENT",
        "TOOL",
        "CHAIN",
        "RETRIEVER",
        "EVALUATOR",
        "EMBEDDING",
        "GUARDRAIL",
    }
)
"""Langfuse's observation types."""
_LEVELS = frozenset({"DEBUG", "DEFAULT", "WARNING", "ERROR"})
_PREFIXES = ("execute_tool ", "running tool: ")
"""What frameworks put before a tool's name in its observation's name (ADK, pydantic-ai)."""


def _observations(data: Any) -> tuple[Mapping[str, Any], list[Any]] | None:
    """The trace and its observations, in any of the export's shapes."""
    if not isinstance(data, Mapping):
        return None
    trace = data.get("trace")
    if isinstance(trace, Mapping):
        found = data.get("observations", trace.get("observations"))
        return (trace, found) if isinstance(found, list) else None
    found = data.get("observations")
    if isinstance(found, list) and "id" in data and ("htmlPath" in data or "projectId" in data):
        return data, found  # the public API's trace object
    return None


def sniff_langfuse(data: Any) -> bool:
    """A Langfuse trace export: a trace and its observations, the first of them typed as
    Langfuse types them."""
    found = _observations(data)
    if found is None:
        return False
    trace, observations = found
    first = observations[0] if observations else None
    if first is None:
        return isinstance(trace.get("id"), str) and "projectId" in trace
    return isinstance(first, Mapping) and first.get("type") in _TYPES and "traceId" in first


def load_langfuse(
    data: Any, file: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    found = _observations(data)
    if found is None:
        return [], [LoadProblem(file, "(root)", "observations", "not a Langfuse trace export")]
    trace, observations = found
    base = "observations" if "observations" in data else "trace.observations"
    pairer = CallPairer(file)
    tally = RecordTally()
    by_id = {o.get("id"): o for o in observations if isinstance(o, Mapping)}
    ordered = sorted(
        range(len(observations)),
        key=lambda i: (_start(observations[i]), i),
    )
    for index in ordered:
        observation = observations[index]
        where = f"{base}[{index}]"
        if not isinstance(observation, Mapping):
            pairer.problem(where, "", "an observation must be an object")
            continue
        kind = observation.get("type")
        if not _is_tool(observation):
            tally.add(f"observation:{kind}" if isinstance(kind, str) else "observation")
            continue
        tally.add("observation:TOOL")
        level = observation.get("level")
        if level is not None and (not isinstance(level, str) or level not in _LEVELS):
            # the failure flag of a call: wrong-typed, it is a problem (R35)
            pairer.problem(where, "level", "not one of DEBUG, DEFAULT, WARNING, ERROR")
            continue
        _tool(observation, where, by_id, pairer, rule)
    boundaries = pairer.finish()
    trace_id = trace.get("id") if isinstance(trace.get("id"), str) else None
    metadata: dict[str, Any] = {
        k: trace[k] for k in ("name", "sessionId", "userId", "tags") if trace.get(k) is not None
    }
    metadata.update(tally.to_metadata())
    run = PromotedRun(
        run_id=trace_id or "trace",
        boundaries=boundaries,
        source=file,
        format="langfuse",
        error_rule=rule,
        outcome="completed",
        answer=_decoded(trace.get("output")),
        task_key=f"trace-{trace_id[:8]}" if trace_id else "trace",
        metadata=metadata,
    )
    return [run], pairer.problems


def _start(observation: Any) -> str:
    start = observation.get("startTime") if isinstance(observation, Mapping) else None
    return start if isinstance(start, str) else ""


def _attributes(observation: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = observation.get("metadata")
    attributes = metadata.get("attributes") if isinstance(metadata, Mapping) else None
    return attributes if isinstance(attributes, Mapping) else {}


def _is_tool(observation: Mapping[str, Any]) -> bool:
    if observation.get("type") == "TOOL":
        return True
    return _attributes(observation).get("gen_ai.operation.name") == "execute_tool"


def _tool(
    observation: Mapping[str, Any],
    where: str,
    by_id: Mapping[Any, Any],
    pairer: CallPairer,
    rule: ErrorRule,
) -> None:
    attributes = _attributes(observation)
    name = attributes.get("gen_ai.tool.name")
    field_name = "metadata.attributes.gen_ai.tool.name"
    if not isinstance(name, str) or not name:
        name, field_name = observation.get("name"), "name"
        if isinstance(name, str):
            name = next((name[len(p) :] for p in _PREFIXES if name.startswith(p)), name)
    if not isinstance(name, str) or not name:
        pairer.problem(where, field_name, "missing or not a string")
        return
    call_id = attributes.get("gen_ai.tool.call.id")
    if not isinstance(call_id, str) or not call_id:
        call_id = observation.get("id")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "id", "missing or not a string")
        return
    extra = {"observationId": observation.get("id")} if call_id != observation.get("id") else {}
    agent = _agent(observation, by_id)
    args = _decoded(observation.get("input"))
    pairer.call(call_id, name, args, where=where, field_name="id", agent_id=agent, extra=extra)
    output = observation.get("output")
    end = observation.get("endTime")
    if output is None and end is None:
        return  # never finished: reported by the pairer
    response = _decoded(output)
    if isinstance(response, str):
        text = response
    elif isinstance(_content(response), list):  # an MCP CallToolResult
        text = result_text(_content(response))
    else:  # other JSON: the rule reads it as the export wrote it
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    failed = observation.get("level") == "ERROR"
    message = observation.get("statusMessage") if failed else None
    if not failed and rule.matches(text):
        failed, message = True, text
    if isinstance(response, str):
        response = {"content": text_content(response)}
    pairer.result(
        call_id,
        response,
        failed,
        where=where,
        field_name="level",
        error_message=(message if isinstance(message, str) and message else None)
        or ("tool call failed" if failed else None),
        duration_ms=_duration(observation.get("startTime"), end),
    )


def _content(response: Any) -> Any:
    return response.get("content") if isinstance(response, Mapping) else None


def _decoded(value: Any) -> Any:
    """An export's input or output: JSON text decoded (as strictly as a file, R35), other text
    as it is."""
    if not isinstance(value, str) or not value.lstrip().startswith(_JSON_STARTS):
        return value
    decoded, problem = decode_json(value.encode("utf-8", "surrogatepass"), "")
    return value if problem is not None else decoded


_JSON_STARTS = ("{", "[", '"')
"""What JSON text that is not a bare number, ``true``, ``false`` or ``null`` starts with: a
tool's output ``42`` or ``null`` stays the text it was."""


def _agent(observation: Mapping[str, Any], by_id: Mapping[Any, Any]) -> str | None:
    """The name of the nearest ``AGENT`` observation above this one."""
    seen: set[Any] = set()
    parent = by_id.get(observation.get("parentObservationId"))
    while isinstance(parent, Mapping) and id(parent) not in seen:
        seen.add(id(parent))
        if parent.get("type") == "AGENT" and isinstance(parent.get("name"), str):
            return str(parent["name"])
        parent = by_id.get(parent.get("parentObservationId"))
    return None


def _duration(start: Any, end: Any) -> int | None:
    if not isinstance(start, str) or not isinstance(end, str):
        return None
    try:
        took = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except ValueError:
        return None
    milliseconds = round(took.total_seconds() * 1000)
    return milliseconds if milliseconds >= 0 else None
