"""Langfuse trace exports as promoted runs (SPEC R34-R36).

Langfuse keeps an agent's run as a trace of observations (``SPAN``, ``GENERATION``, ``AGENT``,
``TOOL``, ``CHAIN``, ``EVENT``, ...), whatever framework sent it (its own SDKs, or OpenTelemetry
from ADK, the OpenAI Agents SDK, pydantic-ai, the Vercel AI SDK, the Claude Agent SDK, ...). A
trace downloaded from its UI is ``{"trace": {...}, "observations": [...]}`` (the observations
also inside the trace); its public API gives the trace object itself with ``observations``.

One file is one run. A ``TOOL`` observation is a call and its result (an observation whose
OpenTelemetry attributes, ``metadata.attributes``, say ``gen_ai.operation.name: execute_tool``
too): the tool is ``gen_ai.tool.name``, else the observation's name less the framework's prefix
(``execute_tool say_hello``, ``running tool: get_pun``); the call id is ``gen_ai.tool.call.id``
(the last of a list), else the observation's id; the args are what the model sent, read from
the ``GENERATION`` whose reply asked for the call (``langfuse_requests``: by call id, else by
name in order), else ADK's ``gcp.vertex.agent.tool_call_args``, else the observation's
``input``, ``extra.argsFrom`` saying which (``GENERATION``, that attribute, ``input``); the
response is ADK's ``gcp.vertex.agent.tool_response`` where present (``extra.resultFrom``;
``langfuse_adk``), else its ``output`` (exports keep input and output as JSON text: text that is
JSON is decoded, other text kept as it is); the call lasts from ``startTime`` to ``endTime``,
and its agent is the nearest ``AGENT`` observation above it. A tool observation with neither
output nor end time never finished (a problem, R2). Calls are in ``startTime`` order. A trace
with no tool observation whose framework marks a tool run only by a ``SPAN`` named
``tool.<Name>`` (Koog) has those spans read as its calls (the tool ``<Name>``, the id the
observation's), and so has one whose spans are named after the tools the model asked for (Agno,
LangGraph: ``langfuse_spans``; the request's id and args); BeeAI's ReAct agent's calls are read
from its step updates (``langfuse_beeai``).

Failures (R36): ``level: ERROR`` (its ``statusMessage`` the error), else the caller's error rule on
the output's text. Every other observation is counted by type (R35); observations hold no
conversation the workbench reads (R40: none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from .._common.jsonio import json_text
from .._common.toolresult import result_text, text_content
from .common import RecordTally, duration_ms, gen_ai_call_id, json_args
from .langfuse_adk import ADK_RESPONSE, adk_response
from .langfuse_beeai import read_react
from .langfuse_generations import LEVELS, generation_runs, trace_runs
from .langfuse_requests import ModelCall, ModelCalls, agrees, model_calls, run_args
from .langfuse_shapes import CAMEL, camel, is_observation, observations_of, sniff_langfuse
from .langfuse_spans import (
    SPAN_PREFIX,
    is_named_tool_span,
    start_order,
    tool_message,
    without_prefix,
)
from .langfuse_tree import Agents
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["is_observation", "load_langfuse", "sniff_langfuse"]

_PREFIXES = ("execute_tool ", "running tool: ")
"""What frameworks put before a tool's name in its observation's name (ADK, pydantic-ai)."""
_SPAN_PREFIXES = (*_PREFIXES, SPAN_PREFIX)
"""A span's prefixes: those, and Koog's ``tool.``."""


def load_langfuse(
    data: Any, file: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """A run a trace: one for an export of a trace, one for each trace a list of observations
    holds (in the order their first observations come)."""
    found = observations_of(data)
    if found is None:
        return [], [LoadProblem(file, "(root)", "observations", "not a Langfuse trace export")]
    trace, observations, base = found
    if trace:
        return _run(trace, range(len(observations)), observations, base, file, rule, 0, 1)
    by_trace: dict[Any, tuple[list[int], list[Any]]] = {}
    for index, observation in enumerate(observations):
        key = camel(observation).get("traceId") if isinstance(observation, Mapping) else None
        places, items = by_trace.setdefault(key if isinstance(key, str) else "", ([], []))
        places.append(index)
        items.append(observation)
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    for number, (key, (places, items)) in enumerate(by_trace.items()):
        more_runs, more = _run(
            {"id": key} if key else {}, places, items, base, file, rule, number, len(by_trace)
        )
        runs.extend(more_runs)
        problems.extend(more)
    return runs, problems


def _run(
    trace: Mapping[str, Any],
    places: Sequence[int],
    items: list[Any],
    base: str,
    file: str,
    rule: ErrorRule,
    number: int,
    total: int,
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """The run of one trace's observations (``items``, at ``places`` in the export's list)."""
    pairer = CallPairer(file)
    tally = RecordTally()
    observations, by_id, starts = _indexed(items)
    # every observation of its own id: none is read twice, so none is looked up in ``read``
    repeats = len(by_id) != len(observations)
    agents = Agents(by_id)
    ordered = start_order(observations, starts)
    read: set[str] = set()
    counted: dict[str, int] = {}  # the observations by what they were read as (TOOL: a call)
    # spans that are tool runs by their names alone (langfuse_spans), if no tool observation
    by_name = not any(type(o) is dict and _is_tool(o) for o in observations)
    # what the model asked for: the calls' args (langfuse_requests); None: nothing asked
    requests = model_calls(observations, ordered, _decoded)
    for place, message in requests.problems:  # requests of args of a type never written (R35)
        pairer.problem(f"{base}[{places[place]}]", "output", message)
    calls = requests or None
    for rank, position in enumerate(ordered):
        observation = observations[position]
        if type(observation) is not dict and not isinstance(observation, Mapping):
            pairer.problem(f"{base}[{places[position]}]", "", "an observation must be an object")
            continue
        if repeats and _named(observation):
            if observation["id"] in read:  # the same observation twice (exports put together)
                tally.add("observation:repeated")
                continue
            read.add(observation["id"])
        kind = observation.get("type")
        asked = calls.asked(observation, rank, _decoded) if by_name and calls is not None else None
        named = by_name and (asked is not None or is_named_tool_span(observation))
        tool = named or kind == "TOOL" or (observation.get("metadata") and _is_tool(observation))
        if not tool:  # (no metadata, no attributes: no _is_tool call)
            if isinstance(kind, str):  # (no TOOL: that is a call)
                counted[kind] = counted.get(kind, 0) + 1
            else:
                tally.add("observation")
            continue
        counted["TOOL"] = counted.get("TOOL", 0) + 1
        where = f"{base}[{places[position]}]"
        level = observation.get("level")
        if level is not None and (not isinstance(level, str) or level not in LEVELS):
            # the failure flag of a call: wrong-typed, it is a problem (R35)
            pairer.problem(where, "level", "not one of DEBUG, DEFAULT, WARNING, ERROR")
            continue
        _tool(observation, where, agents, pairer, rule, calls, rank, asked)
    for kind, count in counted.items():
        tally.counts[f"observation:{kind}"] += count
    in_place = [(places[i], observations[i]) for i in ordered] if by_name else []
    if by_name and not pairer.calls_made:  # BeeAI's ReAct agent: its steps hold its calls
        read_react(in_place, _attributes, _decoded, base, pairer, rule)
    trace_id = trace.get("id") if isinstance(trace.get("id"), str) else None
    metadata: dict[str, Any] = {
        k: trace[k] for k in ("name", "sessionId", "userId", "tags") if trace.get(k) is not None
    }
    metadata.update(tally.to_metadata())
    fallback = f"trace-{number}" if total > 1 else "trace"
    task_key = f"trace-{trace_id[:8]}" if trace_id else fallback
    if by_name and not pairer.calls_made and not pairer.problems:
        # a model client traced alone: its GENERATIONs hold the calls (langfuse_generations)
        chats, problems = generation_runs(in_place, _decoded, base, file, rule)
        if any(chat.boundaries for chat in chats) or problems:
            return trace_runs(chats, trace_id or fallback, task_key, metadata), problems
    boundaries = pairer.finish()
    run = PromotedRun(
        run_id=trace_id or fallback,
        boundaries=boundaries,
        source=file,
        format="langfuse",
        error_rule=rule,
        outcome="completed",
        answer=_decoded(trace.get("output")),
        task_key=task_key,
        metadata=metadata,
    )
    return [run], pairer.problems


def _indexed(items: list[Any]) -> tuple[list[Any], dict[str, Any], list[Any]]:
    """The observations with the API's names, those of a string id by it, and each one's
    ``startTime`` (``None`` for one that is not a dict): one pass over a large trace."""
    observations: list[Any] = []
    by_id: dict[str, Any] = {}
    starts: list[Any] = []
    for o in items:
        # (the usual observation has the API's names: kept as it is, tested without a call)
        if type(o) is not dict or not o.keys().isdisjoint(CAMEL):
            o = camel(o)
        observations.append(o)
        if type(o) is dict:
            starts.append(o.get("startTime"))
        else:
            starts.append(None)
            if not isinstance(o, Mapping):
                continue
        if type(key := o.get("id")) is str:
            by_id[key] = o
    return observations, by_id, starts


def _named(observation: Mapping[str, Any]) -> bool:
    return type(observation.get("id")) is str


def _attributes(observation: Mapping[str, Any]) -> Mapping[str, Any]:
    """The OpenTelemetry attributes Langfuse kept on an observation's ``metadata`` (an object,
    or its JSON text, as the UI's download writes it)."""
    metadata = observation.get("metadata")
    if not metadata:  # none, or empty: no attributes (most observations of a large trace)
        return _NO_ATTRIBUTES
    metadata = _decoded(metadata)
    attributes = _decoded(metadata.get("attributes")) if isinstance(metadata, Mapping) else None
    return attributes if isinstance(attributes, Mapping) else _NO_ATTRIBUTES


_NO_ATTRIBUTES: Mapping[str, Any] = MappingProxyType({})


def _is_tool(observation: Mapping[str, Any]) -> bool:
    if observation.get("type") == "TOOL":
        return True
    return _attributes(observation).get("gen_ai.operation.name") == "execute_tool"


def _tool(
    observation: Mapping[str, Any],
    where: str,
    agents: Agents,
    pairer: CallPairer,
    rule: ErrorRule,
    calls: ModelCalls | None,
    rank: int,
    asked: ModelCall | None,
) -> None:
    """One tool run, at ``rank`` in start order (``asked``: the model's request a span named
    after the tool answers; else the request it answers is looked for in ``calls``, if any)."""
    # (no metadata, as most observations: no attributes, without a call)
    attributes = _attributes(observation) if observation.get("metadata") else _NO_ATTRIBUTES
    name = attributes.get("gen_ai.tool.name")
    field_name = "metadata.attributes.gen_ai.tool.name"
    if asked is not None:
        name, field_name = observation.get("name"), "name"
    elif not isinstance(name, str) or not name:
        name, field_name = observation.get("name"), "name"
        if isinstance(name, str):
            prefixes = _SPAN_PREFIXES if observation.get("type") == "SPAN" else _PREFIXES
            if name.startswith(prefixes):  # (one test in C for the usual name, no prefix)
                name = without_prefix(name, prefixes)
    if not isinstance(name, str) or not name:
        pairer.problem(where, field_name, "missing or not a string")
        return
    raw_call_id = attributes.get("gen_ai.tool.call.id")
    if raw_call_id is None:  # the Vercel AI SDK's own attribute
        raw_call_id = attributes.get("ai.toolCall.id")
    run_call_id = gen_ai_call_id(raw_call_id) if raw_call_id is not None else None
    own = observation.get("id")
    call_id = (asked.call_id or own) if asked is not None else run_call_id
    if not isinstance(call_id, str) or not call_id:
        call_id = own
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "id", "missing or not a string")
        return
    extra: dict[str, Any] = {"observationId": own} if call_id != own else {}
    if isinstance(raw_call_id, list):
        extra["gen_ai.tool.call.id"] = raw_call_id  # as given
    output = observation.get("output")
    adk_result, wrong = adk_response(attributes, _decoded) if attributes else (None, None)
    if wrong is not None:
        pairer.problem(where, f"metadata.attributes.{ADK_RESPONSE}", wrong)
        return
    if adk_result is not None:  # ADK's own record of what the tool gave (its output may be "{}")
        output, extra["resultFrom"] = adk_result, ADK_RESPONSE
    if attributes:  # the args the run's own record holds (ADK's, else its input)
        recorded, recorded_from = run_args(attributes, observation.get("input"), _decoded)
    else:  # (no attributes, as most observations: no call)
        recorded, recorded_from = _decoded(observation.get("input")), "input"
    model = asked
    if model is None and calls is not None:  # (None: the model asked for no call)
        parent = observation.get("parentObservationId")
        model = calls.match(name, run_call_id, rank, parent, recorded)
    # (a request of an id and a name alone gives no args; one a run's name found, ``asked``,
    # was not matched on its args: checked here)
    if model is not None and model.said and (model is not asked or agrees(model.args, recorded)):
        args, extra["argsFrom"] = model.args, "GENERATION"
    else:
        args, extra["argsFrom"] = recorded, recorded_from
    if model is not None and model.call_id is not None and model.call_id != call_id:
        extra["modelCallId"] = model.call_id
    pairer.call(
        call_id,
        name,
        args,
        where=where,
        field_name="id",
        agent_id=agents.of(observation),
        extra=extra,
    )
    end = observation.get("endTime")
    if output is None and end is None:
        return  # never finished: reported by the pairer
    response = _decoded(output)
    message = tool_message(response) if asked is not None else None
    if message is not None and message.failed is None:  # a status LangChain never writes
        pairer.problem(where, f"output.{message.place}", message.wrong_status())
        pairer.discard(call_id)
        return
    if message is not None:  # LangGraph's ToolMessage: its content is what the model was sent
        response = message.content
    content = (
        response.get("content") if type(response) is dict or isinstance(response, Mapping) else None
    )
    if isinstance(response, str):
        text = response
    elif isinstance(content, list):  # an MCP CallToolResult
        text = result_text(content)
    else:  # other JSON: the rule reads it as the export wrote it
        text = output if isinstance(output, str) else json_text(output)
    failed = observation.get("level") == "ERROR" or (message is not None and message.failed is True)
    error = observation.get("statusMessage") if failed else None
    if not failed and rule.matches(text):
        failed, error = True, text
    if isinstance(response, str):
        response = {"content": text_content(response)}
    pairer.result(
        call_id,
        response,
        failed,
        where=where,
        field_name="level",
        error_message=(error if isinstance(error, str) and error else None)
        or ("tool call failed" if failed else None),
        duration_ms=duration_ms(observation.get("startTime"), end),
    )


def _decoded(value: Any) -> Any:
    """An export's input or output: JSON text decoded (as strictly as a file, R35), other text
    as it is (JSON text of an object, array or string: a tool's output ``42`` stays text)."""
    if type(value) is not str:
        return value
    # (one C test for the usual text; ``lstrip`` copies the whole text: only for a blank start)
    if value.startswith(_JSON_OPENINGS) or (
        value[:1].isspace() and value.lstrip().startswith(_JSON_OPENINGS)
    ):
        return json_args(value)  # the text kept where it does not decode as strictly as a file
    return value


_JSON_OPENINGS = ("{", "[", '"')
